// Test helper for test_db_postgres: one controller's writes. Creates the
// campaign NAME with CELLS planned cells, records every one (each run its
// own transaction), and prints "campaign ID" then "run ID" per commit.
#include <cstdio>

#include <QCoreApplication>

#include "db_test_util.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: db_campaign_writer DB NAME CELLS\n");
        return 2;
    }
    auto store = ResultStore::open(QString::fromLocal8Bit(argv[1]));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", store.error().message.c_str());
        return 1;
    }
    NewCampaign nc{QString::fromLocal8Bit(argv[2]), QStringLiteral("datapath"), {}, {}, {}};
    const int cells = QByteArray(argv[3]).toInt();
    for (int i = 0; i < cells; ++i)
        nc.cells.append(dbtest::cell(i % 2 == 0 ? QStringLiteral("TCP") : QStringLiteral("SMC"), i + 1));
    auto created = (*store)->createCampaign(nc);
    if (!created) {
        std::fprintf(stderr, "create: %s\n", created.error().message.c_str());
        return 1;
    }
    std::printf("campaign %lld\n", static_cast<long long>(*created));
    for (const RunCell& cell : nc.cells) {
        auto recorded = (*store)->recordRun(dbtest::fullRecord(*created, cell, static_cast<double>(cell.msgSize), 20));
        if (!recorded) {
            std::fprintf(stderr, "record: %s\n", recorded.error().message.c_str());
            return 1;
        }
        std::printf("run %lld\n", static_cast<long long>(*recorded));
    }
    if (auto done = (*store)->updateCampaignStatus(*created, CampaignStatus::done); !done) return 1;
    return 0;
}
