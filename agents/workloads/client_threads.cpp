#include "client_threads.h"

#include <algorithm>
#include <cmath>

namespace smclab::workloads {

SampleStats SampleStats::of(const std::vector<double>& samples) {
    SampleStats s;
    if (samples.empty()) return s;
    double sum = 0;
    for (double v : samples) {
        sum += v;
        s.max = std::max(s.max, v);
    }
    s.mean = sum / static_cast<double>(samples.size());
    double squares = 0;
    for (double v : samples) squares += (v - s.mean) * (v - s.mean);
    // wrk's stats_stdev: sample standard deviation (n - 1).
    s.stdev = samples.size() > 1 ? std::sqrt(squares / static_cast<double>(samples.size() - 1)) : 0.0;
    size_t within = 0;
    for (double v : samples) {
        if (v >= s.mean - s.stdev && v <= s.mean + s.stdev) ++within;
    }
    s.withinStdevPct = 100.0 * static_cast<double>(within) / static_cast<double>(samples.size());
    return s;
}

}  // namespace smclab::workloads
