// The physical floor of this host for a two-process fabric: the one-way
// latency of handing a cache line between two processes (spin ping-pong on
// a MAP_SHARED page) and memcpy bandwidth, cache-resident and DRAM-sized.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

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

// A spinning side whose partner was descheduled (a loaded host) hands the
// CPU over now and then; an unloaded handoff takes far fewer spins.
inline void spinPause(uint32_t& spins) {
    if ((++spins & 4095) == 0) sched_yield();
}

// The median rate over `batches` timed batches of `reps` copies each: the
// same statistic as t_typical and BW typical, so a scheduler stall on a
// shared host moves neither side of a ratio.
double memcpyGBps(size_t bytes, int batches, int reps) {
    std::vector<uint8_t> src(bytes, 1);
    std::vector<uint8_t> dst(bytes, 0);
    std::memcpy(dst.data(), src.data(), bytes);  // fault in
    std::vector<double> rates;
    for (int b = 0; b < batches; ++b) {
        const uint64_t start = monotonicNs();
        for (int i = 0; i < reps; ++i) {
            src[static_cast<size_t>(i) % bytes] = static_cast<uint8_t>(i);
            std::memcpy(dst.data(), src.data(), bytes);
            // Keep the compiler from dropping the copies.
            __asm__ __volatile__("" : : "r"(dst.data()) : "memory");
        }
        const double seconds = static_cast<double>(monotonicNs() - start) / 1e9;
        if (seconds > 0) rates.push_back(static_cast<double>(bytes) * reps / seconds / 1e9);
    }
    if (rates.empty()) return 0;
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
}

}  // namespace

Limits measureLimits(bool pinCpus, uint32_t rounds) {
    const uint64_t total = std::max<uint32_t>(rounds, 1000);
    Limits limits;
    void* page = mmap(nullptr, sizeof(PingPong), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED) {
        auto* pp = new (page) PingPong();
        cpu_set_t saved;
        sched_getaffinity(0, sizeof saved, &saved);
        const bool pin = pinCpus && CPU_COUNT(&saved) >= 2;
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
            // Every round trip timed on its own with the latency tests' clock;
            // typical = median, as t_typical.
            const TickClock clock = TickClock::calibrate();
            std::vector<double> oneWayUs;
            oneWayUs.reserve(total);
            uint32_t spins = 0;
            for (uint64_t i = 1; i <= total; ++i) {
                const uint64_t start = TickClock::ticks();
                pp->ping.value.store(i, std::memory_order_release);
                while (pp->pong.value.load(std::memory_order_acquire) != i) spinPause(spins);
                oneWayUs.push_back(clock.toUs(TickClock::ticks() - start) / 2.0);
            }
            waitpid(pid, nullptr, 0);
            if (pin) sched_setaffinity(0, sizeof saved, &saved);
            // The first round trips warm up both sides.
            const size_t warmup = std::min<size_t>(oneWayUs.size() / 10, 100);
            std::vector<double> samples(oneWayUs.begin() + static_cast<std::ptrdiff_t>(warmup), oneWayUs.end());
            std::sort(samples.begin(), samples.end());
            limits.pingPongOneWayUs = samples[samples.size() / 2];
            limits.pingPongMinUs = samples.front();
        }
        munmap(page, sizeof(PingPong));
    }
    limits.memcpyHotGBps = memcpyGBps(64 * 1024, 200, 100);
    limits.memcpyColdGBps = memcpyGBps(64u << 20, 5, 1);
    return limits;
}

}  // namespace smcr::fabric::bench
