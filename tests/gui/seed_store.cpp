#include "seed_store.h"

#include <cstdio>

#include <QCoreApplication>
#include <QDateTime>
#include <QSettings>

#include "seed_comparison.h"
#include "smclab/db/result_store.h"

namespace smclab::gui::testing {

qint64 seedStore(const QString& databasePath, const QString& campaignName) {
    auto opened = db::ResultStore::open(databasePath);
    if (!opened) {
        std::fprintf(stderr, "seedStore: %s\n", opened.error().message.c_str());
        return 0;
    }
    db::ResultStore& store = *opened.value();
    const Comparison seed = seedComparison();
    const QStringList transports = {QStringLiteral("smcr"), QStringLiteral("tcp"), QStringLiteral("smcr")};
    db::NewCampaign campaign;
    campaign.name = campaignName;
    campaign.preset = QStringLiteral("datapath");
    for (const ComparisonSection& section : seed.sections) {
        const QString workload =
            section.metric == Metric::bandwidth ? QStringLiteral("tcp_bw") : QStringLiteral("tcp_lat");
        for (int r = 0; r < section.rowCount(); ++r) {
            for (int c = 0; c < section.columnCount(); ++c) {
                campaign.cells.append({workload, transports[c], section.columns[c], section.sizesBytes[r], 0});
            }
        }
    }
    const auto id = store.createCampaign(campaign);
    if (!id) {
        std::fprintf(stderr, "seedStore: %s\n", id.error().message.c_str());
        return 0;
    }
    for (const ComparisonSection& section : seed.sections) {
        const bool bw = section.metric == Metric::bandwidth;
        for (int r = 0; r < section.rowCount(); ++r) {
            for (int c = 0; c < section.columnCount(); ++c) {
                db::RunRecord record;
                record.campaignId = id.value();
                record.cell = {bw ? QStringLiteral("tcp_bw") : QStringLiteral("tcp_lat"), transports[c],
                               section.columns[c], section.sizesBytes[r], 0};
                record.startedAt = QDateTime::currentDateTimeUtc();
                record.finishedAt = record.startedAt;
                record.results.insert(bw ? QStringLiteral("bw_mbps") : QStringLiteral("latency_us"),
                                      section.values[c][r]);
                const auto run = store.recordRun(record);
                if (!run) {
                    std::fprintf(stderr, "seedStore: %s\n", run.error().message.c_str());
                    return 0;
                }
            }
        }
    }
    (void)store.updateCampaignStatus(id.value(), db::CampaignStatus::done);
    return id.value();
}

qint64 seedRepeatedCampaign(const QString& databasePath) {
    auto opened = db::ResultStore::open(databasePath);
    if (!opened) {
        std::fprintf(stderr, "seedRepeatedCampaign: %s\n", opened.error().message.c_str());
        return 0;
    }
    db::ResultStore& store = *opened.value();
    const QStringList columns = {QStringLiteral("SMC"), QStringLiteral("TCP")};
    const QStringList transports = {QStringLiteral("smcr"), QStringLiteral("tcp")};
    db::NewCampaign campaign;
    campaign.name = QStringLiteral("repeated (3 reps)");
    QList<qint64> sizes;
    for (qint64 size = 1; size <= 65536; size *= 4) sizes.append(size);
    for (qint64 size : sizes) {
        for (int c = 0; c < 2; ++c) {
            for (int rep = 0; rep < 3; ++rep)
                campaign.cells.append({QStringLiteral("tcp_bw"), transports[c], columns[c], size, rep});
        }
    }
    const auto id = store.createCampaign(campaign);
    if (!id) {
        std::fprintf(stderr, "seedRepeatedCampaign: %s\n", id.error().message.c_str());
        return 0;
    }
    bool first = true;
    for (const db::RunCell& cell : campaign.cells) {
        if (cell.column == QLatin1String("TCP") && cell.msgSize == 64 && cell.repetition == 2) {
            // Failed 1.2 s in, with what the Run page showed until then.
            db::RunRecord seen;
            seen.campaignId = id.value();
            seen.cell = cell;
            seen.startedAt = QDateTime::currentDateTimeUtc();
            seen.finishedAt = seen.startedAt.addMSecs(1200);
            seen.settings = {{QStringLiteral("transport"), cell.transport}};
            for (int t = 1; t <= 12; ++t) {
                seen.samples.append({100 * t, QStringLiteral("throughput_mbps"), 0.55 + 0.02 * (t % 3)});
                seen.samples.append({100 * t, QStringLiteral("cpu_client_pct"), 41.0 + (t % 3)});
            }
            seen.counters = {{smcr::Side::client, QStringLiteral("send_calls"), 10300},
                             {smcr::Side::client, QStringLiteral("bytes_sent"), 660000}};
            (void)store.recordFailedRun(seen, QStringLiteral("agent 127.0.0.1:7601: connection reset by peer"));
            continue;
        }
        // Bandwidth grows with the message size; SMC ahead of TCP; a few percent between repetitions.
        const double base = (cell.column == QLatin1String("SMC") ? 1.2 : 0.6) * static_cast<double>(cell.msgSize) /
                            (1.0 + static_cast<double>(cell.msgSize) / 4096.0);
        db::RunRecord record;
        record.campaignId = id.value();
        record.cell = cell;
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.finishedAt = record.startedAt;
        record.results.insert(QStringLiteral("bw_mbps"), base * (1.0 + 0.06 * (cell.repetition - 1)));
        record.settings = {{QStringLiteral("transport"), cell.transport},
                           {QStringLiteral("autocorking_size"), QStringLiteral("65536")},
                           {QStringLiteral("lab.cq_mode"), QStringLiteral("drain_then_arm")}};
        if (first) {
            for (int t = 1; t <= 40; ++t) {
                const qint64 ms = 100 * t;
                const bool corked = t > 15;
                record.samples.append({ms, QStringLiteral("throughput_mbps"), (corked ? 2.1 : 0.9) + 0.05 * (t % 3)});
                record.samples.append({ms, QStringLiteral("latency_mean_us"), corked ? 14.0 : 9.5});
                record.samples.append({ms, QStringLiteral("latency_p99_us"), corked ? 31.0 : 19.0});
                record.samples.append({ms, QStringLiteral("cpu_client_pct"), 48.0 + (t % 4)});
            }
            record.counters = {{smcr::Side::client, QStringLiteral("abort_sent"), 0},
                               {smcr::Side::client, QStringLiteral("cdc_msgs_sent"), 152000},
                               {smcr::Side::client, QStringLiteral("corked_pushes"), 4100},
                               {smcr::Side::client, QStringLiteral("fallback_clc_decline"), 0},
                               {smcr::Side::client, QStringLiteral("rdma_writes"), 149500},
                               {smcr::Side::server, QStringLiteral("cq_wakeups"), 11200},
                               {smcr::Side::server, QStringLiteral("rnr_retries"), 0}};
            record.settingChanges = {{1500, QStringLiteral("autocorking_size"), QStringLiteral("0")}};
            first = false;
        }
        const auto run = store.recordRun(record);
        if (!run) {
            std::fprintf(stderr, "seedRepeatedCampaign: %s\n", run.error().message.c_str());
            return 0;
        }
    }
    (void)store.updateCampaignStatus(id.value(), db::CampaignStatus::done);
    return id.value();
}

void isolateSettings(const QString& folder) {
    QCoreApplication::setOrganizationName(QStringLiteral("smclab-test"));
    QCoreApplication::setApplicationName(QStringLiteral("smclab-gui-test"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder);
}

}  // namespace smclab::gui::testing
