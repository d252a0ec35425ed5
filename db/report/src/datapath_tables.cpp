#include "smclab/report/datapath_tables.h"

#include <cstdio>

namespace smclab::report {

namespace {

struct CounterTableSpec {
    const char* counter;
    const char* title;
};
const CounterTableSpec kCounterTables[] = {
    {"smcr.cdc_sent", "CDC messages sent per 1000 messages (tcp_bw)"},
    {"smcr.rdma_writes", "RDMA writes per 1000 messages (tcp_bw)"},
    {"smcr.autocork_pushes", "Autocork pushes per 1000 messages (tcp_bw)"},
    {"smcr.window_updates", "Window-update CDCs per 1000 messages (tcp_bw)"},
    {"smcr.buf_full_peer", "Peer-RMB-full events per 1000 messages (tcp_bw)"},
    {kCqWakeupsCounter, "CQ wake-ups per 1000 messages (tcp_bw)"},
    {"smcr.cq_polls", "CQ polls per 1000 messages (tcp_bw)"},
    {"smcr.blocking_waits", "Application sleeps per 1000 messages (tcp_bw)"},
    {"smcr.bg_wakeups", "Background-thread wake-ups per 1000 messages (tcp_bw)"},
    {kCompletionPushesCounter, "Completion-context pushes per 1000 messages (tcp_bw)"},
    {"smcr.push_deferred", "Pushes deferred to the owner per 1000 messages (tcp_bw)"},
};

// One row per size, one cell per column: `value` of each tcp_bw cell, or
// none where it is negative (the cell failed or did not report it).
template <typename Value>
ComparisonTable perSizeTable(const DatapathRun& run, const char* title, const QString& metric, Value value) {
    ComparisonTable t;
    t.title = QString::fromLatin1(title);
    t.metric = metric;
    t.lowerIsBetter = true;
    t.workload = QStringLiteral("tcp_bw");
    for (const ShapeColumn& c : run.columns) t.columns << QString::fromStdString(c.label);
    for (size_t i = 0; i < run.sizes.size(); ++i) {
        Row row;
        row.msgSize = static_cast<qint64>(run.sizes[i]);
        for (const StreamResult& r : run.bw[i]) {
            Cell cell;
            if (const double v = r.ok ? value(r) : -1; v >= 0) {
                cell.value = v;
                cell.repetitions = 1;
            }
            row.cells.append(cell);
        }
        t.rows.append(row);
    }
    return t;
}

template <typename Has>
bool anyCell(const DatapathRun& run, Has has) {
    for (const auto& row : run.bw) {
        for (const StreamResult& r : row) {
            if (has(r)) return true;
        }
    }
    return false;
}

// qperf's send_cost + recv_cost per message: what the wake-ups and spins the
// counters show cost in CPU, the efficiency a busy poll or a spin trades.
const char* const kCpuTableTitle = "CPU time per message, sender + receiver, us (tcp_bw)";

}  // namespace

QString shapesText(const std::vector<ShapeResult>& shapes, const std::string& link) {
    std::string out = "==== Shapes ====\n";
    for (const ShapeResult& s : shapes) {
        char verdict[16];  // the longest is "INCONCLUSIVE"
        std::snprintf(verdict, sizeof verdict, "%-4s", shapeVerdictName(s.verdict));
        out += std::string(verdict) + "  " + s.title + ": " + s.measured;
        if (s.link != link) out += "  [stated for --link " + s.link + "]";
        out += '\n';
    }
    return QString::fromStdString(out);
}

DetailTable shapesTable(const std::vector<ShapeResult>& shapes) {
    DetailTable table;
    table.title = QLatin1String(kShapesTableTitle);
    table.columns = {QStringLiteral("verdict"), QStringLiteral("measured"), QStringLiteral("ratio"),
                     QStringLiteral("stated for link")};
    for (const ShapeResult& s : shapes) {
        table.rows.append({QString::fromStdString(s.key) + QStringLiteral(": ") + QString::fromStdString(s.title),
                           {QString::fromLatin1(shapeVerdictName(s.verdict)), QString::fromStdString(s.measured),
                            QString::number(s.ratio, 'g', 17), QString::fromStdString(s.link)}});
    }
    return table;
}

QList<ComparisonTable> perMessageCounterTables(const DatapathRun& run) {
    QList<ComparisonTable> out;
    if (run.bw.empty()) return out;
    for (const CounterTableSpec& spec : kCounterTables) {
        const bool reported = anyCell(run, [&](const StreamResult& r) {
            return r.clientCounters.count(spec.counter) > 0 || r.serverCounters.count(spec.counter) > 0;
        });
        if (!reported) continue;
        // Per 1000 messages: three decimals would hide small per-message rates.
        out.append(perSizeTable(run, spec.title, QString::fromLatin1(spec.counter), [&](const StreamResult& r) {
            const double v = countersPerMessage(r, spec.counter);
            return v >= 0 ? v * 1000 : v;
        }));
    }
    if (anyCell(run, [](const StreamResult& r) { return r.ok && r.cpuUsPerMessage >= 0; })) {
        out.append(perSizeTable(run, kCpuTableTitle, QStringLiteral("cpu_us_per_message"),
                                [](const StreamResult& r) { return r.cpuUsPerMessage; }));
    }
    return out;
}

}  // namespace smclab::report
