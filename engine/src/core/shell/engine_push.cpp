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
    while (conn.push.copying && conn.error == Errc::invalid) {
        ++conn.push.copyWaiters;
        waitUntil(
            lock, [&] { return !conn.push.copying || conn.error != Errc::invalid; }, 0);
        --conn.push.copyWaiters;
    }
    ConnTx& tx = conn.core->tx();
    const uint32_t n = std::min(len, tx.sndbufFreeBytes());
    if (n == 0) return 0;
    const RingSpans spans = tx.reserve(n);
    uint8_t* base = conn.sndbuf->data();
    const bool unlocked = n >= kUnlockedCopyBytes;
    if (unlocked) {
        conn.push.copying = true;
        lock.unlock();
    }
    uint32_t done = 0;
    for (uint8_t i = 0; i < spans.count; ++i) {
        std::memcpy(base + spans.spans[i].offset, data + done, spans.spans[i].lengthBytes);
        done += spans.spans[i].lengthBytes;
    }
    if (unlocked) {
        lock.lock();
        conn.push.copying = false;
        if (conn.push.copyWaiters > 0) wakeSleepersLocked();
    }
    tx.commit(n);

    SendCorkInput in;
    in.unsentBytes = tx.unsentBytes();
    in.pendingCdcs = tx.pendingCdcCount();
    in.sndbufBytes = tx.sndbufBytes();
    in.sndbufFreeBytes = tx.sndbufFreeBytes();
    in.autocorkingSize = m_settings.get(SettingId::autocorkingSize);
    in.msgMore = hints.msgMore;
    in.tcpCork = hints.tcpCork;
    in.notLast = hints.notLast;
    const uint64_t timerMs = m_settings.get(SettingId::corkTimerMs);
    in.timerMode = timerMs > 0;
    const SendDecision decision = decideAfterSend(in);
    // The user's cork outlives an autocork decision: the completion that ends
    // the autocork must not push what TCP_CORK or MSG_MORE holds.
    conn.push.userCorked = userCorkHolds(in);
    conn.push.sendQueued = false;
    switch (decision) {
        case SendDecision::autocork:
            ++conn.stats.autocorkedSends;
            conn.push.autocorked = true;
            break;
        case SendDecision::userCork:
            ++conn.stats.userCorkedSends;
            if (in.timerMode && conn.push.corkDeadlineMs == UINT64_MAX) {
                // The old delayed work (SMC_TX_CORK_DELAY): armed once, not re-armed.
                conn.push.corkDeadlineMs = monotonicMs() + timerMs;
                kickBackgroundLocked();
            }
            break;
        case SendDecision::push:
        case SendDecision::invalid:
            conn.push.corkDeadlineMs = UINT64_MAX;
            pushLocked(conn, PushOrigin::app);
            conn.push.sendQueued = conn.queuedForSlot;
            break;
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
    if (!conn.push.sendQueued) return;
    conn.push.sendQueued = false;
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
    if (deferToOwner(origin, m_settings.get(SettingId::txDeferToOwner) != 0, conn.push.owners)) {
        // seed 000 patch 7: the thread inside the socket pushes when it leaves.
        ++conn.stats.pushesDeferred;
        conn.push.deferred = true;
        return;
    }
    const bool data = conn.core->tx().unsentBytes() > 0 && !conn.push.userCorked;
    if (!data && !conn.core->cdcOwed()) return;
    if (!conn.push.gate.enter()) return;  // remembered: the running pusher goes round again
    do {
        if (conn.core->tx().unsentBytes() > 0 && !conn.push.userCorked) {
            ++(appContext(origin) ? conn.stats.pushesApp : conn.stats.pushesCompletion);
            conn.push.autocorked = false;
            conn.push.deferred = false;
        }
        flushLocked(conn);
    } while (conn.push.gate.again());
}

void EngineImpl::enterOwnerLocked(Connection& conn) {
    ++conn.push.owners;
}

void EngineImpl::leaveOwnerLocked(Connection& conn) {
    if (conn.push.owners > 0) --conn.push.owners;
    if (conn.push.owners == 0) runDeferredPushLocked(conn);
}

void EngineImpl::runDeferredPushLocked(Connection& conn) {
    if (!conn.push.deferred) return;
    conn.push.deferred = false;
    pushLocked(conn, PushOrigin::owner);
}

void EngineImpl::onCdcSendCompleteLocked(Connection& conn) {
    if (!conn.core) return;
    const ConnTx& tx = conn.core->tx();
    // seed 000 patch 2: the completion of the last outstanding CDC pushes,
    // so autocorked data never hangs in the sndbuf.
    if (!pushOnCdcComplete(tx.pendingCdcCount(), tx.unsentBytes(), conn.push.userCorked)) return;
    if (conn.push.autocorked) ++conn.stats.autocorkPushes;
    pushLocked(conn, PushOrigin::completion);
}

void EngineImpl::setNoDelayLocked(Connection& conn, bool tcpCork) {
    if (!conn.core || conn.core->tx().unsentBytes() == 0) return;
    // seed 000 patch 4: pushed here, in the caller's context, as TCP does.
    // What TCP_CORK holds stays held; MSG_MORE's hold ends.
    if (!tcpCork) conn.push.userCorked = false;
    if (conn.push.userCorked) return;
    ++conn.stats.nodelayPushes;
    pushLocked(conn, PushOrigin::nodelay);
}

void EngineImpl::setCorkLocked(Connection& conn, bool enabled) {
    if (enabled || !conn.core) return;  // the next sends cork
    if (conn.core->tx().unsentBytes() == 0) {
        conn.push.userCorked = false;
        return;
    }
    if (m_settings.get(SettingId::corkTimerMs) > 0) {
        // The old way: uncork only schedules the delayed work at once
        // (mod_delayed_work(..., 0)); the background thread pushes.
        conn.push.corkDeadlineMs = monotonicMs();
        kickBackgroundLocked();
        return;
    }
    // seed 002 patch 1: clearing TCP_CORK sends at once.
    conn.push.userCorked = false;
    conn.push.corkDeadlineMs = UINT64_MAX;
    ++conn.stats.corkPushes;
    pushLocked(conn, PushOrigin::uncork);
}

void EngineImpl::pushAllLocked(Connection& conn) {
    conn.push.userCorked = false;
    conn.push.corkDeadlineMs = UINT64_MAX;
    pushLocked(conn, PushOrigin::uncork);
}

void EngineImpl::corkTimersLocked(uint64_t nowMs) {
    std::vector<std::shared_ptr<Connection>> due;
    for (auto& [id, weak] : m_connById) {
        auto conn = weak.lock();
        if (conn && conn->push.corkDeadlineMs <= nowMs) due.push_back(conn);
    }
    for (auto& conn : due) {
        conn->push.corkDeadlineMs = UINT64_MAX;
        if (!conn->core || conn->core->tx().unsentBytes() == 0) continue;
        conn->push.userCorked = false;
        ++conn->stats.corkPushes;
        ++conn->stats.corkTimerPushes;
        pushLocked(*conn, PushOrigin::corkTimer);
    }
}

uint64_t EngineImpl::nextCorkDeadlineMsLocked() {
    uint64_t next = UINT64_MAX;
    for (auto& [id, weak] : m_connById) {
        if (auto conn = weak.lock()) next = std::min(next, conn->push.corkDeadlineMs);
    }
    return next;
}

void EngineImpl::kickBackgroundLocked() {
    if (m_bgEventFd < 0) return;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_bgEventFd, &one, sizeof one);
}

}  // namespace smcr::core
