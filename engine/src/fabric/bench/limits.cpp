// The physical floor of this host for a two-process fabric: the one-way
// latency of handing a cache line between two processes (spin ping-pong on
// a MAP_SHARED page) and memcpy bandwidth, cache-resident and DRAM-sized.
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bench_pair.h"

namespace smcr::fabric::bench {

namespace {

struct alignas(64) Line {
    std::atomic<uint64_t> value{0};
};

struct PingPong {
    Line ping;
    Line pong;
};

constexpr uint64_t kBatches = 20;

// A spinning side whose partner was descheduled (a loaded host) hands the
// CPU over now and then; an unloaded handoff takes far fewer spins.
inline void spinPause(uint32_t& spins) {
    if ((++spins & 4095) == 0) sched_yield();
}

double memcpyGBps(size_t bytes, int reps) {
    std::vector<uint8_t> src(bytes, 1);
    std::vector<uint8_t> dst(bytes, 0);
    std::memcpy(dst.data(), src.data(), bytes);  // fault in
    const uint64_t start = monotonicNs();
    for (int i = 0; i < reps; ++i) {
        src[static_cast<size_t>(i) % bytes] = static_cast<uint8_t>(i);
        std::memcpy(dst.data(), src.data(), bytes);
        // Keep the compiler from dropping the copies.
        __asm__ __volatile__("" : : "r"(dst.data()) : "memory");
    }
    const double seconds = static_cast<double>(monotonicNs() - start) / 1e9;
    return static_cast<double>(bytes) * reps / seconds / 1e9;
}

}  // namespace

Limits measureLimits(bool pinCpus, uint32_t rounds) {
    const uint64_t perBatch = std::max<uint64_t>(50, rounds / kBatches);
    Limits limits;
    void* page = mmap(nullptr, sizeof(PingPong), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) {
        auto* pp = new (page) PingPong();
        cpu_set_t saved;
        sched_getaffinity(0, sizeof saved, &saved);
        const bool pin = pinCpus && CPU_COUNT(&saved) >= 2;
        const uint64_t total = kBatches * perBatch;
        const pid_t pid = fork();
        if (pid == 0) {
            if (pin) pinToCpu(1);
            uint32_t spins = 0;
            for (uint64_t i = 1; i <= total; ++i) {
                while (pp->ping.value.load(std::memory_order_acquire) != i) spinPause(spins);
                pp->pong.value.store(i, std::memory_order_release);
            }
            _exit(0);
        }
        if (pid > 0) {
            if (pin) pinToCpu(0);
            std::vector<double> batches;
            uint64_t i = 1;
            uint32_t spins = 0;
            for (uint64_t b = 0; b < kBatches; ++b) {
                const uint64_t start = monotonicNs();
                for (uint64_t k = 0; k < perBatch; ++k, ++i) {
                    pp->ping.value.store(i, std::memory_order_release);
                    while (pp->pong.value.load(std::memory_order_acquire) != i) spinPause(spins);
                }
                batches.push_back(static_cast<double>(monotonicNs() - start) / 1000.0 / static_cast<double>(perBatch) / 2);
            }
            waitpid(pid, nullptr, 0);
            if (pin) sched_setaffinity(0, sizeof saved, &saved);
            std::sort(batches.begin(), batches.end());
            limits.pingPongOneWayUs = batches[batches.size() / 2];
            limits.pingPongMinUs = batches.front();
        }
        munmap(page, sizeof(PingPong));
    }
    limits.memcpyHotGBps = memcpyGBps(64 * 1024, 20000);
    limits.memcpyColdGBps = memcpyGBps(64u << 20, 4);
    return limits;
}

}  // namespace smcr::fabric::bench
