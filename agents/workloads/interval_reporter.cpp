#include "interval_reporter.h"

#include "clock.h"

namespace smclab::workloads {

IntervalReporter::IntervalReporter(const RunContext& ctx, uint64_t startNs)
    : m_ctx(ctx),
      m_startNs(startNs),
      m_intervalNs(ctx.onSample && ctx.sampleIntervalMs > 0 ? static_cast<uint64_t>(ctx.sampleIntervalMs) * kNsPerMs
                                                            : 0),
      m_nextNs(startNs + m_intervalNs),
      m_lastNs(startNs),
      m_lastCpu(CpuTimes::now()) {}

void IntervalReporter::report(uint64_t nowNs, uint64_t bytesTotal, uint64_t opsTotal, HdrHistogram* intervalLatency,
                              bool warmup) {
    if (m_intervalNs == 0) return;
    Sample s;
    s.elapsedSec = static_cast<double>(nowNs - m_startNs) / 1e9;
    s.intervalSec = static_cast<double>(nowNs - m_lastNs) / 1e9;
    s.warmup = warmup;
    s.bytes = bytesTotal - m_lastBytes;
    s.ops = opsTotal - m_lastOps;
    if (s.intervalSec > 0) {
        s.mbPerSec = static_cast<double>(s.bytes) / s.intervalSec / 1e6;
        s.opsPerSec = static_cast<double>(s.ops) / s.intervalSec;
    }
    if (intervalLatency != nullptr) {
        s.latency = LatencySummary::fromHistogram(*intervalLatency);
        intervalLatency->reset();
    }
    s.cpu = CpuTimes::now();
    if (s.intervalSec > 0) s.cpuPercent = 100.0 * (s.cpu.totalSec() - m_lastCpu.totalSec()) / s.intervalSec;
    if (m_ctx.transport) s.counters = m_ctx.transport->counters();
    m_lastNs = nowNs;
    m_lastBytes = bytesTotal;
    m_lastOps = opsTotal;
    m_lastCpu = s.cpu;
    while (m_nextNs <= nowNs) m_nextNs += m_intervalNs;
    m_ctx.onSample(s);
}

}  // namespace smclab::workloads
