#include "stream_campaign.h"

#include <algorithm>
#include <cstdio>

#include <QJsonObject>

#include "local_campaign.h"
#include "orchestrator/campaign_json.h"
#include "smclab/db/database_path.h"
#include "smclab/db/result_store.h"

namespace smclab::cli {

using namespace smclab::orchestrator;

std::unique_ptr<db::ResultStore> openBenchStore(const std::string& dbPath, const char* who) {
    ensureCoreApplication();
    auto store = db::ResultStore::open(db::resolveDatabasePath(QString::fromStdString(dbPath)));
    if (!store) {
        std::fprintf(stderr, "%s: %s\n", who, store.error().message.c_str());
        return nullptr;
    }
    return std::move(store).value();
}

QJsonObject settingsObject(const SettingList& settings) {
    QJsonObject out;
    for (const auto& [name, value] : settings) {
        bool isNumber = false;
        const qlonglong n = QString::fromStdString(value).toLongLong(&isNumber);
        out.insert(QString::fromStdString(name),
                   isNumber ? QJsonValue(static_cast<double>(n)) : QJsonValue(QString::fromStdString(value)));
    }
    return out;
}

smcr::Result<StreamCampaignRun> runStreamCampaign(const CampaignSpec& spec, db::ResultStore& store,
                                                  const LocalCampaignOptions& options) {
    if (const auto invalid = validateCampaign(spec); !invalid.empty()) {
        return smcr::fail(smcr::Errc::invalidArgument, joinErrors(invalid).toStdString());
    }
    auto ran = runLocalCampaign(spec, store, options);
    if (!ran) return smcr::fail(ran.error());
    StreamCampaignRun out;
    out.campaignId = ran->result.campaignId;
    out.console = ran->result;
    out.wireNote = ran->wireNote;
    out.storePath = store.path();
    if (ran->result.state != RunnerState::finished) {
        const QString why =
            ran->result.state == RunnerState::stopped
                ? QStringLiteral("stopped; the finished runs of campaign %1 are kept").arg(out.campaignId)
                : (ran->result.error.isEmpty() ? QStringLiteral("the campaign did not finish") : ran->result.error);
        return smcr::fail(smcr::Errc::closed, why.toStdString());
    }
    QStringList labels;
    for (const ColumnSpec& c : spec.columns) labels << c.label;
    std::vector<report::StreamTest> tests;
    for (const WorkloadSpec& w : spec.workloads) {
        tests.push_back(w.workload == QLatin1String("tcp_bw") ? report::StreamTest::bw : report::StreamTest::lat);
    }
    auto grid = db::readStreamGrid(store, out.campaignId, spec.sizes, labels, tests);
    if (!grid) return smcr::fail(grid.error());
    out.grid = std::move(grid).value();
    return out;
}

}  // namespace smclab::cli
