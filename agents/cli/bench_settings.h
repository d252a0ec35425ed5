// Engine settings as the bench commands take them: "--set NAME=VALUE"
// words in command-line order.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace smclab::cli {

using SettingList = std::vector<std::pair<std::string, std::string>>;

// "NAME=VALUE" appended to `out`; false (nothing appended) without a name or '='.
bool parseSettingArg(const std::string& text, SettingList* out);

}  // namespace smclab::cli
