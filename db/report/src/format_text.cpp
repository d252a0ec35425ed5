#include "smclab/report/format_text.h"

#include <algorithm>

namespace smclab::report {

namespace {

// Widths measured on the letter (bench-anchors section 7).
constexpr int kMsgSizeWidth = 8;
constexpr int kBaselineWidth = 14;
constexpr int kComparedWidth = 11;
constexpr int kLatencyLaterWidth = 15;  // latency: second and later compared columns
constexpr int kHeaderIndent = 8;        // spaces between "MsgSize" and the first label
constexpr int kHeaderBaselineField = 24;
constexpr int kHeaderComparedField = 19;
constexpr int kPercentLength = 9;  // "(%6.2f%)"

QString number(double value) {
    return QString::number(value, 'f', 3);
}

QString percent(double pct) {
    return QLatin1Char('(') + QString::number(pct, 'f', 2).rightJustified(6) + QStringLiteral("%)");
}

void trimRight(QString& line) {
    qsizetype end = line.size();
    while (end > 0 && line[end - 1] == QLatin1Char(' ')) --end;
    line.truncate(end);
}

struct Layout {
    int msgSizeWidth = kMsgSizeWidth;
    QList<int> valueWidths;   // per column, baseline first
    QList<int> headerFields;  // per column except the last
};

Layout layoutFor(const ComparisonTable& table) {
    Layout layout;
    const qsizetype columns = table.columns.size();
    for (const Row& row : table.rows) {
        layout.msgSizeWidth = std::max(layout.msgSizeWidth, static_cast<int>(QString::number(row.msgSize).size()) + 1);
    }
    for (qsizetype c = 0; c < columns; ++c) {
        int width = c == 0 ? kBaselineWidth : kComparedWidth;
        if (c >= 2 && table.lowerIsBetter) width = kLatencyLaterWidth;
        int field = c == 0 ? kHeaderBaselineField : kHeaderComparedField;
        // Widen the column so every number keeps a blank in front of it, and
        // so its label leaves a blank before the next label.
        int extra = 0;
        for (const Row& row : table.rows) {
            if (c < row.cells.size() && row.cells[c].value) {
                const int need = static_cast<int>(number(*row.cells[c].value).size()) + 1;
                extra = std::max(extra, need - width);
            }
        }
        if (c + 1 < columns) extra = std::max(extra, static_cast<int>(table.columns[c].size()) + 1 - field);
        layout.valueWidths.append(width + extra);
        if (c + 1 < columns) layout.headerFields.append(field + extra);
    }
    return layout;
}

QString headerLine(const ComparisonTable& table, const Layout& layout) {
    QString line = QStringLiteral("MsgSize").rightJustified(layout.msgSizeWidth);
    line += QString(kHeaderIndent, QLatin1Char(' '));
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        if (c + 1 < table.columns.size()) {
            line += table.columns[c].leftJustified(layout.headerFields[c]);
        } else {
            line += table.columns[c];
        }
    }
    trimRight(line);
    return line;
}

QString rowLine(const ComparisonTable& table, const Layout& layout, const Row& row) {
    QString line = QString::number(row.msgSize).rightJustified(layout.msgSizeWidth);
    const QString unit = table.unit.isEmpty() ? QString() : QLatin1Char(' ') + table.unit;
    const std::optional<double> base = row.cells.isEmpty() ? std::nullopt : row.cells[0].value;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        const int width = layout.valueWidths[c];
        const std::optional<double> value = c < row.cells.size() ? row.cells[c].value : std::nullopt;
        const int tail = static_cast<int>(unit.size()) + (c == 0 ? 0 : kPercentLength);
        if (!value) {
            line += QStringLiteral("-").rightJustified(width) + QString(tail, QLatin1Char(' '));
            continue;
        }
        line += number(*value).rightJustified(width) + unit;
        if (c == 0) continue;
        if (const auto pct = percentVsBaseline(value, base)) {
            line += percent(*pct);
        } else {
            line += QString(kPercentLength, QLatin1Char(' '));
        }
    }
    trimRight(line);
    return line;
}

}  // namespace

QString formatTextTable(const ComparisonTable& table) {
    const Layout layout = layoutFor(table);
    QString out = QStringLiteral("==== %1 ====\n").arg(table.title);
    out += headerLine(table, layout) + QLatin1Char('\n');
    for (const Row& row : table.rows) out += rowLine(table, layout, row) + QLatin1Char('\n');
    return out;
}

QString formatText(const QList<ComparisonTable>& tables) {
    QString out;
    for (const ComparisonTable& table : tables) out += formatTextTable(table);
    return out;
}

}  // namespace smclab::report
