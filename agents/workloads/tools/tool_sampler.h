// Live samples while a tool runs, the same Sample records the built-in
// workloads emit (so the live plot and the stored samples show them), from
// the first of:
//  - the tool's own interval lines (iperf3's server with --forceflush): a
//    ToolIntervalReader turns each new piece of its stdout into samples;
//  - under smcr, the engine counters of the tool's preloaded processes (every
//    process of its group with a control endpoint, asked "stat" each sample
//    interval): bytes are the application bytes they moved (sent + received)
//    since the last sample, counters their engines' and the preload's own;
//  - neither (wrk, redis-benchmark -q, qperf over tcp print nothing while they
//    run): no samples, and the run's note says so.
// Each sample's CPU is this agent's plus the tool's main process's (its
// reaped children included), cumulative, as the daemon takes differences.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tool_process.h"
#include "workload.h"

namespace smclab::workloads {

// More of the tool's stdout -> the samples it completed (bytes, intervalSec).
using ToolIntervalReader = std::function<std::vector<Sample>(std::string_view moreOutput)>;

class ToolSampler {
public:
    ToolSampler(const RunContext& ctx, std::string toolName, ToolIntervalReader intervals, bool preloaded);
    // While the tool runs (ToolProcess::wait's onTick).
    void tick(const ToolProcess& process);
    // How this run was sampled, for the run's facts (tool.samples).
    std::string note() const;
    int samples() const { return m_samples; }

private:
    void deliver(Sample sample, pid_t pid);
    void samplePreloaded(pid_t processGroup);

    const RunContext& m_ctx;
    std::string m_toolName;
    ToolIntervalReader m_intervals;
    bool m_preloaded = false;
    double m_startSec = 0;
    double m_lastSampleSec = 0;
    size_t m_outputSeen = 0;
    double m_lastAppBytes = 0;
    int m_samples = 0;
};

}  // namespace smclab::workloads
