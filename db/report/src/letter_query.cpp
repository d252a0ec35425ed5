#include "smclab/report/letter_query.h"

#include <algorithm>

#include <QRegularExpression>

#include "smclab/report/comparison_query.h"
#include "smclab/report/letter_lines.h"

namespace smclab::db {

namespace {

// The stored metrics of each workload, in first-seen order.
smcr::Result<QMap<QString, QStringList>> storedMetrics(ResultStore& store, qint64 campaignId) {
    auto values = store.campaignResults(campaignId);
    if (!values) return smcr::fail(values.error());
    QMap<QString, QStringList> out;
    for (const ResultValue& v : *values) {
        QStringList& metrics = out[v.cell.workload];
        if (!metrics.contains(v.metric)) metrics << v.metric;
    }
    return out;
}

// redis-benchmark runs its tests in this order whatever -t lists (redis 7).
int benchmarkOrder(const QString& test) {
    static const QStringList kOrder = {
        QStringLiteral("ping_inline"), QStringLiteral("ping_mbulk"), QStringLiteral("set"),
        QStringLiteral("get"),         QStringLiteral("incr"),       QStringLiteral("lpush"),
        QStringLiteral("rpush"),       QStringLiteral("lpop"),       QStringLiteral("rpop"),
        QStringLiteral("sadd"),        QStringLiteral("hset"),       QStringLiteral("spop"),
        QStringLiteral("zadd"),        QStringLiteral("zpopmin"),    QStringLiteral("lrange_100"),
        QStringLiteral("lrange_300"),  QStringLiteral("lrange_500"), QStringLiteral("lrange_600"),
        QStringLiteral("mset")};
    const qsizetype at = kOrder.indexOf(test);
    return at < 0 ? static_cast<int>(kOrder.size()) : static_cast<int>(at);
}

smcr::Result<QString> redisLines(ResultStore& store, qint64 campaignId, const QString& workload,
                                 const QStringList& metrics) {
    // set_rps, get_rps ...: one per redis-benchmark test.
    static const QRegularExpression perTest(QStringLiteral("^([a-z0-9_]+)_rps$"));
    QStringList names;
    for (const QString& metric : metrics) {
        const QRegularExpressionMatch m = perTest.match(metric);
        if (m.hasMatch()) names << m.captured(1);
    }
    std::stable_sort(names.begin(), names.end(),
                     [](const QString& a, const QString& b) { return benchmarkOrder(a) < benchmarkOrder(b); });
    QList<report::RedisTestTables> tests;
    for (const QString& test : names) {
        auto rps = metricTable(store, campaignId, workload, test + QStringLiteral("_rps"));
        if (!rps) return smcr::fail(rps.error());
        auto p50 = metricTable(store, campaignId, workload, test + QStringLiteral("_p50_latency_ms"));
        if (!p50) return smcr::fail(p50.error());
        tests.append({test.toUpper(), *rps, *p50});
    }
    return report::formatRedisQuietLines(tests);
}

smcr::Result<QString> wrkLines(ResultStore& store, qint64 campaignId, const QString& workload, bool qpsRows) {
    auto rps = metricTable(store, campaignId, workload, QStringLiteral("rps"));
    if (!rps) return smcr::fail(rps.error());
    if (qpsRows) return report::formatQpsRows(*rps);
    auto transfer = metricTable(store, campaignId, workload, QStringLiteral("transfer_bytes_per_sec"));
    if (!transfer) return smcr::fail(transfer.error());
    return report::formatWrkRateLines(*rps, *transfer);
}

}  // namespace

smcr::Result<QString> letterLines(ResultStore& store, qint64 campaignId) {
    auto campaign = store.campaign(campaignId);
    if (!campaign) return smcr::fail(campaign.error());
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    auto metrics = storedMetrics(store, campaignId);
    if (!metrics) return smcr::fail(metrics.error());
    QStringList workloads;
    for (const Run& r : *runs) {
        if (!workloads.contains(r.cell.workload) && metrics->contains(r.cell.workload)) workloads << r.cell.workload;
    }
    QString out;
    for (const QString& workload : workloads) {
        const QString base = report::baseWorkload(workload);
        smcr::Result<QString> section = QString();
        if (base == QLatin1String("redis")) {
            section = redisLines(store, campaignId, workload, metrics->value(workload));
        } else if (base == QLatin1String("nginx-wrk")) {
            section = wrkLines(store, campaignId, workload, campaign->preset == QLatin1String("seed002-nginx"));
        }
        if (!section) return smcr::fail(section.error());
        if (!section->isEmpty()) out += QLatin1Char('\n') + *section;
    }
    return out;
}

}  // namespace smclab::db
