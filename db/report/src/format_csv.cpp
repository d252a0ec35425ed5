#include <QHash>

#include "csv.h"
#include "smclab/report/formats.h"

namespace smclab::report {

namespace {

const QStringList kHeader = {
    QStringLiteral("table"), QStringLiteral("metric"), QStringLiteral("unit"), QStringLiteral("lower_is_better"),
    QStringLiteral("workload"), QStringLiteral("column_index"), QStringLiteral("column"), QStringLiteral("msg_size"),
    QStringLiteral("value"), QStringLiteral("spread"), QStringLiteral("repetitions"), QStringLiteral("pct_vs_baseline"),
    // The intervals (statistics.h): of the median, of the change against the
    // baseline, and the repetitions' values separated by ';'.
    QStringLiteral("median_low"), QStringLiteral("median_high"), QStringLiteral("median_confidence_pct"),
    QStringLiteral("pct_low"), QStringLiteral("pct_high"), QStringLiteral("pct_confidence_pct"),
    QStringLiteral("noise"), QStringLiteral("busy_repetitions"), QStringLiteral("samples"),
    // Runs of the cell during which a setting was changed live: the value
    // mixes configurations. Last, so files written before it still read.
    QStringLiteral("live_changed_repetitions"),
    // What the cell's connections did (comparison_table.h): repetitions in
    // which a connection fell back to TCP, repetitions whose data went over
    // TCP (no pct_vs_baseline then), and the reasons.
    QStringLiteral("fallback_repetitions"), QStringLiteral("tcp_repetitions"), QStringLiteral("fallback_reasons"),
    // What the column ran over (ComparisonTable::wires).
    QStringLiteral("wire")};
const qsizetype kFieldsBeforeLiveChanges = 21;
const qsizetype kFieldsBeforeConnections = 22;

// 17 significant digits: a double survives the round trip exactly.
QString exact(double value) {
    return QString::number(value, 'g', 17);
}

smcr::Unexpected bad(qsizetype line, const QString& what) {
    return smcr::fail(smcr::Errc::malformed, QStringLiteral("csv line %1: %2").arg(line).arg(what).toStdString());
}

}  // namespace

QString formatCsv(const QList<ComparisonTable>& tables) {
    QString out = csv::line(kHeader);
    for (const ComparisonTable& table : tables) {
        for (const Row& row : table.rows) {
            const Cell base = row.cells.value(0);
            for (qsizetype c = 0; c < table.columns.size(); ++c) {
                const Cell cell = c < row.cells.size() ? row.cells[c] : Cell{};
                const auto pct = c == 0 ? std::nullopt : percentVsBaseline(cell, base);
                const std::optional<Change> change =
                    c == 0 || row.cells.isEmpty() ? std::nullopt : changeVsBaseline(cell, row.cells[0]);
                const std::optional<Interval> changeInterval = change ? change->interval : std::nullopt;
                QStringList samples;
                for (double v : cell.samples) samples << exact(v);
                out += csv::line({table.title,
                                  table.metric,
                                  table.unit,
                                  table.lowerIsBetter ? QStringLiteral("1") : QStringLiteral("0"),
                                  table.workload,
                                  QString::number(c),
                                  table.columns[c],
                                  QString::number(row.msgSize),
                                  cell.value ? exact(*cell.value) : QString(),
                                  exact(cell.spread),
                                  QString::number(cell.repetitions),
                                  pct ? exact(*pct) : QString(),
                                  cell.interval ? exact(cell.interval->low) : QString(),
                                  cell.interval ? exact(cell.interval->high) : QString(),
                                  cell.interval ? exact(cell.interval->confidencePct) : QString(),
                                  changeInterval ? exact(changeInterval->low) : QString(),
                                  changeInterval ? exact(changeInterval->high) : QString(),
                                  changeInterval ? exact(changeInterval->confidencePct) : QString(),
                                  change ? QString::fromLatin1(noiseName(change->noise)) : QString(),
                                  QString::number(cell.busyRepetitions),
                                  samples.join(QLatin1Char(';')),
                                  QString::number(cell.liveChangedRepetitions),
                                  QString::number(cell.fallbackRepetitions),
                                  QString::number(cell.tcpRepetitions),
                                  cell.fallbackReasons,
                                  table.wires.value(c)});
            }
        }
    }
    return out;
}

smcr::Result<QList<ComparisonTable>> tablesFromCsv(const QString& text) {
    QList<QStringList> records;
    if (!csv::parse(text, &records)) return bad(records.size() + 1, QStringLiteral("unterminated quote"));
    if (records.isEmpty() || (records[0] != kHeader && records[0] != kHeader.first(kFieldsBeforeLiveChanges) &&
                              records[0] != kHeader.first(kFieldsBeforeConnections)))
        return bad(1, QStringLiteral("not an smclab report header"));
    const qsizetype fields = records[0].size();
    QList<ComparisonTable> tables;
    QHash<QString, qsizetype> tableIndex;
    for (qsizetype i = 1; i < records.size(); ++i) {
        const QStringList& f = records[i];
        if (f.size() != fields) return bad(i + 1, QStringLiteral("expected %1 fields").arg(fields));
        bool ok = true;
        const qsizetype column = f[5].toLongLong(&ok);
        if (!ok || column < 0) return bad(i + 1, QStringLiteral("bad column_index"));
        const qint64 msgSize = f[7].toLongLong(&ok);
        if (!ok) return bad(i + 1, QStringLiteral("bad msg_size"));
        Cell cell;
        if (!f[8].isEmpty()) {
            cell.value = f[8].toDouble(&ok);
            if (!ok) return bad(i + 1, QStringLiteral("bad value"));
        }
        cell.spread = f[9].toDouble(&ok);
        if (!ok) return bad(i + 1, QStringLiteral("bad spread"));
        cell.repetitions = f[10].toInt(&ok);
        if (!ok) return bad(i + 1, QStringLiteral("bad repetitions"));
        if (!f[12].isEmpty()) {
            bool lowOk = false, highOk = false, confOk = false;
            cell.interval = Interval{f[12].toDouble(&lowOk), f[13].toDouble(&highOk), f[14].toDouble(&confOk)};
            if (!lowOk || !highOk || !confOk) return bad(i + 1, QStringLiteral("bad median interval"));
        }
        cell.busyRepetitions = f[19].toInt(&ok);
        if (!ok) return bad(i + 1, QStringLiteral("bad busy_repetitions"));
        if (fields > kFieldsBeforeLiveChanges) {
            cell.liveChangedRepetitions = f[21].toInt(&ok);
            if (!ok) return bad(i + 1, QStringLiteral("bad live_changed_repetitions"));
        }
        if (fields > kFieldsBeforeConnections) {
            cell.fallbackRepetitions = f[22].toInt(&ok);
            if (!ok) return bad(i + 1, QStringLiteral("bad fallback_repetitions"));
            cell.tcpRepetitions = f[23].toInt(&ok);
            if (!ok) return bad(i + 1, QStringLiteral("bad tcp_repetitions"));
            cell.fallbackReasons = f[24];
        }
        if (!f[20].isEmpty()) {
            for (const QString& v : f[20].split(QLatin1Char(';'))) {
                cell.samples.append(v.toDouble(&ok));
                if (!ok) return bad(i + 1, QStringLiteral("bad samples"));
            }
        }

        const QString key = f[0] + QLatin1Char('\x1f') + f[1];
        auto found = tableIndex.find(key);
        if (found == tableIndex.end()) {
            ComparisonTable table;
            table.title = f[0];
            table.metric = f[1];
            table.unit = f[2];
            table.lowerIsBetter = f[3] == QLatin1String("1");
            table.workload = f[4];
            tables.append(table);
            found = tableIndex.insert(key, tables.size() - 1);
        }
        ComparisonTable& table = tables[*found];
        while (table.columns.size() <= column) table.columns.append(QString());
        table.columns[column] = f[6];
        if (fields > kFieldsBeforeConnections && !f[25].isEmpty()) {
            while (table.wires.size() <= column) table.wires.append(QString());
            table.wires[column] = f[25];
        }
        if (table.rows.isEmpty() || table.rows.last().msgSize != msgSize) {
            Row row;
            row.msgSize = msgSize;
            table.rows.append(row);
        }
        Row& row = table.rows.last();
        while (row.cells.size() <= column) row.cells.append(Cell{});
        row.cells[column] = cell;
    }
    for (ComparisonTable& table : tables) {
        for (Row& row : table.rows) {
            while (row.cells.size() < table.columns.size()) row.cells.append(Cell{});
        }
    }
    return tables;
}

}  // namespace smclab::report
