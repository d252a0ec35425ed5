// The campaign behind every mode of `smclab bench stream`: tcp_bw and/or
// tcp_lat over a size sweep for a set of columns, on the local lab, into
// the results store (local_campaign.h), read back as grids of medians and
// repetitions (db/report stream_grid.h). The bench is a quick local runner of the
// same workloads, transports and orchestrator as `smclab run`; its
// campaigns open in `smclab show`, `smclab report` and the GUI.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <smcr/result.h>

#include <QString>

#include "bench_settings.h"
#include "campaign_console.h"
#include "local_campaign.h"
#include "orchestrator/campaign_spec.h"
#include "smclab/db/result_store.h"
#include "smclab/report/stream_grid.h"

namespace smclab::cli {

struct StreamCampaignRun {
    qint64 campaignId = 0;
    ConsoleResult console;  // failedCells, failuresByColumn
    QString wireNote;
    QString storePath;        // where the campaign is (ResultStore::path)
    report::StreamGrid grid;  // [size][column], in the spec's order
};

// `spec` (tcp_bw and/or tcp_lat workloads over spec.sizes) on the local lab,
// read back as grids in the order of its sizes and columns. An error when
// the lab cannot start or the campaign did not finish (stopped, agents
// lost); failed cells come back in console.
smcr::Result<StreamCampaignRun> runStreamCampaign(const orchestrator::CampaignSpec& spec, db::ResultStore& store,
                                                  const LocalCampaignOptions& options);

// The store a bench writes into: `dbPath`, else $SMCLAB_DB or the default
// file; null after printing why.
std::unique_ptr<db::ResultStore> openBenchStore(const std::string& dbPath, const char* who);

// SettingList values as campaign settings (integers as numbers).
QJsonObject settingsObject(const SettingList& settings);

}  // namespace smclab::cli
