#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include "smclab/report/formats.h"

namespace smclab::report {

namespace {

// Bumped when a field changes meaning; readers refuse newer documents.
// 2: "value" is the median of the repetitions (1: their mean); cells carry
// "samples", "interval" of the median, "busyRepetitions" and, after the
// baseline, "change" with its interval (statistics.h).
constexpr int kJsonVersion = 2;

QJsonObject intervalJson(const Interval& interval) {
    return QJsonObject{{QStringLiteral("low"), interval.low},
                       {QStringLiteral("high"), interval.high},
                       {QStringLiteral("confidencePct"), interval.confidencePct}};
}

std::optional<Interval> intervalFromJson(const QJsonValue& value) {
    if (!value.isObject()) return std::nullopt;
    const QJsonObject o = value.toObject();
    return Interval{o.value(QStringLiteral("low")).toDouble(), o.value(QStringLiteral("high")).toDouble(),
                    o.value(QStringLiteral("confidencePct")).toDouble()};
}

QJsonArray stringArray(const QStringList& list) {
    return QJsonArray::fromStringList(list);
}

QStringList fromStringArray(const QJsonValue& value) {
    QStringList out;
    for (const QJsonValue& v : value.toArray()) out << v.toString();
    return out;
}

QJsonObject tableJson(const ComparisonTable& table) {
    QJsonArray rows;
    for (const Row& row : table.rows) {
        QJsonArray cells;
        const Cell base = row.cells.value(0);
        for (qsizetype c = 0; c < row.cells.size(); ++c) {
            const Cell& cell = row.cells[c];
            QJsonObject o{{QStringLiteral("value"), cell.value ? QJsonValue(*cell.value) : QJsonValue()},
                          {QStringLiteral("spread"), cell.spread},
                          {QStringLiteral("repetitions"), cell.repetitions}};
            if (!cell.samples.isEmpty()) {
                QJsonArray samples;
                for (double v : cell.samples) samples.append(v);
                o.insert(QStringLiteral("samples"), samples);
            }
            if (cell.interval) o.insert(QStringLiteral("interval"), intervalJson(*cell.interval));
            if (cell.busyRepetitions > 0) o.insert(QStringLiteral("busyRepetitions"), cell.busyRepetitions);
            if (cell.liveChangedRepetitions > 0)
                o.insert(QStringLiteral("liveChangedRepetitions"), cell.liveChangedRepetitions);
            // What the cell's connections did: a cell whose data went over
            // TCP has no pctVsBaseline nor change.
            if (cell.fallbackRepetitions > 0) o.insert(QStringLiteral("fallbackRepetitions"), cell.fallbackRepetitions);
            if (cell.tcpRepetitions > 0) o.insert(QStringLiteral("tcpRepetitions"), cell.tcpRepetitions);
            if (!cell.fallbackReasons.isEmpty()) o.insert(QStringLiteral("fallbackReasons"), cell.fallbackReasons);
            if (c > 0) {
                const auto pct = percentVsBaseline(cell, base);
                o.insert(QStringLiteral("pctVsBaseline"), pct ? QJsonValue(*pct) : QJsonValue());
                if (const auto change = changeVsBaseline(cell, row.cells[0])) {
                    QJsonObject co{{QStringLiteral("pct"), change->pct},
                                   {QStringLiteral("noise"), QString::fromLatin1(noiseName(change->noise))}};
                    if (change->interval) co.insert(QStringLiteral("interval"), intervalJson(*change->interval));
                    o.insert(QStringLiteral("change"), co);
                }
            }
            cells.append(o);
        }
        rows.append(QJsonObject{{QStringLiteral("msgSize"), row.msgSize}, {QStringLiteral("cells"), cells}});
    }
    return QJsonObject{{QStringLiteral("title"), table.title},
                       {QStringLiteral("metric"), table.metric},
                       {QStringLiteral("unit"), table.unit},
                       {QStringLiteral("lowerIsBetter"), table.lowerIsBetter},
                       {QStringLiteral("workload"), table.workload},
                       {QStringLiteral("baseline"), table.columns.value(0)},
                       {QStringLiteral("columns"), stringArray(table.columns)},
                       {QStringLiteral("wires"), stringArray(table.wires)},
                       {QStringLiteral("rows"), rows}};
}

ComparisonTable tableFromJson(const QJsonObject& o) {
    ComparisonTable table;
    table.title = o.value(QStringLiteral("title")).toString();
    table.metric = o.value(QStringLiteral("metric")).toString();
    table.unit = o.value(QStringLiteral("unit")).toString();
    table.lowerIsBetter = o.value(QStringLiteral("lowerIsBetter")).toBool();
    table.workload = o.value(QStringLiteral("workload")).toString();
    table.columns = fromStringArray(o.value(QStringLiteral("columns")));
    table.wires = fromStringArray(o.value(QStringLiteral("wires")));
    for (const QJsonValue& rv : o.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject ro = rv.toObject();
        Row row;
        row.msgSize = ro.value(QStringLiteral("msgSize")).toInteger();
        for (const QJsonValue& cv : ro.value(QStringLiteral("cells")).toArray()) {
            const QJsonObject co = cv.toObject();
            Cell cell;
            const QJsonValue value = co.value(QStringLiteral("value"));
            if (value.isDouble()) cell.value = value.toDouble();
            cell.spread = co.value(QStringLiteral("spread")).toDouble();
            cell.repetitions = co.value(QStringLiteral("repetitions")).toInt();
            for (const QJsonValue& sv : co.value(QStringLiteral("samples")).toArray())
                cell.samples.append(sv.toDouble());
            cell.interval = intervalFromJson(co.value(QStringLiteral("interval")));
            cell.busyRepetitions = co.value(QStringLiteral("busyRepetitions")).toInt();
            cell.liveChangedRepetitions = co.value(QStringLiteral("liveChangedRepetitions")).toInt();
            cell.fallbackRepetitions = co.value(QStringLiteral("fallbackRepetitions")).toInt();
            cell.tcpRepetitions = co.value(QStringLiteral("tcpRepetitions")).toInt();
            cell.fallbackReasons = co.value(QStringLiteral("fallbackReasons")).toString();
            row.cells.append(cell);
        }
        table.rows.append(row);
    }
    return table;
}

}  // namespace

QString formatJson(const ReportDocument& document) {
    QJsonArray tables;
    for (const ComparisonTable& table : document.tables) tables.append(tableJson(table));
    QJsonArray details;
    for (const DetailTable& detail : document.details) {
        QJsonArray rows;
        for (const DetailRow& row : detail.rows) {
            rows.append(
                QJsonObject{{QStringLiteral("name"), row.name}, {QStringLiteral("values"), stringArray(row.values)}});
        }
        details.append(QJsonObject{{QStringLiteral("title"), detail.title},
                                   {QStringLiteral("columns"), stringArray(detail.columns)},
                                   {QStringLiteral("rows"), rows}});
    }
    QJsonArray provenance;
    for (const ProvenanceSection& section : document.provenance) {
        QJsonArray entries;
        for (const KeyValue& entry : section.entries) {
            entries.append(QJsonObject{{QStringLiteral("key"), entry.key}, {QStringLiteral("value"), entry.value}});
        }
        provenance.append(QJsonObject{{QStringLiteral("title"), section.title}, {QStringLiteral("entries"), entries}});
    }
    const QJsonObject root{{QStringLiteral("format"), QStringLiteral("smclab-report")},
                           {QStringLiteral("version"), kJsonVersion},
                           {QStringLiteral("title"), document.title},
                           {QStringLiteral("generatedAt"), document.generatedAt},
                           {QStringLiteral("tables"), tables},
                           {QStringLiteral("details"), details},
                           {QStringLiteral("provenance"), provenance}};
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
}

smcr::Result<ReportDocument> documentFromJson(const QString& json) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError) {
        return smcr::fail(
            smcr::Errc::malformed,
            QStringLiteral("report json at offset %1: %2").arg(error.offset).arg(error.errorString()).toStdString());
    }
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("format")).toString() != QLatin1String("smclab-report")) {
        return smcr::fail(smcr::Errc::malformed, "not an smclab report (format field)");
    }
    const int version = root.value(QStringLiteral("version")).toInt();
    if (version < 1 || version > kJsonVersion) {
        return smcr::fail(smcr::Errc::notSupported, QStringLiteral("report json version %1 (this smclab reads 1..%2)")
                                                        .arg(version)
                                                        .arg(kJsonVersion)
                                                        .toStdString());
    }
    ReportDocument document;
    document.title = root.value(QStringLiteral("title")).toString();
    document.generatedAt = root.value(QStringLiteral("generatedAt")).toString();
    for (const QJsonValue& tv : root.value(QStringLiteral("tables")).toArray()) {
        document.tables.append(tableFromJson(tv.toObject()));
    }
    for (const QJsonValue& dv : root.value(QStringLiteral("details")).toArray()) {
        const QJsonObject o = dv.toObject();
        DetailTable detail;
        detail.title = o.value(QStringLiteral("title")).toString();
        detail.columns = fromStringArray(o.value(QStringLiteral("columns")));
        for (const QJsonValue& rv : o.value(QStringLiteral("rows")).toArray()) {
            const QJsonObject ro = rv.toObject();
            detail.rows.append(
                {ro.value(QStringLiteral("name")).toString(), fromStringArray(ro.value(QStringLiteral("values")))});
        }
        document.details.append(detail);
    }
    for (const QJsonValue& pv : root.value(QStringLiteral("provenance")).toArray()) {
        const QJsonObject o = pv.toObject();
        ProvenanceSection section;
        section.title = o.value(QStringLiteral("title")).toString();
        for (const QJsonValue& ev : o.value(QStringLiteral("entries")).toArray()) {
            const QJsonObject eo = ev.toObject();
            section.entries.append(
                {eo.value(QStringLiteral("key")).toString(), eo.value(QStringLiteral("value")).toString()});
        }
        document.provenance.append(section);
    }
    return document;
}

}  // namespace smclab::report
