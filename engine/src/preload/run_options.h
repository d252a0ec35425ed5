// smcr_run's command line: parsed and checked against libsmcr's settings
// table before anything is executed, so a bad --set fails with a clear
// message and the program never starts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <smcr/result.h>

namespace smcr::preload {

struct RunOptions {
    std::vector<std::pair<std::string, std::string>> settings;  // --fabric, --link, --set, in order
    std::string statsDir;
    std::vector<std::string> synOptionPorts;  // --syn-option: run under smc_synopt for these
    bool verbose = false;
    std::vector<std::string> command;  // PROGRAM ARGS...
    bool help = false;
    bool listSettings = false;
};

Result<RunOptions> parseRunOptions(const std::vector<std::string>& args);
std::string runUsage();
// Every libsmcr setting: name, values, default, when it applies, help.
std::string settingsListing();

// The environment smcr_run passes on (config.h): name, value.
std::vector<std::pair<std::string, std::string>> runEnvironment(const RunOptions& options);

}  // namespace smcr::preload
