// Test helper for test_db_kill: creates (or resumes) the campaign "kill"
// with 300 planned cells and records its pending runs one after another,
// printing "committed RUN_ID" after each commit, until it is killed.
#include <cstdio>

#include <QCoreApplication>

#include "db_test_util.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: db_kill_writer DB\n");
        return 2;
    }
    auto store = ResultStore::open(QString::fromLocal8Bit(argv[1]));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", store.error().message.c_str());
        return 1;
    }
    ResultStore& db = **store;
    qint64 campaignId = 0;
    for (const Campaign& c : db.listCampaigns().valueOr({})) {
        if (c.name == QLatin1String("kill")) campaignId = c.id;
    }
    if (campaignId == 0) {
        NewCampaign nc{QStringLiteral("kill"), QStringLiteral("datapath"), {}, {}, {}};
        for (int i = 0; i < 300; ++i) nc.cells.append(dbtest::cell(QStringLiteral("TCP"), i + 1));
        auto created = db.createCampaign(nc);
        if (!created) {
            std::fprintf(stderr, "create: %s\n", created.error().message.c_str());
            return 1;
        }
        campaignId = *created;
    }
    std::printf("campaign %lld\n", static_cast<long long>(campaignId));
    std::fflush(stdout);
    auto pending = db.pendingCells(campaignId);
    if (!pending) return 1;
    for (const RunCell& cell : *pending) {
        // 200 samples per run: a transaction long enough to be killed inside.
        auto recorded = db.recordRun(dbtest::fullRecord(campaignId, cell, static_cast<double>(cell.msgSize), 200));
        if (!recorded) {
            std::fprintf(stderr, "record: %s\n", recorded.error().message.c_str());
            return 1;
        }
        std::printf("committed %lld\n", static_cast<long long>(*recorded));
        std::fflush(stdout);
    }
    return 0;
}
