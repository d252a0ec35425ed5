// ib_write_lat and ib_send_lat over the fabric interface.
//
// write_lat (perftest run_iter_lat_write): each side RDMA-writes `size`
// bytes into the other's buffer and spins on the last byte of its own
// buffer; one-way latency = round trip / 2. send_lat: SEND / RECV ping-pong,
// receive completions polled (busy) or awaited on the channel (event).
#include <sched.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_pair.h"

namespace smcr::fabric::bench {

namespace {

uint8_t loadAcquire(const uint8_t* p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

// Polls the send CQ: frees SQ slots and, on sim, drives progress.
bool drainSend(FabricSide& s) {
    WorkCompletion wc[16];
    auto n = s.sendCq->poll(wc);
    if (!n) return false;
    for (size_t i = 0; i < n.value(); ++i) {
        if (wc[i].status != WcStatus::success) return false;
    }
    return true;
}

// A spinning side whose peer was descheduled (a loaded host) hands its CPU
// over now and then; an unloaded exchange needs far fewer spins.
inline void spinPause(uint32_t spins) {
    if ((spins & 4095) == 0) sched_yield();
}

bool waitRecv(FabricSide& s, bool event, WorkCompletion* out) {
    uint32_t spins = 0;
    for (;;) {
        auto n = s.recvCq->poll(std::span<WorkCompletion>(out, 1));
        if (!n) return false;
        if (n.value() == 1) return out->status == WcStatus::success;
        // The send CQ only returns SQ slots (every 32nd WR is signaled);
        // any poll drives the sim's progress, so it need not run every spin.
        if ((++spins & 15) == 0 || event) {
            if (!drainSend(s)) return false;
        }
        if (!event) {
            spinPause(spins);
            continue;
        }
        // poll, arm, poll again, only then sleep (ibv_get_cq_event(3)).
        auto armed = s.recvCq->requestNotify(true);
        if (!armed) return false;
        if (armed.value() == NotifyResult::missedEvents) continue;
        auto ev = s.channel->getEvent(5000);
        if (ev) {
            ev.value()->ackEvents(1);
        } else if (ev.error().code == Errc::timedOut) {
            return false;
        }
    }
}

SendWr makeWr(FabricSide& s, Test test, const Endpoint& peer, uint32_t size, uint64_t id, bool signaled) {
    SendWr wr;
    wr.wrId = id;
    wr.opcode = test == Test::sendLat ? WrOpcode::send : WrOpcode::rdmaWrite;
    wr.sg[0] = Sge{s.src->address(), size, s.src->lkey()};
    wr.numSge = 1;
    wr.remoteAddr = peer.vaddr;
    wr.rkey = peer.rkey;
    SendFlags flags = test == Test::sendLat ? SendFlags::solicited : SendFlags::none;
    if (signaled) flags = flags | SendFlags::signaled;
    if (size <= s.qp->caps().maxInlineBytes) flags = flags | SendFlags::inlineData;
    wr.flags = flags;
    return wr;
}

// The sim executes a send queue inside its owner's calls (manual progress),
// and with a link model a WR only lands once its delivery time has passed.
// A side that stops calling into the fabric after its last pong (to block
// on the control socket) would strand that pong and its peer would spin
// forever. So each side ends a run with a signaled zero-length WRITE (no
// memory touched, IBA 9.4.3) and polls until it completes: every WR before
// it has then executed. Bounded, so a broken peer fails the run instead.
constexpr uint64_t kFlushWrId = ~uint64_t{0};

bool flushSendQueue(FabricSide& s, const Endpoint& peer) {
    SendWr wr;
    wr.wrId = kFlushWrId;
    wr.opcode = WrOpcode::rdmaWrite;
    wr.numSge = 0;
    wr.remoteAddr = peer.vaddr;
    wr.rkey = peer.rkey;
    wr.flags = SendFlags::signaled;
    if (!s.qp->postSend(wr).ok()) return false;
    const uint64_t deadline = monotonicNs() + 5000000000ull;
    for (;;) {
        WorkCompletion wc[16];
        auto n = s.sendCq->poll(wc);
        if (!n) return false;
        for (size_t i = 0; i < n.value(); ++i) {
            if (wc[i].status != WcStatus::success) return false;
            if (wc[i].wrId == kFlushWrId) return true;
        }
        if (monotonicNs() > deadline) return false;
    }
}

// One ping or pong: post, then wait for the peer's.
bool exchange(FabricSide& s, Test test, const Endpoint& peer, uint32_t size, uint64_t seq, bool event, bool postFirst) {
    const auto value = static_cast<uint8_t>(seq % 251 + 1);
    auto post = [&] {
        s.src->data()[size - 1] = value;
        // Signal every 32nd WR so slots come back; polling them drives progress.
        // The waits poll the send CQ only every 16th spin, so a fast peer may
        // leave it unpolled: collect the last signaled one here, once per 32.
        if (seq % 32 == 16 && !drainSend(s)) return false;
        return s.qp->postSend(makeWr(s, test, peer, size, seq, seq % 32 == 0)).ok();
    };
    auto wait = [&] {
        if (test == Test::sendLat) {
            WorkCompletion wc;
            if (!waitRecv(s, event, &wc)) return false;
            return s.postRecvs(1, wc.wrId + kRecvSlots).ok();
        }
        const uint8_t* last = s.rmb->data() + size - 1;
        uint32_t spins = 0;
        while (loadAcquire(last) != value) {
            if ((++spins & 15) == 0 && !drainSend(s)) return false;
            spinPause(spins);
        }
        return true;
    };
    if (postFirst) return post() && wait();
    return wait() && post();
}

LatencyRow summarize(uint32_t size, std::vector<double>& samples) {
    LatencyRow row;
    row.bytes = size;
    row.iterations = static_cast<uint32_t>(samples.size());
    std::sort(samples.begin(), samples.end());
    double sum = 0;
    for (double v : samples) sum += v;
    row.avgUs = sum / static_cast<double>(samples.size());
    double var = 0;
    for (double v : samples) var += (v - row.avgUs) * (v - row.avgUs);
    row.stdevUs = std::sqrt(var / static_cast<double>(samples.size()));
    row.minUs = samples.front();
    row.maxUs = samples.back();
    row.typicalUs = samples[samples.size() / 2];
    row.p99Us = samples[std::min(samples.size() - 1, samples.size() * 99 / 100)];
    row.p999Us = samples[std::min(samples.size() - 1, samples.size() * 999 / 1000)];
    return row;
}

}  // namespace

uint64_t TickClock::ticks() {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return monotonicNs();
#endif
}

TickClock TickClock::calibrate() {
    TickClock clock;
#if defined(__x86_64__)
    const uint64_t ns0 = monotonicNs();
    const uint64_t t0 = ticks();
    const timespec pause{0, 20000000};  // 20 ms
    nanosleep(&pause, nullptr);
    const uint64_t ns1 = monotonicNs();
    const uint64_t t1 = ticks();
    if (ns1 > ns0 && t1 > t0) clock.ticksPerNs = static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
#endif
    return clock;
}

uint64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::vector<uint32_t> defaultSizes() {
    std::vector<uint32_t> sizes;
    for (uint32_t size = 2; size <= 65536; size *= 2) sizes.push_back(size);
    return sizes;
}

Result<std::vector<LatencyRow>> runLatency(const Options& options, Test test) {
    const std::vector<uint32_t> sizes = options.sizes.empty() ? defaultSizes() : options.sizes;
    const uint32_t maxBytes = *std::max_element(sizes.begin(), sizes.end());
    const uint32_t warmup = std::min<uint32_t>(100, options.latIterations / 10 + 1);
    const uint32_t total = options.latIterations + warmup;
    // write_lat always spins on memory, like ib_write_lat (which has no -e).
    const bool event = options.eventPoll && test == Test::sendLat;
    std::vector<LatencyRow> rows;

    auto server = [&](int ctl) -> int {
        FabricSide s;
        if (!s.setup(benchSideOptions(options, maxBytes)).ok() || !s.postRecvs(kRecvSlots).ok()) return 2;
        if (!s.exchangeAndConnect(ctl, false).ok()) return 3;
        Endpoint peer{};
        if (!recvAll(ctl, &peer, sizeof peer)) return 3;
        uint64_t seq = 0;
        for (;;) {
            uint32_t size = 0;
            if (!recvAll(ctl, &size, sizeof size)) return 4;
            if (size == 0) return 0;
            if (!sendAll(ctl, &size, sizeof size)) return 4;
            for (uint32_t i = 0; i < total; ++i, ++seq) {
                if (!exchange(s, test, peer, size, seq, event, false)) return 5;
            }
            if (!flushSendQueue(s, peer)) return 6;
        }
    };
    auto client = [&](int ctl) -> Status {
        FabricSide s;
        if (auto st = s.setup(benchSideOptions(options, maxBytes)); !st) return st;
        if (auto st = s.postRecvs(kRecvSlots); !st) return st;
        Endpoint peer{};
        const Endpoint mine = s.local();
        if (!sendAll(ctl, &mine, sizeof mine) || !recvAll(ctl, &peer, sizeof peer)) {
            return fail(Errc::connectionAborted, "benchmark server went away");
        }
        if (auto st = s.connect(peer); !st) return st;
        const TickClock clock = TickClock::calibrate();
        // The server learns our endpoint twice: once to connect, once for writes.
        if (!sendAll(ctl, &mine, sizeof mine)) return fail(Errc::connectionAborted, "benchmark server went away");
        uint64_t seq = 0;
        for (uint32_t size : sizes) {
            uint32_t echo = 0;
            if (!sendAll(ctl, &size, sizeof size) || !recvAll(ctl, &echo, sizeof echo)) {
                return fail(Errc::connectionAborted, "benchmark server went away");
            }
            std::vector<double> samples;
            samples.reserve(options.latIterations);
            for (uint32_t i = 0; i < total; ++i, ++seq) {
                const uint64_t start = TickClock::ticks();
                if (!exchange(s, test, peer, size, seq, event, true)) {
                    return fail(Errc::connectionAborted, std::string(testName(test)) + ": a work request failed");
                }
                if (i >= warmup) samples.push_back(clock.toUs(TickClock::ticks() - start) / 2.0);
            }
            if (!flushSendQueue(s, peer)) {
                return fail(Errc::timedOut, std::string(testName(test)) + ": send queue did not drain");
            }
            rows.push_back(summarize(size, samples));
        }
        const uint32_t done = 0;
        sendAll(ctl, &done, sizeof done);
        return {};
    };
    if (auto st = runPair(options.pinCpus, server, client); !st) return fail(st.error());
    return rows;
}

}  // namespace smcr::fabric::bench
