// The preload's configuration, read once when the library loads: programs
// that clear their environment afterwards (nginx workers reset environ)
// keep it. smcr_run writes these variables; they can be set by hand too.
//   SMCR_SETTINGS   name=value,name=value  libsmcr settings (kernel sysctl names)
//   SMCR_STATS_DIR  directory              counters as <dir>/smcr-<pid>.json at exit
//   SMCR_VERBOSE    1                      one stderr line per connection
//   SMCR_TCP_PORTS  port,port              destinations that always stay TCP
//                                          (default none: connections survive
//                                          fork, engine/README.md "fork")
//   SMCR_SIM_DIR    directory              the sim's shared directory (registry below it)
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace smcr::preload {

struct Config {
    std::vector<std::pair<std::string, std::string>> settings;
    std::string settingsError;  // SMCR_SETTINGS did not parse: SMC stays off
    std::string statsDir;
    bool verbose = false;
    std::set<uint16_t> tcpPorts;
    std::string registryDir;  // <sim dir>/preload
    std::string program;      // /proc/self/comm at load
    // Variables the engine reads when it makes its device (fabric_sim.h),
    // as they were at load: put back before the engine is made in a
    // process whose environment was cleared (nginx workers).
    std::vector<std::pair<std::string, std::string>> engineEnv;
};

const Config& config();
// Reads the environment (the library constructor calls it once).
void loadConfig();

// Parses "name=value,name=value"; the error names the bad item.
bool parseSettingsList(const std::string& text, std::vector<std::pair<std::string, std::string>>& out,
                       std::string& error);

}  // namespace smcr::preload
