#include "data/run_detail.h"

#include <algorithm>

#include <QObject>

#include "smclab/db/result_store.h"

namespace smclab::gui {

namespace {

int metricRank(const QString& metric) {
    static const QStringList kOrder = {QStringLiteral("throughput_mbps"), QStringLiteral("server_throughput_mbps"),
                                       QStringLiteral("ops_per_sec"),     QStringLiteral("latency_mean_us"),
                                       QStringLiteral("latency_p50_us"),  QStringLiteral("latency_p99_us"),
                                       QStringLiteral("cpu_client_pct"),  QStringLiteral("cpu_server_pct")};
    const qsizetype index = kOrder.indexOf(metric);
    return index < 0 ? static_cast<int>(kOrder.size()) : static_cast<int>(index);
}

}  // namespace

smcr::Result<RunDetail> RunDetail::load(db::ResultStore& store, qint64 runId) {
    RunDetail detail;
    auto run = store.run(runId);
    if (!run) return smcr::fail(run.error());
    detail.run = run.value();
    auto samples = store.samples(runId);
    if (!samples) return smcr::fail(samples.error());
    detail.samples = samples.value();
    auto changes = store.settingChanges(runId);
    if (!changes) return smcr::fail(changes.error());
    detail.changes = changes.value();
    auto settings = store.settings(runId);
    if (!settings) return smcr::fail(settings.error());
    detail.settings = settings.value();
    auto counters = store.counters(runId);
    if (!counters) return smcr::fail(counters.error());
    detail.counters = counters.value();
    // The report lists ~60 counters, mostly zeros: the ones that moved come first.
    std::stable_sort(detail.counters.begin(), detail.counters.end(), [](const db::Counter& a, const db::Counter& b) {
        if ((a.value != 0) != (b.value != 0)) return a.value != 0;
        if (a.side != b.side) return a.side < b.side;
        return a.name < b.name;
    });
    auto results = store.results(runId);
    if (!results) return smcr::fail(results.error());
    detail.results = results.value();
    auto facts = store.hostFacts(runId);
    if (!facts) return smcr::fail(facts.error());
    detail.clientFacts = facts->client;
    detail.acknowledgedBy = QObject::tr("the client agent");
    if (detail.run.clientAgentId) {
        if (const auto agents = store.agents()) {
            for (const db::Agent& agent : agents.value()) {
                if (agent.id == *detail.run.clientAgentId)
                    detail.acknowledgedBy = QObject::tr("the client agent %1").arg(agent.address);
            }
        }
    }
    return detail;
}

QStringList RunDetail::sampleMetrics() const {
    QStringList metrics;
    for (const db::Sample& s : samples) {
        if (!metrics.contains(s.metric)) metrics.append(s.metric);
    }
    std::stable_sort(metrics.begin(), metrics.end(), [](const QString& a, const QString& b) {
        const int ra = metricRank(a);
        const int rb = metricRank(b);
        return ra != rb ? ra < rb : a < b;
    });
    return metrics;
}

QString RunDetail::samplesCsv() const {
    const QStringList metrics = sampleMetrics();
    QMap<qint64, QMap<QString, double>> rows;
    for (const db::Sample& s : samples) rows[s.tMs].insert(s.metric, s.value);
    // The live setting changes in a last column, at the time they applied.
    QMap<qint64, QStringList> changeRows;
    for (const db::SettingChange& c : changes) {
        changeRows[c.tMs] << QStringLiteral("%1=%2").arg(c.name, c.value);
        if (!rows.contains(c.tMs)) rows.insert(c.tMs, {});
    }
    QString out = QStringLiteral("t_ms");
    // The stored throughput is in MB/s (10^6 bytes per second), not Mbit/s:
    // the header says so.
    for (const QString& metric : metrics) {
        QString name = metric;
        if (name.endsWith(QLatin1String("throughput_mbps"))) name = name.chopped(4) + QStringLiteral("MBps");
        out += QLatin1Char(',') + name;
    }
    if (!changes.isEmpty()) out += QStringLiteral(",live_change");
    out += QLatin1Char('\n');
    for (auto it = rows.begin(); it != rows.end(); ++it) {
        out += QString::number(it.key());
        for (const QString& metric : metrics) {
            out += QLatin1Char(',');
            if (it.value().contains(metric)) out += QString::number(it.value().value(metric), 'g', 10);
        }
        if (!changes.isEmpty()) out += QLatin1Char(',') + changeRows.value(it.key()).join(QLatin1Char(' '));
        out += QLatin1Char('\n');
    }
    return out;
}

int RunDetail::nonZeroCounterCount() const {
    return static_cast<int>(
        std::count_if(counters.begin(), counters.end(), [](const db::Counter& c) { return c.value != 0; }));
}

}  // namespace smclab::gui
