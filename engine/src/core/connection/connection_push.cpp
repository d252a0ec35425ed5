// ConnectionCore's send-side events: what the application's sends, the CDC
// completions, the user's cork and the owner's comings and goings decide
// (the rules: cork_policy.h). The shell copies, posts and wakes; nothing
// here does I/O.
#include "core/connection/connection_core.h"

namespace smcr::core {

AppSendActions ConnectionCore::onAppSend(const AppSendEvent& e) {
    m_tx.commit(e.committedBytes);
    SendCorkInput in;
    in.unsentBytes = m_tx.unsentBytes();
    in.pendingCdcs = m_tx.pendingCdcCount();
    in.sndbufBytes = m_tx.sndbufBytes();
    in.sndbufFreeBytes = m_tx.sndbufFreeBytes();
    in.autocorkingSize = e.autocorkingSize;
    in.msgMore = e.hints.msgMore;
    in.tcpCork = e.hints.tcpCork;
    in.notLast = e.hints.notLast;
    in.timerMode = e.corkTimerMs > 0;
    AppSendActions out;
    out.decision = decideAfterSend(in);
    // The user's cork outlives an autocork decision: the completion that ends
    // the autocork must not push what TCP_CORK or MSG_MORE holds.
    m_userCorked = userCorkHolds(in);
    switch (out.decision) {
        case SendDecision::autocork:
            ++m_counters.autocorkedSends;
            m_autocorked = true;
            break;
        case SendDecision::userCork:
            ++m_counters.userCorkedSends;
            if (in.timerMode && m_corkDeadlineMs == UINT64_MAX) {
                // The old delayed work (SMC_TX_CORK_DELAY): armed once, not re-armed.
                m_corkDeadlineMs = e.nowMs + e.corkTimerMs;
                out.kickTimer = true;
            }
            break;
        case SendDecision::push:
        case SendDecision::invalid:
            m_corkDeadlineMs = UINT64_MAX;
            out.push = true;
            break;
    }
    return out;
}

bool ConnectionCore::onCdcSendComplete() {
    m_tx.onCdcSendComplete();
    if (!pushOnCdcComplete(m_tx.pendingCdcCount(), m_tx.unsentBytes(), m_userCorked)) return false;
    if (m_autocorked) ++m_counters.autocorkPushes;
    return true;
}

bool ConnectionCore::onAppRead(uint32_t bytes, WindowUpdateLimit limit) {
    m_rx.consume(bytes);
    return oweWindowUpdateIfDue(limit);
}

bool ConnectionCore::onNoDelay(bool tcpCork) {
    if (m_tx.unsentBytes() == 0) return false;
    if (!tcpCork) m_userCorked = false;
    if (m_userCorked) return false;
    ++m_counters.nodelayPushes;
    return true;
}

UncorkAction ConnectionCore::onCorkCleared(bool timerMode, uint64_t nowMs) {
    if (m_tx.unsentBytes() == 0) {
        m_userCorked = false;
        return UncorkAction::none;
    }
    if (timerMode) {
        // The old way: uncork only schedules the delayed work at once
        // (mod_delayed_work(..., 0)); the timer thread pushes.
        m_corkDeadlineMs = nowMs;
        return UncorkAction::timer;
    }
    m_userCorked = false;
    m_corkDeadlineMs = UINT64_MAX;
    ++m_counters.corkPushes;
    return UncorkAction::push;
}

void ConnectionCore::onFlushAll() {
    m_userCorked = false;
    m_corkDeadlineMs = UINT64_MAX;
}

bool ConnectionCore::onCorkTimer(uint64_t nowMs) {
    if (m_corkDeadlineMs > nowMs) return false;
    m_corkDeadlineMs = UINT64_MAX;
    if (m_tx.unsentBytes() == 0) return false;
    m_userCorked = false;
    ++m_counters.corkPushes;
    ++m_counters.corkTimerPushes;
    return true;
}

bool ConnectionCore::leaveOwner() {
    if (m_owners > 0) --m_owners;
    return m_owners == 0 && takeDeferredPush();
}

bool ConnectionCore::takeDeferredPush() {
    if (!m_deferred) return false;
    m_deferred = false;
    return true;
}

bool ConnectionCore::startPush(PushOrigin origin, bool deferEnabled) {
    if (deferToOwner(origin, deferEnabled, m_owners)) {
        // seed 000 patch 7: the thread inside the socket pushes when it leaves.
        ++m_counters.pushesDeferred;
        m_deferred = true;
        return false;
    }
    const bool data = m_tx.unsentBytes() > 0 && !m_userCorked;
    if (!data && !m_cdcOwed) return false;
    if (!m_gate.enter()) return false;  // remembered: the running pusher goes round again
    countPushRound(origin);
    return true;
}

bool ConnectionCore::pushAgain(PushOrigin origin) {
    if (!m_gate.again()) return false;
    countPushRound(origin);
    return true;
}

void ConnectionCore::countPushRound(PushOrigin origin) {
    if (m_tx.unsentBytes() == 0 || m_userCorked) return;  // only an owed CDC goes
    ++(appContext(origin) ? m_counters.pushesApp : m_counters.pushesCompletion);
    m_autocorked = false;
    m_deferred = false;
}

}  // namespace smcr::core
