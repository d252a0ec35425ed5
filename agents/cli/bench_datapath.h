// `smclab bench stream --preset datapath`: the datapath campaign preset with
// the bench's columns, tests, sizes, time and repetitions as its parameters
// (orchestrator/preset_params.h), run on the local lab by the orchestrator like any
// campaign (local_campaign.h: interleaved rounds, results in the store),
// printed as the cover letter's tables with their intervals plus the
// shapes (db/report datapath_shapes.h) with PASS, MISS or INCONCLUSIVE.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_settings.h"
#include "smclab/report/formats.h"
#include "smclab/report/stream_grid.h"

namespace smclab::cli {

struct DatapathOptions {
    std::string link = "ideal";
    uint64_t durationMs = 2000;
    std::vector<uint64_t> sizes;
    std::vector<report::StreamTest> tests;
    std::vector<std::string> columnKeys;  // resolved keys, table order
    report::Format format = report::Format::text;
    bool pin = true;
    int repetitions = 3;         // interleaved rounds (the preset's kPresetRepetitions)
    bool counterTables = false;  // also per-message counter tables (tcp_bw)
    SettingList extraSettings;   // applied to every SMC column (e.g. lab.busy_poll_us)
    std::string jsonOutPath;     // also write the JSON document here (any format on stdout)
    std::string dbPath;          // results store; empty: $SMCLAB_DB or the default file
};

int runDatapathBench(const DatapathOptions& options);

}  // namespace smclab::cli
