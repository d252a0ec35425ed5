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
                campaign.cells.append(
                    {workload, transports[c], section.columns[c], section.sizesBytes[r], 0});
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

void isolateSettings(const QString& folder) {
    QCoreApplication::setOrganizationName(QStringLiteral("smclab-test"));
    QCoreApplication::setApplicationName(QStringLiteral("smclab-gui-test"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder);
}

}  // namespace smclab::gui::testing
