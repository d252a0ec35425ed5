// Stores seed 000's published numbers as a campaign through the store API:
// tcp_bw and tcp_lat, columns "Origin SMC" (smcr), "TCP" (tcp), "SMC with
// patches" (smcr), 17 sizes, one repetition each.
#pragma once

#include <QStringList>

#include "db_test_util.h"
#include "seed000.h"
#include "smclab/db/result_store.h"

namespace dbtest {

inline const QStringList kSeedColumns = {QStringLiteral("Origin SMC"), QStringLiteral("TCP"),
                                         QStringLiteral("SMC with patches")};

inline smclab::db::RunCell seedCell(const QString& workload, qsizetype column, qint64 size) {
    return {workload, column == 1 ? QStringLiteral("tcp") : QStringLiteral("smcr"), kSeedColumns[column], size, 0};
}

// Returns the campaign id, or 0 on failure (with a warning).
inline qint64 seedCampaign(smclab::db::ResultStore& store) {
    using namespace smclab::db;
    NewCampaign campaign;
    campaign.name = QStringLiteral("datapath (seed 000)");
    campaign.preset = QStringLiteral("datapath");
    campaign.notes = QStringLiteral("2 VMs on one host; ConnectX-4 Lx SR-IOV VFs; pinned, isolated CPUs");
    campaign.spec = {{QStringLiteral("preset"), QStringLiteral("datapath")}, {QStringLiteral("durationS"), 30}};
    struct Table {
        QString workload;
        QString metric;
        const std::array<seed000::Row, 17>* rows;
    };
    const Table tables[] = {{QStringLiteral("tcp_bw"), QStringLiteral("bw_mbps"), &seed000::kBandwidth},
                            {QStringLiteral("tcp_lat"), QStringLiteral("latency_us"), &seed000::kLatency}};
    for (const Table& t : tables) {
        for (qsizetype c = 0; c < kSeedColumns.size(); ++c) {
            for (const auto& row : *t.rows) campaign.cells.append(seedCell(t.workload, c, row.msgSize));
        }
    }
    auto id = store.createCampaign(campaign);
    if (!id) {
        qWarning("createCampaign: %s", id.error().message.c_str());
        return 0;
    }
    for (const Table& t : tables) {
        for (qsizetype c = 0; c < kSeedColumns.size(); ++c) {
            for (const auto& row : *t.rows) {
                RunRecord r = fullRecord(*id, seedCell(t.workload, c, row.msgSize), 0.0, 3);
                r.results = {{t.metric, row.values[static_cast<size_t>(c)]}};
                r.settings.insert(QStringLiteral("column"), kSeedColumns[c]);
                r.settings.insert(QStringLiteral("autocorking_size"),
                                  c == 2 ? QStringLiteral("65536") : QStringLiteral("0"));
                auto recorded = store.recordRun(r);
                if (!recorded) {
                    qWarning("recordRun: %s", recorded.error().message.c_str());
                    return 0;
                }
            }
        }
    }
    if (!store.updateCampaignStatus(*id, CampaignStatus::done)) return 0;
    return *id;
}

}  // namespace dbtest
