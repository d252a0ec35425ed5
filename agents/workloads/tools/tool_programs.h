// The programs a tool workload may run, and nothing else: each found at the
// path the agent was configured with (smclab-agent --tool NAME=PATH), else
// on PATH or in the sbin directories. The controller never names a program
// or a path; it names a workload, and the workload picks from this list.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <smcr/result.h>

namespace smclab::workloads {

enum class ToolProgram {
    invalid = 0,
    qperf,
    nginx,
    wrk,
    redisServer,
    redisBenchmark,
    iperf3,
    smcrRun,
    smcRun,
    ksmcRun,
};

const char* toolProgramName(ToolProgram program);  // "qperf", "redis-server", "smcr_run" ...
ToolProgram toolProgramFromName(std::string_view name);

// The agent's --tool NAME=PATH entries; an unknown NAME is an error naming it.
// Set once at start-up, before any run.
smcr::Status setToolPaths(const std::map<std::string, std::string>& paths);

// An absolute path to an executable, or notFound: "wrk: not found on PATH
// (/usr/bin:...) nor given with --tool wrk=PATH; packaging/install-deps.sh
// installs it". smcr_run is looked for beside the agent's own binary first.
smcr::Result<std::string> findToolProgram(ToolProgram program);

// The first line of the program's own version output ("qperf 0.4.11",
// "nginx version: nginx/1.22.1", "redis-benchmark 7.0.15", "iperf 3.12"),
// cached per path; empty when it printed none.
std::string toolVersion(ToolProgram program, const std::string& path);
// The leading "MAJOR.MINOR" of a version line as MAJOR*1000+MINOR, or -1.
int versionNumber(std::string_view versionLine);

}  // namespace smclab::workloads
