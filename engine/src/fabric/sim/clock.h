// CLOCK_MONOTONIC is one clock for every process on the host, so delivery
// times stamped by one process are meaningful to another.
#pragma once

#include <time.h>

#include <cstdint>

namespace smcr::fabric::sim {

inline uint64_t nowNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace smcr::fabric::sim
