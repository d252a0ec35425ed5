// `smclab bench stream --preset datapath`: tcp_bw and tcp_lat over a size
// sweep for each settings column (datapath_columns.h), run interleaved (per
// test and size, every column in turn, so a change in host load hits all
// columns alike), printed as the cover letter's tables plus the shapes
// (datapath_shapes.h) with PASS/MISS.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_local.h"
#include "smclab/report/formats.h"
#include "stream_test.h"

namespace smclab::cli {

struct DatapathOptions {
    std::string link = "ideal";
    uint64_t durationMs = 2000;
    std::vector<uint64_t> sizes;
    std::vector<StreamTest> tests;
    std::vector<std::string> columnKeys;  // resolved keys, table order
    report::Format format = report::Format::text;
    bool pin = true;
    bool counterTables = false;  // also per-message counter tables (tcp_bw)
    SettingList extraSettings;   // applied to every SMC column (e.g. lab.busy_poll_us)
    std::string jsonOutPath;     // also write the JSON document here (any format on stdout)
};

int runDatapathBench(const DatapathOptions& options);

}  // namespace smclab::cli
