// CLOCK_MONOTONIC is one clock for every process on the host, so delivery
// times stamped by one process are meaningful to another.
#pragma once

#include <cstdint>

#include <time.h>

namespace smcr::fabric::sim {

inline uint64_t nowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The same clock at tick resolution, for millisecond throttles (the peer
// liveness probe): it reads a kernel-maintained word, no TSC conversion.
inline uint64_t coarseNowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// One progress pass reads the clock at most once and only when something
// needs it: with the ideal link no work request carries a time, and
// clock_gettime costs ~100 ns on the VMs this runs on, about a third of an
// ideal-link message.
class LazyClock {
public:
    uint64_t now() {
        if (m_ns == 0) m_ns = nowNs();
        return m_ns;
    }

private:
    uint64_t m_ns = 0;
};

}  // namespace smcr::fabric::sim
