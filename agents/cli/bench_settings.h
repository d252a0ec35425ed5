// Engine settings and counters as the bench commands take and print them:
// "--set NAME=VALUE" words in command-line order, counters by their flat
// smc_stats-like names ("smcr.cq_events").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace smclab::cli {

using SettingList = std::vector<std::pair<std::string, std::string>>;
using CounterMap = std::map<std::string, uint64_t>;

// "NAME=VALUE" appended to `out`; false (nothing appended) without a name or '='.
bool parseSettingArg(const std::string& text, SettingList* out);

}  // namespace smclab::cli
