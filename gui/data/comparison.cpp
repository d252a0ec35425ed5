#include "data/comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace smclab::gui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double ComparisonSection::value(int column, int row) const {
    if (column < 0 || column >= values.size())
        return kNaN;
    const QList<double>& series = values[column];
    if (row < 0 || row >= series.size())
        return kNaN;
    return series[row];
}

double ComparisonSection::percent(int column, int row, int baselineColumn) const {
    const double x = value(column, row);
    const double base = value(baselineColumn, row);
    if (std::isnan(x) || std::isnan(base) || base == 0.0)
        return kNaN;
    return (x / base - 1.0) * 100.0;
}

double ComparisonSection::error(int column, int row) const {
    if (column < 0 || column >= errors.size() || row < 0 || row >= errors[column].size())
        return 0.0;
    return errors[column][row];
}

int ComparisonSection::repetitionCount(int column, int row) const {
    if (column < 0 || column >= repetitions.size() || row < 0 || row >= repetitions[column].size())
        return 0;
    return repetitions[column][row];
}

bool ComparisonSection::isFlagged(int column, int row) const {
    return column >= 0 && column < flagged.size() && row >= 0 && row < flagged[column].size() &&
           flagged[column][row];
}

void Comparison::flagValue(const QString& workload, const QString& column, qint64 sizeBytes) {
    for (ComparisonSection& section : sections) {
        const qsizetype c = section.columns.indexOf(column);
        const qsizetype r = section.sizesBytes.indexOf(sizeBytes);
        if (section.workload != workload || c < 0 || r < 0)
            continue;
        if (section.flagged.size() != section.columns.size()) {
            section.flagged = QList<QList<bool>>(section.columns.size(), QList<bool>(section.sizesBytes.size(), false));
        }
        section.flagged[c][r] = true;
    }
}

bool ComparisonSection::prefersLogScale() const {
    if (metric != Metric::bandwidth || sizesBytes.isEmpty())
        return false;
    const auto [lo, hi] = std::minmax_element(sizesBytes.begin(), sizesBytes.end());
    return *lo > 0 && *hi / *lo >= 1024;
}

bool ComparisonSection::isValid() const {
    if (metric == Metric::invalid || columns.isEmpty() || values.size() != columns.size())
        return false;
    for (const QList<double>& series : values) {
        if (series.size() != sizesBytes.size())
            return false;
    }
    return true;
}

const ComparisonSection* Comparison::section(Metric metric) const {
    for (const ComparisonSection& s : sections) {
        if (s.metric == metric)
            return &s;
    }
    return nullptr;
}

QStringList Comparison::columns() const {
    return sections.isEmpty() ? QStringList() : sections.front().columns;
}

ComparisonSection sectionFromTable(const report::ComparisonTable& table) {
    ComparisonSection section;
    if (table.metric == QLatin1String("bw_mbps")) {
        section.metric = Metric::bandwidth;
    } else if (table.metric == QLatin1String("latency_us")) {
        section.metric = Metric::latency;
    } else {
        section.metric = Metric::other;
    }
    section.title = table.title;
    section.unit = table.unit;
    section.lowerIsBetter = table.lowerIsBetter;
    section.workload = table.workload;
    section.columns = table.columns;
    section.values.resize(table.columns.size());
    section.errors.resize(table.columns.size());
    section.repetitions.resize(table.columns.size());
    for (const report::Row& row : table.rows) {
        section.sizesBytes.append(row.msgSize);
        for (int c = 0; c < table.columns.size(); ++c) {
            // A plain double, not a copied optional: GCC -O3 misreads the
            // copy as maybe-uninitialized.
            double v = kNaN;
            double e = 0.0;
            int n = 0;
            if (c < row.cells.size() && row.cells[c].value.has_value()) {
                v = *row.cells[c].value;
                e = errorHalfWidth(row.cells[c]);
                n = row.cells[c].repetitions;
            }
            section.values[c].append(v);
            section.errors[c].append(e);
            section.repetitions[c].append(n);
        }
    }
    return section;
}

Comparison Comparison::fromDocument(const report::ReportDocument& document) {
    Comparison comparison;
    comparison.title = document.title;
    comparison.document = document;
    for (const report::ComparisonTable& table : document.tables)
        comparison.sections.append(sectionFromTable(table));
    return comparison;
}

QString metricName(Metric metric) {
    switch (metric) {
        case Metric::bandwidth:
            return QStringLiteral("Bandwidth");
        case Metric::latency:
            return QStringLiteral("Latency");
        case Metric::other:
            return QStringLiteral("Rate");
        case Metric::invalid:
            break;
    }
    return QStringLiteral("?");
}

double errorHalfWidth(const report::Cell& cell) {
    return cell.repetitions > 1 ? cell.spread : 0.0;
}

QString errorName() {
    return QStringLiteral("sd");
}

QString sizeLabel(qint64 sizeBytes) {
    if (sizeBytes >= (1 << 20) && sizeBytes % (1 << 20) == 0)
        return QStringLiteral("%1M").arg(sizeBytes >> 20);
    if (sizeBytes >= 1024 && sizeBytes % 1024 == 0)
        return QStringLiteral("%1K").arg(sizeBytes >> 10);
    return QString::number(sizeBytes);
}

QString signedPercent(double percent, int decimals) {
    if (std::isnan(percent))
        return QStringLiteral("-");
    return QStringLiteral("%1%2%").arg(percent < 0.0 ? QStringLiteral("-") : QStringLiteral("+"))
        .arg(std::abs(percent), 0, 'f', decimals);
}

}  // namespace smclab::gui
