// One side of a benchmark connection and the two-process runner: the server
// is a forked child pinned to the second CPU, the client the caller pinned
// to the first; they swap the CLC fields over a socketpair.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <sys/types.h>

#include <smcr/fabric_bench.h>

namespace smcr::fabric::bench {

struct Endpoint {
    Gid gid{};
    Mac mac{};
    uint32_t qpn = 0;
    uint32_t psn = 0;
    uint32_t rkey = 0;
    uint64_t vaddr = 0;
};

inline constexpr uint32_t kRecvSlots = 64;
inline constexpr uint32_t kTxDepth = 128;

struct BenchSide {
    std::unique_ptr<Device> dev;
    std::unique_ptr<ProtectionDomain> pd;
    std::unique_ptr<CompletionChannel> channel;
    std::unique_ptr<CompletionQueue> sendCq;
    std::unique_ptr<CompletionQueue> recvCq;
    std::unique_ptr<QueuePair> qp;
    std::unique_ptr<MemoryRegion> buf;   // the peer RDMA-writes here
    std::unique_ptr<MemoryRegion> recv;  // kRecvSlots receive slots
    std::unique_ptr<MemoryRegion> src;   // local source
    uint32_t slotBytes = 0;
    uint32_t psn = 0;

    ~BenchSide();
    Status open(const Options& options, uint32_t maxBytes);
    Endpoint local() const;
    Status connect(const Endpoint& peer);
    Status postRecvSlot(uint64_t id);
    // Exchanges endpoints over the control fd and connects.
    Status exchangeAndConnect(int ctl, bool first);
};

bool sendAll(int fd, const void* data, size_t len);
bool recvAll(int fd, void* data, size_t len);

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
