// One run of an allowlisted program (tool_programs.h) as a child process:
// argv built by the caller (no shell), its own process group (so stopping
// it stops nginx's workers and anything smcr_run started), stdin from
// /dev/null, stdout and stderr captured, optionally pinned to one CPU (as
// the cover letters' `taskset -c 1`), and its CPU time from wait4's rusage
// (the program and the descendants it waited for, like time(1)).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include <smcr/result.h>

#include "workload.h"

namespace smclab::workloads {

// CLOCK_MONOTONIC in seconds: tool run times and sample timestamps.
double monotonicSec();

struct ToolCommand {
    std::vector<std::string> argv;  // argv[0] is an absolute path
    int cpu = -1;                   // >= 0: sched_setaffinity to this CPU only
    std::vector<std::string> env;   // NAME=VALUE added to (or replacing in) the agent's environment
};

struct ToolExit {
    int exitCode = -1;         // exit status, or -1 when killed by a signal
    int signal = 0;            // the signal that ended it, or 0
    bool stoppedByUs = false;  // we sent SIGTERM (stop requested or deadline)
    std::string out;           // stdout (the first kMaxCaptureBytes)
    std::string err;           // stderr (likewise)
    CpuTimes cpu;              // user and system time of the process tree it waited for
    double elapsedSec = 0;
};

class ToolProcess {
public:
    static constexpr size_t kMaxCaptureBytes = 256 * 1024;

    static smcr::Result<std::unique_ptr<ToolProcess>> start(const ToolCommand& command);
    ~ToolProcess();  // terminates a process still running
    ToolProcess(const ToolProcess&) = delete;
    ToolProcess& operator=(const ToolProcess&) = delete;

    pid_t pid() const { return m_pid; }
    // Reads output and reaps without blocking; true while it runs.
    bool poll();
    // Until the process exits, `stop` becomes true or `timeoutMs` passes
    // (< 0 = no limit); in the last two cases it is terminated (SIGTERM to
    // its group, SIGKILL after 3 s). Reaps it and returns what it left.
    // `onTick` (optional) runs every ~50 ms while it runs: live samples.
    ToolExit wait(const std::atomic<bool>* stop, int timeoutMs, const std::function<void()>& onTick = {});
    // Output so far (for messages and live samples while it still runs).
    const std::string& out() const { return m_exit.out; }
    const std::string& err() const { return m_exit.err; }

private:
    ToolProcess() = default;
    void pump(int timeoutMs);
    void reap(bool block);
    void terminate();

    pid_t m_pid = -1;
    int m_outFd = -1;
    int m_errFd = -1;
    bool m_exited = false;
    double m_startSec = 0;
    ToolExit m_exit;
};

// "qperf 10.0.0.2 -m 65536 ...": argv for a human, quoting words with spaces.
std::string commandText(const std::vector<std::string>& argv);

}  // namespace smclab::workloads
