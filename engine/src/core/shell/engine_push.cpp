// The shell's side of the push decisions in cork_policy.h: the send copy,
// autocorking, TCP_CORK/MSG_MORE/TCP_NODELAY, the old cork timer, tx deferral
// to the thread inside the socket, and the counters that show each at work.
#include <algorithm>
#include <cstring>

#include <unistd.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

namespace {

// Copies of at least this many bytes run with the engine unlocked while the
// socket is owned, so completions and CDCs are handled meanwhile (the kernel's
// softirq runs beside a user that holds the socket lock). Shorter copies keep
// the lock: handing it over would cost more than the copy.
constexpr uint32_t kUnlockedCopyBytes = 1024;
// The longest a send waits for a free send slot (waitSendSlotLocked).
constexpr uint64_t kSendSlotWaitMaxNs = 100'000'000;

}  // namespace

uint32_t EngineImpl::sendCopyLocked(std::unique_lock<std::mutex>& lock, Connection& conn, const uint8_t* data,
                                    uint32_t len, const SendHints& hints) {
    // A second sender on this socket waits for the first one's copy: its
    // bytes are reserved but not committed yet (the kernel's lock_sock).
    while (conn.copying && conn.error == Errc::invalid) {
        ++conn.copyWaiters;
        waitUntil(
            lock, [&] { return !conn.copying || conn.error != Errc::invalid; }, 0);
        --conn.copyWaiters;
    }
    const ConnTx& tx = conn.core->tx();
    const uint32_t n = std::min(len, tx.sndbufFreeBytes());
    if (n == 0) return 0;
    const RingSpans spans = tx.reserve(n);
    uint8_t* base = conn.sndbuf->data();
    const bool unlocked = n >= kUnlockedCopyBytes;
    if (unlocked) {
        conn.copying = true;
        lock.unlock();
    }
    uint32_t done = 0;
    for (uint8_t i = 0; i < spans.count; ++i) {
        std::memcpy(base + spans.spans[i].offset, data + done, spans.spans[i].lengthBytes);
        done += spans.spans[i].lengthBytes;
    }
    if (unlocked) {
        lock.lock();
        conn.copying = false;
        if (conn.copyWaiters > 0) wakeSleepersLocked();
    }

    AppSendEvent e;
    e.committedBytes = n;
    e.hints = hints;
    e.autocorkingSize = m_settings.get(SettingId::autocorkingSize);
    e.corkTimerMs = m_settings.get(SettingId::corkTimerMs);
    e.nowMs = e.corkTimerMs > 0 ? monotonicMs() : 0;  // a clock read only where a timer may be armed
    const AppSendActions a = conn.core->onAppSend(e);
    conn.sendQueued = false;
    if (a.kickTimer) kickBackgroundLocked();
    if (a.push) {
        pushLocked(conn, PushOrigin::app);
        conn.sendQueued = conn.queuedForSlot;
    }
    if (unlocked) maybeReleaseLocked(conn);  // a close that came during the copy
    return n;
}

void EngineImpl::waitSendSlotLocked(std::unique_lock<std::mutex>& lock, Connection& conn, uint64_t deadlineNs) {
    // The kernel's sendmsg waits in process context for a free CDC slot
    // (smc_wr_tx_get_free_slot) before it returns: without autocorking that
    // is one CDC per send even when the slots run out. Returning at once
    // instead would let the next sends' bytes gather behind the queued push
    // (an autocork of its own) and flatter the no-cork baseline. A missing RQ
    // credit queues the same way but is the credits code's wait, not this.
    if (!conn.sendQueued) return;
    conn.sendQueued = false;
    if (!conn.queuedForSlot || !conn.lgr || conn.lgr->terminated ||
        !sendLinkOf(conn).flow.credits.canSend(CreditSendKind::message)) {
        return;
    }
    // Bounded: the bytes are in the sndbuf already and leave with the next
    // free slot whether or not this thread is still here.
    const uint64_t bound = monotonicNs() + kSendSlotWaitMaxNs;
    const uint64_t until = deadlineNs != 0 ? std::min(deadlineNs, bound) : bound;
    waitUntil(
        lock, [&] { return !conn.queuedForSlot || conn.error != Errc::invalid || !conn.lgr || conn.lgr->terminated; },
        until, {}, &conn);
}

void EngineImpl::pushLocked(Connection& conn, PushOrigin origin) {
    if (conn.released || !conn.core || !conn.lgr || conn.lgr->terminated) return;
    // The core decides whether anything goes, whether the owner takes it
    // (tx deferral) and whether another pusher runs; the shell flushes.
    if (!conn.core->startPush(origin, m_settings.get(SettingId::txDeferToOwner) != 0)) return;
    do {
        flushLocked(conn);
    } while (conn.core->pushAgain(origin));
}

void EngineImpl::enterOwnerLocked(Connection& conn) {
    if (conn.core) conn.core->enterOwner();
}

void EngineImpl::leaveOwnerLocked(Connection& conn) {
    if (conn.core && conn.core->leaveOwner()) pushLocked(conn, PushOrigin::owner);
}

void EngineImpl::runDeferredPushLocked(Connection& conn) {
    if (conn.core && conn.core->takeDeferredPush()) pushLocked(conn, PushOrigin::owner);
}

void EngineImpl::setNoDelayLocked(Connection& conn, bool tcpCork) {
    // seed 000 patch 4: pushed here, in the caller's context, as TCP does.
    if (conn.core && conn.core->onNoDelay(tcpCork)) pushLocked(conn, PushOrigin::nodelay);
}

void EngineImpl::setCorkLocked(Connection& conn, bool enabled) {
    if (enabled || !conn.core) return;  // the next sends cork
    const bool timerMode = m_settings.get(SettingId::corkTimerMs) > 0;
    switch (conn.core->onCorkCleared(timerMode, timerMode ? monotonicMs() : 0)) {
        case UncorkAction::none:
            return;
        case UncorkAction::timer:
            kickBackgroundLocked();  // the background thread pushes
            return;
        case UncorkAction::push:
            pushLocked(conn, PushOrigin::uncork);  // seed 002 patch 1: at once
            return;
    }
}

void EngineImpl::pushAllLocked(Connection& conn) {
    if (!conn.core) return;
    conn.core->onFlushAll();
    pushLocked(conn, PushOrigin::uncork);
}

void EngineImpl::corkTimersLocked(uint64_t nowMs) {
    std::vector<std::shared_ptr<Connection>> due;
    for (auto& [id, weak] : m_connById) {
        auto conn = weak.lock();
        if (conn && conn->core && conn->core->corkDeadlineMs() <= nowMs) due.push_back(conn);
    }
    for (auto& conn : due) {
        if (conn->core->onCorkTimer(nowMs)) pushLocked(*conn, PushOrigin::corkTimer);
    }
}

uint64_t EngineImpl::nextCorkDeadlineMsLocked() {
    uint64_t next = UINT64_MAX;
    for (auto& [id, weak] : m_connById) {
        auto conn = weak.lock();
        if (conn && conn->core) next = std::min(next, conn->core->corkDeadlineMs());
    }
    return next;
}

void EngineImpl::kickBackgroundLocked() {
    if (m_bgEventFd < 0) return;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_bgEventFd, &one, sizeof one);
}

}  // namespace smcr::core
