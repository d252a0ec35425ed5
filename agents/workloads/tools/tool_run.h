// What the four tool workloads share: a program from the allowlist put
// under the run's transport (tcp: as is; smcr: under smcr_run with the
// run's settings as --set; ksmc: under the system's smc_run), the server
// side started, watched until it listens and stopped at the end, the client
// side run to completion, and the RunResult both sides report: the tool's
// CPU time, its exact command line, its version and its output verbatim
// (summary "tool"), and for smcr the summed engine counters of the
// preloaded processes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tool_process.h"
#include "tool_programs.h"
#include "workload.h"

namespace smclab::workloads {

// The program as the run's transport runs it. For smcr `statsDir` receives
// smcr_run's per-process counter files.
struct ToolLaunch {
    ToolCommand command;
    std::string program;  // the tool's own path (argv of the tool, without wrapper)
    std::string version;
    std::string statsDir;  // empty unless smcr
};

// Finds `program`, checks it against `minVersion` (MAJOR*1000+MINOR, 0 =
// any), builds the wrapped command from `args` (the tool's arguments).
// Every connection of the tool is proposed SMC-R: qperf's control
// connection, which its server's fork hands to a child, is SMC-R too.
smcr::Result<ToolLaunch> prepareTool(const RunContext& ctx, ToolProgram program, const std::vector<std::string>& args,
                                     int minVersion = 0);

// A free TCP port on `host` when `port` is 0 (the tools want a number).
smcr::Result<uint16_t> choosePort(const std::string& host, uint16_t port);
// True once a socket in LISTEN state has local port `port` (/proc/net/tcp,
// tcp6): no connection is made, so no server sees a stray client.
bool portListening(uint16_t port);

// Called every ~50 ms while the program runs (live samples, tool_sampler.h).
using ToolTick = std::function<void(const ToolProcess& process)>;

// Server role: starts it, reports onListening(port) once it listens, serves
// until ctx.stop, stops it. `summary` may add figures to the result.
smcr::Result<RunResult> serveTool(const RunContext& ctx, const std::string& workload, ToolLaunch launch, uint16_t port,
                                  QJsonObject summary = {}, const ToolTick& onTick = {});

// Client role: runs it to the end (or ctx.stop) and hands its exit to
// `parse`, which fills the RunResult's figures or says why it cannot.
using ToolParser = std::function<smcr::Status(const ToolExit& exit, RunResult& result)>;
smcr::Result<RunResult> runClientTool(const RunContext& ctx, const std::string& workload, ToolLaunch launch,
                                      const ToolParser& parse, const ToolTick& onTick = {});

// A fresh directory under $TMPDIR (mode 0777: nginx's workers may run as
// another user), and its removal with everything in it.
smcr::Result<std::string> makeTempDir(const char* prefix);
void removeTree(const std::string& dir);

// Common parameters: "cpu" (pin to one CPU, -1 = no pinning).
ParamSpec cpuParam();
// ms -> whole seconds for tools that take -t/-d in seconds (at least 1).
int wholeSeconds(int64_t durationMs);
// "[::1]" for IPv6 literals in URLs, the address itself otherwise.
std::string urlHost(const std::string& host);

}  // namespace smclab::workloads
