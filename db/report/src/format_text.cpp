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
    QList<int> markWidths;    // per column: 0, or room for " [TCP]" / " [fb]" when a cell is marked
};

// The mark after a cell whose connections did not all run SMC-R (issue
// 30): "[TCP]" when its data went over TCP, "[fb]" when some connection
// fell back but the data went over RDMA. Explained under the table.
QString markOf(const Cell& cell) {
    if (cell.overTcp()) return QStringLiteral(" [TCP]");
    if (cell.fellBack()) return QStringLiteral(" [fb]");
    return QString();
}

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
        int mark = 0;
        for (const Row& row : table.rows) {
            if (c < row.cells.size()) mark = std::max(mark, static_cast<int>(markOf(row.cells[c]).size()));
        }
        layout.valueWidths.append(width + extra);
        layout.markWidths.append(mark);
        if (c + 1 < columns) layout.headerFields.append(field + extra + mark);
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
    const Cell base = row.cells.value(0);
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        const int width = layout.valueWidths[c];
        const Cell cell = row.cells.value(c);
        const int tail = static_cast<int>(unit.size()) + (c == 0 ? 0 : kPercentLength);
        const QString mark = markOf(cell).leftJustified(layout.markWidths[c]);
        if (!cell.value) {
            line += QStringLiteral("-").rightJustified(width) + QString(tail, QLatin1Char(' ')) + mark;
            continue;
        }
        line += number(*cell.value).rightJustified(width) + unit;
        if (c > 0) {
            // A cell whose data (or whose baseline's) went over TCP is not compared.
            if (const auto pct = percentVsBaseline(cell, base)) {
                line += percent(*pct);
            } else {
                line += QString(kPercentLength, QLatin1Char(' '));
            }
        }
        line += mark;
    }
    trimRight(line);
    return line;
}

// Under a table with marked cells: per column and mark, the sizes and the
// reasons, e.g. "[TCP] SMC with patches at 1, 64 B: the data went over TCP,
// not SMC-R (no percentage): PEERNOSMC x6".
QString markLegend(const ComparisonTable& table) {
    QString out;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        for (const bool overTcp : {true, false}) {
            QStringList sizes;
            QStringList reasons;
            for (const Row& row : table.rows) {
                const Cell cell = row.cells.value(c);
                if (cell.overTcp() != overTcp || !cell.fellBack()) continue;
                sizes << QString::number(row.msgSize);
                for (const QString& reason : cell.fallbackReasons.split(QStringLiteral(", "), Qt::SkipEmptyParts)) {
                    if (!reasons.contains(reason)) reasons << reason;
                }
            }
            if (sizes.isEmpty()) continue;
            const QString at = sizes.size() == table.rows.size()
                                   ? QStringLiteral("at every size")
                                   : QStringLiteral("at %1 B").arg(sizes.join(QStringLiteral(", ")));
            const QString line =
                overTcp ? QStringLiteral("[TCP] %1 %2: the data went over TCP, not SMC-R (no percentage): %3\n")
                        : QStringLiteral("[fb] %1 %2: some connections fell back to TCP: %3\n");
            out += line.arg(table.columns[c], at, reasons.join(QStringLiteral("; ")));
        }
    }
    return out;
}

// "==== Wire ====": what each column ran over, once per column label.
QString wireSection(const QList<ComparisonTable>& tables) {
    QStringList labels;
    QStringList wires;
    for (const ComparisonTable& table : tables) {
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            const QString wire = table.wires.value(c);
            if (wire.isEmpty() || labels.contains(table.columns[c])) continue;
            labels << table.columns[c];
            wires << wire;
        }
    }
    if (labels.isEmpty()) return QString();
    qsizetype width = 0;
    for (const QString& label : labels) width = std::max(width, label.size());
    QString out = QStringLiteral("==== Wire ====\n");
    for (qsizetype i = 0; i < labels.size(); ++i)
        out += labels[i].leftJustified(width + 2) + wires[i] + QLatin1Char('\n');
    return out;
}

}  // namespace

QString formatTextTable(const ComparisonTable& table) {
    const Layout layout = layoutFor(table);
    QString out = QStringLiteral("==== %1 ====\n").arg(table.title);
    out += headerLine(table, layout) + QLatin1Char('\n');
    for (const Row& row : table.rows) out += rowLine(table, layout, row) + QLatin1Char('\n');
    return out + markLegend(table);
}

QString formatText(const QList<ComparisonTable>& tables) {
    QString out;
    for (const ComparisonTable& table : tables) out += formatTextTable(table);
    return out + wireSection(tables);
}

}  // namespace smclab::report
