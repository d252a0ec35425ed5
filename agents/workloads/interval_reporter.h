// Emits a Sample every RunContext::sampleIntervalMs from cumulative totals
// (bytes, ops) and an interval latency histogram that it drains.
#pragma once

#include <cstdint>

#include "workload.h"

namespace smclab::workloads {

class IntervalReporter {
public:
    IntervalReporter(const RunContext& ctx, uint64_t startNs);

    // Cheap check for hot loops.
    bool due(uint64_t nowNs) const { return m_intervalNs != 0 && nowNs >= m_nextNs; }
    // Reports the change since the previous sample; resets *intervalLatency
    // after reading it (may be null).
    void report(uint64_t nowNs, uint64_t bytesTotal, uint64_t opsTotal, HdrHistogram* intervalLatency, bool warmup);

private:
    const RunContext& m_ctx;
    uint64_t m_startNs;
    uint64_t m_intervalNs;
    uint64_t m_nextNs;
    uint64_t m_lastNs;
    uint64_t m_lastBytes = 0;
    uint64_t m_lastOps = 0;
    CpuTimes m_lastCpu;
};

}  // namespace smclab::workloads
