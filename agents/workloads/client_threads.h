// Helpers for multi-threaded clients (http, kv): per-thread interval
// histograms the run's thread can drain for samples, and summary statistics
// of per-thread rate samples (wrk's Req/Sec row).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "hdr_histogram.h"

namespace smclab::workloads {

// A thread's latencies: recorded by that thread, drained by the sampler.
class SharedHistogram {
public:
    void record(uint64_t ns) {
        std::lock_guard lock(m_mutex);
        m_interval.record(ns);
    }
    // Moves the interval's values into `into` and clears them.
    void drainInto(HdrHistogram& into) {
        std::lock_guard lock(m_mutex);
        into.merge(m_interval);
        m_interval.reset();
    }

private:
    std::mutex m_mutex;
    HdrHistogram m_interval;
};

struct SampleStats {
    double mean = 0, stdev = 0, max = 0;
    double withinStdevPct = 0;  // share of samples within mean +/- stdev
    static SampleStats of(const std::vector<double>& samples);
};

}  // namespace smclab::workloads
