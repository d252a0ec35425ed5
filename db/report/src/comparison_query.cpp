// From stored results to comparison tables (see comparison_query.h).
#include "smclab/report/comparison_query.h"

#include <algorithm>

#include <QMap>
#include <QSet>

#include "smclab/report/connection_use.h"

namespace smclab::db {

namespace {

struct TableKey {
    QString workload;
    QString metric;
};

// Keyed values of one campaign: (workload, metric, column, size) -> repetitions.
struct CampaignValues {
    QStringList workloads;                              // plan order, even before any run finished
    QMap<QString, QStringList> storedMetrics;           // workload -> metrics seen, in first-seen order
    QStringList columns;                                // plan order
    QMap<QString, QMap<qint64, QList<double>>> cells;   // key(workload, metric, column) -> size -> values
    QMap<QString, QMap<qint64, QList<qint64>>> runIds;  // key(workload, metric, column) -> size -> their runs
    QMap<QString, QMap<qint64, int>> busy;              // key(workload, metric, column) -> size -> busy runs
    QMap<QString, QMap<qint64, int>> liveChanged;       // key(workload, metric, column) -> size -> runs changed live
    QMap<qint64, report::ConnectionUse> connections;    // run id -> what its connections did
    QMap<QString, QStringList> columnWires;             // column -> each done run's wire, in run order
    QMap<QString, QSet<qint64>> sizes;                  // key(workload, metric) -> sizes
    QMap<QString, QStringList> tableColumns;            // key(workload, metric) -> columns with runs
};

QString key(const QStringList& parts) {
    return parts.join(QLatin1Char('\x1f'));
}

// The wire facts of every done run (client side; the orchestrator writes
// the same record on both: run_record.h addWireFacts).
using WireFacts = QMap<QString, QString>;  // "model", "tcp_path", ... (without "wire.")

smcr::Result<QMap<qint64, WireFacts>> runWires(ResultStore& store, qint64 campaignId) {
    QMap<qint64, WireFacts> out;
    for (const char* name : {"model", "tcp_path", "tcp_rate", "tcp_delay", "tcp_capacity", "tcp_steering",
                             "ethernet_mtu", "bandwidth_gbps", "latency_ns", "hosts", "ends"}) {
        auto values =
            store.campaignRunFact(campaignId, smcr::Side::client, QStringLiteral("wire.") + QLatin1String(name));
        if (!values) return smcr::fail(values.error());
        for (auto it = values->begin(); it != values->end(); ++it)
            out[it.key()].insert(QLatin1String(name), it.value());
    }
    // The fabric of the column's transport, which is the server's: a
    // kernel client of a libsmcr server has none of its own.
    for (const smcr::Side side : {smcr::Side::client, smcr::Side::server}) {
        auto fabric = store.campaignRunFact(campaignId, side, QStringLiteral("fabric"));
        if (!fabric) return smcr::fail(fabric.error());
        for (auto it = fabric->begin(); it != fabric->end(); ++it)
            out[it.key()].insert(QStringLiteral("fabric"), it.value());
    }
    return out;
}

// What one run of a column crossed, in a line: "TCP over veth between
// network namespaces, unshaped" or "SMC-R over the sim fabric, link
// cx4-25g (25 Gbit/s, 600 ns); handshake over veth ..."; empty without
// wire facts (runs stored before they were recorded).
QString wireText(const QString& transport, const WireFacts& wire) {
    const QString path = wire.value(QStringLiteral("tcp_path"));
    if (path.isEmpty() && !wire.contains(QStringLiteral("model"))) return QString();
    // VM lab hosts under TCG: said in every column's line.
    const QString hosts = wire.value(QStringLiteral("hosts"));
    QString hostsNote = hosts.isEmpty() ? QString() : QStringLiteral("; ") + hosts;
    // Which end ran which implementation, where the orchestrator found it
    // worth saying (libsmcr against the kernel's SMC-R, a real fabric).
    if (const QString ends = wire.value(QStringLiteral("ends")); !ends.isEmpty())
        hostsNote = QStringLiteral("; ") + ends + hostsNote;
    if (transport == QLatin1String("tcp")) {
        QString text = QStringLiteral("TCP over ") + path;
        if (const QString mtu = wire.value(QStringLiteral("ethernet_mtu")); !mtu.isEmpty() && mtu != QLatin1String("0"))
            text += QStringLiteral(", MTU ") + mtu;
        if (const QString steering = wire.value(QStringLiteral("tcp_steering")); !steering.isEmpty())
            text += QStringLiteral(", ") + steering;
        if (const QString rate = wire.value(QStringLiteral("tcp_rate")); !rate.isEmpty())
            text += QStringLiteral(", ") + rate;
        if (const QString delay = wire.value(QStringLiteral("tcp_delay"));
            !delay.isEmpty() && delay != QLatin1String("none"))
            text += QStringLiteral(", delay ") + delay;
        if (const QString capacity = wire.value(QStringLiteral("tcp_capacity")); !capacity.isEmpty())
            text += QStringLiteral("; ") + capacity;
        return text + hostsNote;
    }
    // The kernel's SMC-R and libsmcr on a real fabric cross the hosts' RDMA
    // devices: a sim link model says nothing about them.
    const QString fabric = wire.value(QStringLiteral("fabric"), QStringLiteral("sim"));
    const bool ksmc = transport == QLatin1String("ksmc");
    QString text = ksmc ? QStringLiteral("kernel SMC-R over the hosts' RDMA devices")
                        : QStringLiteral("SMC-R over the %1 fabric").arg(fabric);
    if (const QString model = wire.value(QStringLiteral("model"));
        !model.isEmpty() && !ksmc && fabric == QLatin1String("sim")) {
        text += QStringLiteral(", link ") + model;
        const QString gbps = wire.value(QStringLiteral("bandwidth_gbps"));
        const QString ns = wire.value(QStringLiteral("latency_ns"));
        if (!gbps.isEmpty() && !ns.isEmpty() && gbps != QLatin1String("0"))
            text += QStringLiteral(" (%1 Gbit/s, %2 ns)").arg(gbps, ns);
    }
    if (!path.isEmpty()) text += QStringLiteral("; handshake over ") + path;
    return text + hostsNote;
}

// A column's wires: the one every run crossed, or each with its runs
// ("A (9 runs); B (39 runs)") when a resumed campaign ran on another lab.
QString columnWire(const QStringList& runWires) {
    QStringList distinct;
    QMap<QString, int> uses;
    for (const QString& wire : runWires) {
        if (wire.isEmpty()) continue;
        if (!distinct.contains(wire)) distinct << wire;
        ++uses[wire];
    }
    if (distinct.size() <= 1) return distinct.value(0);
    QStringList parts;
    for (const QString& wire : distinct)
        parts << QStringLiteral("%1 (%2 run%3)").arg(wire).arg(uses.value(wire)).arg(uses.value(wire) == 1 ? "" : "s");
    return parts.join(QStringLiteral("; "));
}

smcr::Result<CampaignValues> loadValues(ResultStore& store, qint64 campaignId) {
    CampaignValues out;
    auto columns = store.columns(campaignId);
    if (!columns) return smcr::fail(columns.error());
    out.columns = *columns;
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    for (const Run& r : *runs) {
        if (!out.workloads.contains(r.cell.workload)) out.workloads << r.cell.workload;
    }
    auto values = store.campaignResults(campaignId);
    if (!values) return smcr::fail(values.error());
    for (const ResultValue& v : *values) {
        QStringList& metrics = out.storedMetrics[v.cell.workload];
        if (!metrics.contains(v.metric)) metrics << v.metric;
    }
    for (const Run& r : *runs) {
        QStringList& cols = out.tableColumns[r.cell.workload];
        if (!cols.contains(r.cell.column)) cols << r.cell.column;
        out.sizes[r.cell.workload].insert(r.cell.msgSize);
    }
    // The orchestrator's verdict on the host while each run ran (host_load.h
    // in agents/orchestrator writes it on the client side).
    auto busy = store.campaignRunFact(campaignId, smcr::Side::client, QStringLiteral("host_state.busy"));
    if (!busy) return smcr::fail(busy.error());
    // The runs during which a setting was changed live (the orchestrator
    // records each acknowledged change with the run).
    QSet<qint64> changedLive;
    for (const Run& r : *runs) {
        auto changes = store.settingChanges(r.id);
        if (!changes) return smcr::fail(changes.error());
        if (!changes->isEmpty()) changedLive.insert(r.id);
    }
    auto wires = runWires(store, campaignId);
    if (!wires) return smcr::fail(wires.error());
    for (const Run& r : *runs) {
        if (r.status != RunStatus::done) continue;
        auto counters = store.counters(r.id);
        if (!counters) return smcr::fail(counters.error());
        out.connections.insert(r.id, report::connectionUse(*counters));
        out.columnWires[r.cell.column].append(wireText(r.cell.transport, wires->value(r.id)));
    }
    for (const ResultValue& v : *values) {
        const QString k = key({v.cell.workload, v.metric, v.cell.column});
        out.cells[k][v.cell.msgSize].append(v.value);
        out.runIds[k][v.cell.msgSize].append(v.runId);
        if (busy->value(v.runId) == QLatin1String("yes")) ++out.busy[k][v.cell.msgSize];
        if (changedLive.contains(v.runId)) ++out.liveChanged[k][v.cell.msgSize];
    }
    return out;
}

// The tables of a campaign: its workloads' declared headline metrics, in
// plan order, narrowed to what the runs stored.
smcr::Result<QList<TableKey>> headlineTables(const CampaignValues& values, const report::HeadlineMetrics& headlines) {
    QList<TableKey> tables;
    for (const QString& workload : values.workloads) {
        auto declared = report::headlineMetrics(headlines, workload);
        if (!declared) return smcr::fail(declared.error());
        QStringList metrics = *declared;
        const QStringList stored = values.storedMetrics.value(workload);
        // qperf names two headlines (tcp_bw's, tcp_lat's): a table for the one its runs made.
        if (metrics.size() > 1 && !stored.isEmpty()) {
            QStringList present;
            for (const QString& metric : metrics) {
                if (stored.contains(metric)) present << metric;
            }
            if (!present.isEmpty()) metrics = present;
        }
        if (!stored.isEmpty() && !stored.contains(metrics.value(0))) {
            // An entry running several tests (kv, redis: -t set,get) stores
            // TEST_METRIC (set_rps, get_rps ...; orchestrator run_record.cpp)
            // instead of one rps: a table each.
            const QString suffix = QLatin1Char('_') + metrics.value(0);
            QStringList perTest;
            for (const QString& metric : stored) {
                if (metric.endsWith(suffix)) perTest << metric;
            }
            if (!perTest.isEmpty()) metrics = perTest;
        }
        for (const QString& metric : metrics) tables.append({workload, metric});
    }
    return tables;
}

// The cell's repetitions' connections: how many fell back, how many went
// over TCP, and the reasons summed over them.
void addConnectionUse(report::Cell& cell, const CampaignValues& values, const QList<qint64>& runIds) {
    QMap<QString, qint64> reasons;
    for (qint64 runId : runIds) {
        const report::ConnectionUse use = values.connections.value(runId);
        if (use.overTcp()) ++cell.tcpRepetitions;
        if (use.fellBack()) ++cell.fallbackRepetitions;
        if (use.overTcp() && use.smcConnections > 0)
            reasons[QStringLiteral("under %1% of the bytes over RDMA").arg(report::kMinRdmaShare * 100)] += 1;
        if (!use.fellBack() && !use.overTcp()) continue;
        if (use.fallbackReasons.isEmpty()) {
            reasons[use.smcConnections == 0 ? QStringLiteral("no SMC-R connection")
                                            : QStringLiteral("reason not recorded")] += 1;
        }
        for (auto it = use.fallbackReasons.begin(); it != use.fallbackReasons.end(); ++it)
            reasons[it.key()] += it.value();
    }
    QStringList parts;
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
        parts << (it.value() > 1 ? QStringLiteral("%1 x%2").arg(it.key()).arg(it.value()) : it.key());
    cell.fallbackReasons = parts.join(QStringLiteral(", "));
}

report::ComparisonTable buildTable(const TableKey& table,
                                   const QList<std::pair<const CampaignValues*, QString>>& sources) {
    const report::MetricInfo info = report::metricInfo(table.metric);
    report::ComparisonTable out;
    out.title = info.title;
    out.metric = table.metric;
    out.unit = info.unit;
    out.lowerIsBetter = info.lowerIsBetter;
    out.workload = table.workload;
    QSet<qint64> sizeSet;
    struct Source {
        const CampaignValues* values;
        QString column;
    };
    QList<Source> columns;
    for (const auto& [values, prefix] : sources) {
        sizeSet.unite(values->sizes.value(table.workload));
        for (const QString& column : values->tableColumns.value(table.workload)) {
            out.columns << (prefix.isEmpty() ? column : prefix + column);
            out.wires << columnWire(values->columnWires.value(column));
            columns.append({values, column});
        }
    }
    // No wire known for any column (runs stored before wire facts): none.
    if (std::all_of(out.wires.begin(), out.wires.end(), [](const QString& w) { return w.isEmpty(); }))
        out.wires.clear();
    QList<qint64> sizes = sizeSet.values();
    std::sort(sizes.begin(), sizes.end());
    for (qint64 size : sizes) {
        report::Row row;
        row.msgSize = size;
        for (const Source& source : columns) {
            const QString k = key({table.workload, table.metric, source.column});
            report::Cell cell = report::cellFromRepetitions(source.values->cells.value(k).value(size));
            cell.busyRepetitions = source.values->busy.value(k).value(size);
            cell.liveChangedRepetitions = source.values->liveChanged.value(k).value(size);
            addConnectionUse(cell, *source.values, source.values->runIds.value(k).value(size));
            row.cells.append(cell);
        }
        out.rows.append(row);
    }
    return out;
}

// Gives tables that share a title (rps of http and of kv, or of kv:SET and
// kv:GET) the workload's label in brackets ("Requests/sec (SET)").
void disambiguateTitles(QList<report::ComparisonTable>& tables) {
    QMap<QString, int> uses;
    for (const auto& t : tables) ++uses[t.title];
    for (auto& t : tables) {
        if (uses.value(t.title) > 1) {
            const qsizetype colon = t.workload.indexOf(QLatin1Char(':'));
            t.title += QStringLiteral(" (%1)").arg(colon > 0 ? t.workload.mid(colon + 1) : t.workload);
        }
    }
}

}  // namespace

smcr::Result<QList<report::ComparisonTable>> comparisonTables(ResultStore& store, qint64 campaignId,
                                                              const report::HeadlineMetrics& headlines) {
    auto values = loadValues(store, campaignId);
    if (!values) return smcr::fail(values.error());
    auto keys = headlineTables(*values, headlines);
    if (!keys) return smcr::fail(keys.error());
    QList<report::ComparisonTable> tables;
    for (const TableKey& t : *keys) tables.append(buildTable(t, {{&*values, QString()}}));
    disambiguateTitles(tables);
    return tables;
}

smcr::Result<report::ComparisonTable> metricTable(ResultStore& store, qint64 campaignId, const QString& workload,
                                                  const QString& metric) {
    auto values = loadValues(store, campaignId);
    if (!values) return smcr::fail(values.error());
    return buildTable({workload, metric}, {{&*values, QString()}});
}

smcr::Result<QList<report::ComparisonTable>> comparisonTables(ResultStore& store, qint64 campaignA, qint64 campaignB,
                                                              const report::HeadlineMetrics& headlines) {
    auto a = loadValues(store, campaignA);
    if (!a) return smcr::fail(a.error());
    auto b = loadValues(store, campaignB);
    if (!b) return smcr::fail(b.error());
    auto tablesA = headlineTables(*a, headlines);
    if (!tablesA) return smcr::fail(tablesA.error());
    auto tablesB = headlineTables(*b, headlines);
    if (!tablesB) return smcr::fail(tablesB.error());
    QList<TableKey> keys = *tablesA;
    for (const TableKey& t : *tablesB) {
        bool known = false;
        for (const TableKey& k : keys) known = known || (k.workload == t.workload && k.metric == t.metric);
        if (!known) keys.append(t);
    }
    const QString prefixA = QStringLiteral("#%1 ").arg(campaignA);
    const QString prefixB = QStringLiteral("#%1 ").arg(campaignB);
    QList<report::ComparisonTable> tables;
    for (const TableKey& t : keys) tables.append(buildTable(t, {{&*a, prefixA}, {&*b, prefixB}}));
    disambiguateTitles(tables);
    return tables;
}

}  // namespace smclab::db
