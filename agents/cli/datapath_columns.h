// The columns of `smclab bench stream --preset datapath`: settings variants
// of the datapath patch series ("net/smc: some datapath performance
// optimizations", 2022) plus kernel TCP. The cover-letter table has the
// first four; the isolation columns turn on one optimisation over the
// baseline so its effect can be checked alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench_settings.h"

namespace smclab::cli {

struct DatapathColumn {
    std::string key;        // option word: "nocork", "tcp", ...
    std::string label;      // table header: "SMC-NoCork", ...
    std::string transport;  // "smcr" or "tcp"
    SettingList settings;   // engine settings of both ends (smcr only)
    std::string summary;    // one line for --help
};

// Every known column, cover-letter columns first.
const std::vector<DatapathColumn>& datapathColumns();
// The four columns of the cover-letter table.
std::vector<std::string> defaultDatapathColumnKeys();
// The isolation columns (--isolate): window limit, drain_then_arm, tx deferral alone.
std::vector<std::string> isolationColumnKeys();
// By key or label (case-insensitive).
std::optional<DatapathColumn> findDatapathColumn(const std::string& name);

}  // namespace smclab::cli
