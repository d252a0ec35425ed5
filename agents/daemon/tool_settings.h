// Live settings for tool workloads under smcr_run: the programs' engines
// live in their own processes (nginx's workers, qperf's per-test children),
// so a set_settings reaches them through each preloaded process's control
// endpoint ("set NAME VALUE", as `smclab set PID` does), for every process
// of the tool's process group that has one.
#pragma once

#include <string>

#include <sys/types.h>

namespace smclab::daemon {

struct ToolSettingOutcome {
    int processes = 0;   // processes that took the setting
    std::string errors;  // "pid 123: ..." for those that refused or were gone
};

ToolSettingOutcome setInToolProcesses(pid_t processGroup, const std::string& name, const std::string& value);

}  // namespace smclab::daemon
