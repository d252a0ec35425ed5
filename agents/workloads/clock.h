// Monotonic nanoseconds for the hot loops (vDSO clock_gettime, ~20 ns).
#pragma once

#include <cstdint>
#include <ctime>

namespace smclab::workloads {

inline uint64_t monotonicNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

constexpr uint64_t kNsPerMs = 1000000ULL;
constexpr uint64_t kNsPerSec = 1000000000ULL;

}  // namespace smclab::workloads
