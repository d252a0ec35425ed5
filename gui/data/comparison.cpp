#include "data/comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QObject>

namespace smclab::gui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double ComparisonSection::value(int column, int row) const {
    if (column < 0 || column >= values.size()) return kNaN;
    const QList<double>& series = values[column];
    if (row < 0 || row >= series.size()) return kNaN;
    return series[row];
}

namespace {

const report::Cell* cellAt(const ComparisonSection& section, int column, int row) {
    if (column < 0 || column >= section.cells.size() || row < 0 || row >= section.cells[column].size()) return nullptr;
    return &section.cells[column][row];
}

int decimalsFor(double magnitude) {
    magnitude = std::abs(magnitude);
    return magnitude >= 1000.0 ? 0 : magnitude >= 100.0 ? 1 : magnitude >= 10.0 ? 2 : 3;
}

}  // namespace

double ComparisonSection::percent(int column, int row, int baselineColumn) const {
    const double x = value(column, row);
    const double base = value(baselineColumn, row);
    if (std::isnan(x) || std::isnan(base) || base == 0.0) return kNaN;
    if (overTcp(column, row) || overTcp(baselineColumn, row)) return kNaN;
    return (x / base - 1.0) * 100.0;
}

bool ComparisonSection::overTcp(int column, int row) const {
    const report::Cell* cell = cellAt(*this, column, row);
    return cell != nullptr && cell->value && cell->overTcp();
}

bool ComparisonSection::fellBack(int column, int row) const {
    const report::Cell* cell = cellAt(*this, column, row);
    return cell != nullptr && cell->value && cell->fellBack();
}

QString ComparisonSection::connectionNote(int column, int row) const {
    const report::Cell* cell = cellAt(*this, column, row);
    if (cell == nullptr || !cell->value || !cell->fellBack()) return QString();
    const QString why =
        cell->fallbackReasons.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(cell->fallbackReasons);
    if (cell->overTcp()) {
        return QObject::tr("%1 of %2 runs moved their data over TCP, not SMC-R%3: not compared")
            .arg(cell->tcpRepetitions)
            .arg(cell->repetitions)
            .arg(why);
    }
    return QObject::tr("%1 of %2 runs had connections fall back to TCP%3")
        .arg(cell->fallbackRepetitions)
        .arg(cell->repetitions)
        .arg(why);
}

std::optional<report::Interval> ComparisonSection::interval(int column, int row) const {
    const report::Cell* cell = cellAt(*this, column, row);
    return cell != nullptr && cell->value ? cell->interval : std::nullopt;
}

std::optional<report::Change> ComparisonSection::change(int column, int row, int baselineColumn) const {
    const report::Cell* cell = cellAt(*this, column, row);
    const report::Cell* base = cellAt(*this, baselineColumn, row);
    if (cell == nullptr || base == nullptr) return std::nullopt;
    return report::changeVsBaseline(*cell, *base);
}

int ComparisonSection::repetitionCount(int column, int row) const {
    const report::Cell* cell = cellAt(*this, column, row);
    return cell != nullptr && cell->value ? cell->repetitions : 0;
}

int ComparisonSection::busyRepetitions(int column, int row) const {
    const report::Cell* cell = cellAt(*this, column, row);
    return cell != nullptr && cell->value ? cell->busyRepetitions : 0;
}

bool ComparisonSection::isFlagged(int column, int row) const {
    return column >= 0 && column < flagged.size() && row >= 0 && row < flagged[column].size() && flagged[column][row];
}

void Comparison::flagValue(const QString& workload, const QString& column, qint64 sizeBytes) {
    for (ComparisonSection& section : sections) {
        const qsizetype c = section.columns.indexOf(column);
        const qsizetype r = section.sizesBytes.indexOf(sizeBytes);
        if (section.workload != workload || c < 0 || r < 0) continue;
        if (section.flagged.size() != section.columns.size()) {
            section.flagged = QList<QList<bool>>(section.columns.size(), QList<bool>(section.sizesBytes.size(), false));
        }
        section.flagged[c][r] = true;
    }
}

bool ComparisonSection::prefersLogScale() const {
    if (metric != Metric::bandwidth || sizesBytes.isEmpty()) return false;
    const auto [lo, hi] = std::minmax_element(sizesBytes.begin(), sizesBytes.end());
    return *lo > 0 && *hi / *lo >= 1024;
}

bool ComparisonSection::isValid() const {
    if (metric == Metric::invalid || columns.isEmpty() || values.size() != columns.size()) return false;
    for (const QList<double>& series : values) {
        if (series.size() != sizesBytes.size()) return false;
    }
    return true;
}

const ComparisonSection* Comparison::section(Metric metric) const {
    for (const ComparisonSection& s : sections) {
        if (s.metric == metric) return &s;
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
    section.cells.resize(table.columns.size());
    for (const report::Row& row : table.rows) {
        section.sizesBytes.append(row.msgSize);
        for (int c = 0; c < table.columns.size(); ++c) {
            // A plain double, not a copied optional: GCC -O3 misreads the
            // copy as maybe-uninitialized.
            double v = kNaN;
            report::Cell cell;
            if (c < row.cells.size() && row.cells[c].value.has_value()) {
                v = *row.cells[c].value;
                cell = row.cells[c];
            }
            section.values[c].append(v);
            section.cells[c].append(cell);
        }
    }
    return section;
}

Comparison Comparison::fromDocument(const report::ReportDocument& document) {
    Comparison comparison;
    comparison.title = document.title;
    comparison.document = document;
    for (const report::ComparisonTable& table : document.tables) comparison.sections.append(sectionFromTable(table));
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

QString intervalBrackets(const report::Interval& interval) {
    const int decimals = decimalsFor(std::max(std::abs(interval.low), std::abs(interval.high)));
    return QStringLiteral("[%1, %2]").arg(interval.low, 0, 'f', decimals).arg(interval.high, 0, 'f', decimals);
}

QString intervalToolTip(const report::Interval& interval, int repetitions) {
    // Few repetitions cannot give 95 %: the interval is [min, max] with the
    // coverage it really has (statistics.h).
    return interval.reachesTarget()
               ? QObject::tr("95% CI of the median %1 over %2 runs").arg(intervalBrackets(interval)).arg(repetitions)
               : QObject::tr("CI of the median %1 over %2 runs, %3% confidence (more runs give 95%)")
                     .arg(intervalBrackets(interval))
                     .arg(repetitions)
                     .arg(interval.confidencePct, 0, 'f', 1);
}

QString changeToolTip(const report::Change& change) {
    if (!change.interval)
        return QObject::tr("change %1 (no interval: fewer than 2 runs on a side)").arg(signedPercent(change.pct));
    const report::Interval& i = *change.interval;
    return QObject::tr("change %1, %2% CI [%3, %4] %: %5")
        .arg(signedPercent(change.pct))
        .arg(i.confidencePct, 0, 'f', 1)
        .arg(signedPercent(i.low))
        .arg(signedPercent(i.high))
        .arg(QString::fromLatin1(report::noiseName(change.noise)));
}

QString sizeLabel(qint64 sizeBytes) {
    if (sizeBytes >= (1 << 20) && sizeBytes % (1 << 20) == 0) return QStringLiteral("%1M").arg(sizeBytes >> 20);
    if (sizeBytes >= 1024 && sizeBytes % 1024 == 0) return QStringLiteral("%1K").arg(sizeBytes >> 10);
    return QString::number(sizeBytes);
}

QString signedPercent(double percent, int decimals) {
    if (std::isnan(percent)) return QStringLiteral("-");
    return QStringLiteral("%1%2%")
        .arg(percent < 0.0 ? QStringLiteral("-") : QStringLiteral("+"))
        .arg(std::abs(percent), 0, 'f', decimals);
}

}  // namespace smclab::gui
