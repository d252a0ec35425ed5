// The physical floor of this host for a two-process fabric: the one-way
// latency of handing a cache line between two processes (spin ping-pong on
// a MAP_SHARED page), of a sleep and a wake-up between them (futex, pipe:
// the floor of any transport that waits like the kernel, TCP's included)
// and memcpy bandwidth, cache-resident and DRAM-sized.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <tuple>
#include <utility>
#include <vector>

#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_pair.h"

namespace smcr::fabric::bench {

namespace {

struct alignas(64) Line {
    std::atomic<uint32_t> value{0};
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

// How one side hands the turn over and waits for it back: a cache line it
// spins on, a futex it sleeps on, or a pipe it sleeps in read(2) on.
enum class Handoff { spin, futex, pipe };

void futexWait(std::atomic<uint32_t>& word, uint32_t seen) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, seen, nullptr, nullptr, 0);
}
void futexWake(std::atomic<uint32_t>& word) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

// Round i's turn handed over: `to` gets the value i.
struct Channel {
    Handoff how;
    Line* line;
    int readFd, writeFd;  // pipe: this side reads readFd, the other writeFd
    void give(uint32_t i) const {
        if (how == Handoff::pipe) {
            const char byte = 1;
            [[maybe_unused]] const ssize_t n = ::write(writeFd, &byte, 1);
            return;
        }
        line->value.store(i, std::memory_order_release);
        if (how == Handoff::futex) futexWake(line->value);
    }
    void await(Line* mine, uint32_t i) const {
        if (how == Handoff::pipe) {
            char byte = 0;
            [[maybe_unused]] const ssize_t n = ::read(readFd, &byte, 1);
            return;
        }
        uint32_t spins = 0;
        for (uint32_t v = mine->value.load(std::memory_order_acquire); v != i;
             v = mine->value.load(std::memory_order_acquire)) {
            if (how == Handoff::futex) {
                futexWait(mine->value, v);
            } else {
                spinPause(spins);
            }
        }
    }
};

// Two processes on CPUs 0 and 1 hand the turn back and forth `total` times;
// each round trip is timed on its own with the latency tests' clock. Returns
// {typical, min} one-way us (typical = median, as t_typical), or {0, 0}.
std::pair<double, double> pingPong(bool pinCpus, uint64_t total, Handoff how) {
    void* page = mmap(nullptr, sizeof(PingPong), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return {0, 0};
    auto* pp = new (page) PingPong();
    int toChild[2] = {-1, -1};
    int toParent[2] = {-1, -1};
    if (how == Handoff::pipe && (::pipe(toChild) != 0 || ::pipe(toParent) != 0)) {
        munmap(page, sizeof(PingPong));
        return {0, 0};
    }
    cpu_set_t saved;
    sched_getaffinity(0, sizeof saved, &saved);
    const bool pin = pinCpus && CPU_COUNT(&saved) >= 2;
    std::pair<double, double> result{0, 0};
    const pid_t pid = fork();
    if (pid == 0) {
        if (pin) pinToCpu(1);
        const Channel back{how, &pp->pong, toChild[0], toParent[1]};
        for (uint32_t i = 1; i <= total; ++i) {
            back.await(&pp->ping, i);
            back.give(i);
        }
        _exit(0);
    }
    if (pid > 0) {
        if (pin) pinToCpu(0);
        const Channel out{how, &pp->ping, toParent[0], toChild[1]};
        const TickClock clock = TickClock::calibrate();
        std::vector<double> oneWayUs;
        oneWayUs.reserve(total);
        for (uint32_t i = 1; i <= total; ++i) {
            const uint64_t start = TickClock::ticks();
            out.give(i);
            out.await(&pp->pong, i);
            oneWayUs.push_back(clock.toUs(TickClock::ticks() - start) / 2.0);
        }
        waitpid(pid, nullptr, 0);
        if (pin) sched_setaffinity(0, sizeof saved, &saved);
        // The first round trips warm up both sides.
        const size_t warmup = std::min<size_t>(oneWayUs.size() / 10, 100);
        std::vector<double> samples(oneWayUs.begin() + static_cast<std::ptrdiff_t>(warmup), oneWayUs.end());
        std::sort(samples.begin(), samples.end());
        result = {samples[samples.size() / 2], samples.front()};
    }
    for (int fd : {toChild[0], toChild[1], toParent[0], toParent[1]}) {
        if (fd >= 0) ::close(fd);
    }
    munmap(page, sizeof(PingPong));
    return result;
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
    std::tie(limits.pingPongOneWayUs, limits.pingPongMinUs) = pingPong(pinCpus, total, Handoff::spin);
    // A sleep and a wake-up cost tens of microseconds where the spin costs
    // a fraction of one: a tenth of the rounds, at least 1000.
    const uint64_t sleeps = std::max<uint64_t>(total / 10, 1000);
    std::tie(limits.wakeFutexOneWayUs, limits.wakeFutexMinUs) = pingPong(pinCpus, sleeps, Handoff::futex);
    std::tie(limits.wakePipeOneWayUs, limits.wakePipeMinUs) = pingPong(pinCpus, sleeps, Handoff::pipe);
    limits.memcpyHotGBps = memcpyGBps(64 * 1024, 200, 100);
    limits.memcpyColdGBps = memcpyGBps(64u << 20, 5, 1);
    return limits;
}

}  // namespace smcr::fabric::bench
