// Wake-ups a waiting thread does not need (waitUntil, engine_impl.cpp).
//
// The kernel's SMC wakes a task once per message: the RNIC delivers the
// data, the completion interrupt runs the tasklet, and that wakes the
// reader. Send completions (the peer's ACK) are handled in the tasklet and
// wake nobody unless a task waits for sndbuf space or a CDC slot
// (sk_write_space). Two things made libsmcr pay more per message:
// - A waiter armed the send CQ for its next completion whatever it waited
//   for. On the sim with a link model the ACK comes one wire latency after
//   the delivery, so a thread waiting for the answer to its request was
//   first woken by its own ACK (the sim's timer fires for an armed CQ's due
//   ACK; fabric/README.md, "Sleeping on the channel fd"). A receives-only
//   waiter now arms the send CQ only when a send completion would move
//   something (sendCompletionAwaitedLocked); otherwise the ACK is polled at
//   the next call, as a real RNIC's unarmed CQ keeps its CQE.
// - The sim runs this process's delayed WRs (delivery after the wire
//   latency) only inside its own calls. A thread that posted a request and
//   went to sleep was woken by the sim's timer ~1.4 us later (cx4-25g) to
//   deliver it, and a sleep with a wake-up costs 10-50 us of scheduler
//   latency and timer slack on the lab's VMs. Work due that soon is now
//   waited for on the CPU (spinToFabricDueLocked): the spin stands in for
//   the RNIC's own processing, which costs a real host no CPU time.
// - A foreign event loop (libsmcr-preload.so's epoll_wait and poll in the
//   program's own threads) sleeps on a Poller's fd(), which holds the
//   completion channel, but outside waitUntil, so the background thread
//   kept the channel too: each CDC woke it, it processed the completion and
//   wrote the poller's eventfd, and the program's thread woke second (two
//   thread switches per message, on a 2-core host one of them a preemption
//   of the program). A foreign waiter now counts like waitUntil's waiters:
//   the channel is its, a completion wakes it directly, and the background
//   thread checks back only after the last one left (foreignWaitEndLocked).
// - A busy event loop (a kv server with 200 pipelining clients) finds work
//   at every Poller::wait and seldom sleeps, so no waiter left waitUntil
//   for more than the grace and the background thread took the channel:
//   it armed the CQs and every completion woke it beside the loop, on the
//   loop's CPU (~900 wake-ups and as many lock hand-overs a second). A
//   Poller's wait now counts as the application's (noteAppPollLocked;
//   measured in engine/README.md, "Progress and waiting").
#include <algorithm>
#include <thread>

#include "core/shell/engine_impl.h"

namespace smcr::core {

namespace {

// Work of the sim due within this is waited for on the CPU: about the cost of
// one sleep and wake-up on the lab's VMs, far above a small message's wire
// latency (1.25 us + 150 ns per WR on cx4-25g) and the serialisation of an
// 8 KiB write at 25 Gbit/s (2.6 us).
constexpr uint64_t kFabricDueSpinNs = 20'000;
// Spinning ends after this much per sleep decision, so a chain of dues that
// never satisfies the waiter (RNR back-off against a peer that posts no
// receive buffers) falls back to sleeping on the sim's timer.
constexpr uint64_t kFabricDueSpinBudgetNs = 100'000;

}  // namespace

bool EngineImpl::sendCompletionAwaitedLocked() const {
    for (const auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        // Queued CDCs, LLC replies and failover validations leave with the
        // next free send slot; owed credits are announced with one.
        if (!lgr->multi.validationQueue.empty()) return true;
        for (const auto& link : lgr->links) {
            if (link && link->awaitsSendCompletion()) return true;
        }
        for (const auto& [token, conn] : lgr->conns) {
            // Autocorked bytes leave with the completion of the last
            // outstanding CDC (pushOnCdcComplete, cork_policy.h).
            if (conn->core && conn->core->awaitsCdcCompletion()) return true;
        }
    }
    return false;
}

void EngineImpl::foreignWaitBeginLocked() {
    ++m_foreignWaiters;
    publishOwnerWakeLocked();
    // A fired CQ wakes a word sleeper instead of the channel's fd, which
    // the foreign loop sleeps on now: the word sleepers go back to the fds.
    if (std::any_of(m_sleepers.begin(), m_sleepers.end(), [](const Sleeper& s) { return s.onWord; })) {
        m_channel->wakeWordSleepers();
    }
}

void EngineImpl::foreignWaitEndLocked() {
    if (m_foreignWaiters > 0) --m_foreignWaiters;
    publishOwnerWakeLocked();
    m_lastWaiterExitMs = monotonicMs();
    // The background thread sleeps without a timer while foreign waiters
    // hold the channel; with the last gone it must take the channel back
    // after the grace. One kick per such sleep: it then sleeps out the grace
    // on its timer, and a loop that re-enters meanwhile costs nothing more.
    if (m_foreignWaiters == 0 && m_appWaiters == 0 && m_bgAwaitsForeignExit) {
        m_bgAwaitsForeignExit = false;
        kickBackgroundLocked();
    }
}

bool EngineImpl::spinToFabricDueLocked(std::unique_lock<std::mutex>& lock, uint64_t deadlineNs, DueSpin& spin) {
    // As the last progress pass left it (every poll and arm runs one); 0 on
    // hardware, whose work needs no call of ours.
    const uint64_t dueNs = fabricDueNsLocked();
    if (dueNs == 0 || dueNs <= spin.lastDueNs) return false;  // none, or waited for already
    const uint64_t nowNs = monotonicNs();
    if (dueNs > nowNs + kFabricDueSpinNs || spin.spentNs >= kFabricDueSpinBudgetNs) return false;
    spin.lastDueNs = dueNs;
    const uint64_t untilNs = deadlineNs != 0 ? std::min(dueNs, deadlineNs) : dueNs;
    if (untilNs > nowNs) {
        lock.unlock();
        while (monotonicNs() < untilNs) cpuRelax();
        lock.lock();
        spin.spentNs += untilNs - nowNs;
    }
    return true;
}

void EngineImpl::publishOwnerWakeLocked() {
    // The sim's timer wakes the channel for timed work (a delivery after
    // the wire's latency) that nobody would otherwise call in for. Each of
    // our sleepers bounded its sleep by the due time it saw, so the timer
    // is needed only for work due before the earliest of them wakes: work
    // another thread posted meanwhile. A busy single-threaded server posts
    // while nobody sleeps, then sleeps bounded by its own due time, and
    // its timerfd_settime per sleep goes. A foreign loop's bound is its
    // own: it keeps the timer.
    if (!m_fabricRunsInCalls) return;
    uint64_t wakeNs = 0;
    auto earliest = [&](uint64_t ns) {
        const uint64_t at = ns == 0 ? fabric::Device::kNoWakePromise : ns;
        wakeNs = wakeNs == 0 ? at : std::min(wakeNs, at);
    };
    for (const Sleeper& s : m_sleepers) earliest(s.wakeNs);
    if (m_bgChannelWakeNs != 0) earliest(m_bgChannelWakeNs);
    if (m_foreignWaiters > 0) wakeNs = fabric::Device::kNoWakePromise;
    if (wakeNs == m_ownerWakeNs) return;
    m_ownerWakeNs = wakeNs;
    m_device->setOwnerWakeNs(wakeNs);
}

}  // namespace smcr::core
