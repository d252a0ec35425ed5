#include "tool_settings.h"

#include <control_path.h>
#include <unistd.h>

namespace smclab::daemon {

ToolSettingOutcome setInToolProcesses(pid_t processGroup, const std::string& name, const std::string& value) {
    ToolSettingOutcome outcome;
    if (processGroup <= 0) return outcome;
    for (const pid_t pid : smcr::preload::controlPids()) {
        // Endpoints of other programs, and stale ones, are not ours.
        if (::getpgid(pid) != processGroup) continue;
        auto reply = smcr::preload::controlRequest(pid, "set " + name + " " + value + "\n", 2000);
        if (reply.ok() && reply->rfind("ok ", 0) == 0) {
            ++outcome.processes;
            continue;
        }
        std::string why = reply.ok() ? *reply : reply.error().message;
        while (!why.empty() && why.back() == '\n') why.pop_back();
        outcome.errors += (outcome.errors.empty() ? "" : "; ") + std::string("pid ") + std::to_string(pid) + ": " + why;
    }
    return outcome;
}

}  // namespace smclab::daemon
