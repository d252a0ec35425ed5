#include "bench_settings.h"

namespace smclab::cli {

bool parseSettingArg(const std::string& text, SettingList* out) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    out->emplace_back(text.substr(0, eq), text.substr(eq + 1));
    return true;
}

}  // namespace smclab::cli
