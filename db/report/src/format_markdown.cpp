#include <QStringList>

#include "smclab/report/formats.h"

namespace smclab::report {

namespace {

// Pipes would end a cell early.
QString escapeCell(QString text) {
    return text.replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

QString valueCell(const Row& row, qsizetype column) {
    const Cell cell = column < row.cells.size() ? row.cells[column] : Cell{};
    if (!cell.value) return QStringLiteral("-");
    QString text = QString::number(*cell.value, 'f', 3);
    if (cell.repetitions > 1) text += QStringLiteral(" ± ") + QString::number(cell.spread, 'f', 3);
    if (cell.interval) text += QStringLiteral(" ") + intervalText(*cell.interval, 3);
    if (column > 0) {
        const auto pct = percentVsBaseline(cell, row.cells.value(0));
        if (pct) text += QStringLiteral(" (%1%)").arg(QString::number(*pct, 'f', 2));
        const auto change = row.cells.isEmpty() ? std::nullopt : changeVsBaseline(cell, row.cells[0]);
        if (change && change->interval) {
            text += QStringLiteral(" change ") + intervalText(*change->interval, 2);
            if (change->noise == Noise::within) text += QStringLiteral(" *within noise*");
        }
    }
    if (cell.busyRepetitions > 0)
        text += QStringLiteral(" (busy host: %1/%2)").arg(cell.busyRepetitions).arg(cell.repetitions);
    if (cell.liveChangedRepetitions > 0)
        text += QStringLiteral(" (live change: %1/%2)").arg(cell.liveChangedRepetitions).arg(cell.repetitions);
    if (cell.overTcp()) {
        text += QStringLiteral(" **over TCP, not SMC-R: %1/%2** (%3)")
                    .arg(cell.tcpRepetitions)
                    .arg(cell.repetitions)
                    .arg(escapeCell(cell.fallbackReasons));
    } else if (cell.fellBack()) {
        text += QStringLiteral(" (fell back: %1/%2, %3)")
                    .arg(cell.fallbackRepetitions)
                    .arg(cell.repetitions)
                    .arg(escapeCell(cell.fallbackReasons));
    }
    return text;
}

QString tableMarkdown(const ComparisonTable& table) {
    QString out =
        QStringLiteral("### %1 (%2)\n\n").arg(table.title, table.unit.isEmpty() ? QStringLiteral("-") : table.unit);
    QStringList header{QStringLiteral("MsgSize")};
    QStringList rule{QStringLiteral("---:")};
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        header << escapeCell(c == 0 ? table.columns[c] + QStringLiteral(" (baseline)") : table.columns[c]);
        rule << QStringLiteral("---:");
    }
    out += QStringLiteral("| ") + header.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    out += QStringLiteral("|") + rule.join(QStringLiteral("|")) + QStringLiteral("|\n");
    for (const Row& row : table.rows) {
        QStringList cells{QString::number(row.msgSize)};
        for (qsizetype c = 0; c < table.columns.size(); ++c) cells << valueCell(row, c);
        out += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    }
    return out + QLatin1Char('\n');
}

// What each column ran over (ComparisonTable::wires), once per column.
QString wireMarkdown(const QList<ComparisonTable>& tables) {
    QStringList seen;
    QString out;
    for (const ComparisonTable& table : tables) {
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            if (table.wires.value(c).isEmpty() || seen.contains(table.columns[c])) continue;
            seen << table.columns[c];
            out += QStringLiteral("- **%1**: %2\n").arg(table.columns[c], table.wires[c]);
        }
    }
    return out.isEmpty() ? out : QStringLiteral("### Wire\n\n") + out + QLatin1Char('\n');
}

QString detailMarkdown(const DetailTable& detail) {
    QString out = QStringLiteral("### %1\n\n").arg(detail.title);
    QStringList header{QStringLiteral("name")};
    QStringList rule{QStringLiteral("---")};
    for (const QString& column : detail.columns) {
        header << escapeCell(column);
        rule << QStringLiteral("---:");
    }
    out += QStringLiteral("| ") + header.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    out += QStringLiteral("|") + rule.join(QStringLiteral("|")) + QStringLiteral("|\n");
    for (const DetailRow& row : detail.rows) {
        QStringList cells{escapeCell(row.name)};
        for (qsizetype c = 0; c < detail.columns.size(); ++c) {
            const QString value = c < row.values.size() ? row.values[c] : QString();
            cells << (value.isEmpty() ? QStringLiteral("-") : escapeCell(value));
        }
        out += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    }
    return out + QLatin1Char('\n');
}

}  // namespace

QString formatMarkdown(const ReportDocument& document) {
    QString out = QStringLiteral("## %1\n\n").arg(document.title);
    if (!document.generatedAt.isEmpty()) out += QStringLiteral("Generated %1.\n\n").arg(document.generatedAt);
    for (const ComparisonTable& table : document.tables) out += tableMarkdown(table);
    out += wireMarkdown(document.tables);
    for (const DetailTable& detail : document.details) out += detailMarkdown(detail);
    for (const ProvenanceSection& section : document.provenance) {
        out += QStringLiteral("### %1\n\n").arg(section.title);
        for (const KeyValue& entry : section.entries) {
            out += QStringLiteral("- **%1**: %2\n").arg(entry.key, entry.value);
        }
        out += QLatin1Char('\n');
    }
    return out;
}

}  // namespace smclab::report
