// The benchmarks' sides and their two-process runner: the server is a forked
// child pinned to the second CPU, the client the caller pinned to the first;
// they swap the CLC fields over a socketpair (fabric_pair.h).
#pragma once

#include <functional>
#include <vector>

#include <smcr/fabric_bench.h>

#include "fabric_pair.h"

namespace smcr::fabric::bench {

inline constexpr uint32_t kRecvSlots = 64;
inline constexpr uint32_t kTxDepth = 128;

// A benchmark side: kTxDepth sends in flight, kRecvSlots receive slots and
// an RMB and a source of maxBytes each, a 4096-byte path MTU at most.
SideOptions benchSideOptions(const Options& options, uint32_t maxBytes);

// Forks the server (pinned to CPU 1 when pin), runs the client here (pinned
// to CPU 0), waits for the server; the caller's CPU mask is restored.
Status runPair(bool pin, const std::function<int(int ctl)>& server, const std::function<Status(int ctl)>& client);

void pinToCpu(int cpu);
std::vector<uint32_t> defaultSizes();  // 2 B .. 64 KiB
uint64_t monotonicNs();

// The latency clock, like perftest's get_cycles(): the TSC on x86-64 (a few
// ns to read, where clock_gettime costs ~100 ns on VMs and would be part of
// every sample), calibrated once against CLOCK_MONOTONIC; elsewhere the
// monotonic clock itself.
struct TickClock {
    double ticksPerNs = 1.0;
    static TickClock calibrate();
    static uint64_t ticks();
    double toUs(uint64_t ticks) const { return static_cast<double>(ticks) / ticksPerNs / 1000.0; }
};

}  // namespace smcr::fabric::bench
