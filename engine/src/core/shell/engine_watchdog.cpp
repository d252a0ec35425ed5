// The send-completion watchdog over the fabric (tx_watchdog.h): a link whose
// sends stopped completing for lab.tx_completion_timeout_ms is taken down
// like one that reported an error completion. A standby is dropped; the link
// carrying the connections fails over to the standby (DELETE_LINK, CDC
// failover validation, re-send) or, when it was the last link, the group is
// terminated: its connections fail with ECONNABORTED and their TCP sockets
// are shut down so the peer learns of it (engine_lgr.cpp).
//
// No thread of its own: the background thread runs this with the other
// timers right after it polled the CQs, and sleeps no longer than the next
// watchdog deadline.
#include <algorithm>

#include "core/shell/engine_impl.h"

namespace smcr::core {

void EngineImpl::txWatchdogLocked(uint64_t nowMs) {
    const uint64_t timeoutMs = m_settings.get(SettingId::txCompletionTimeoutMs);
    std::vector<std::shared_ptr<LinkGroup>> groups = m_linkGroups;
    for (auto& lgr : groups) {
        if (lgr->terminated) continue;
        // The added link first: losing it leaves the primary where it is.
        for (Link* link : {lgr->standby(), &lgr->primary()}) {
            if (link == nullptr || !link->txWatchdog.stalled(link->sendSlotsUsed, nowMs, timeoutMs)) continue;
            ++m_stats.txCompletionTimeouts;
            linkLostLocked(lgr, *link);
        }
    }
}

uint64_t EngineImpl::txWatchdogDeadlineMsLocked(uint64_t nowMs) const {
    const uint64_t timeoutMs = m_settings.get(SettingId::txCompletionTimeoutMs);
    uint64_t next = UINT64_MAX;
    for (const auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        for (const auto& link : lgr->links) {
            if (link) next = std::min(next, link->txWatchdog.deadlineMs(link->sendSlotsUsed, nowMs, timeoutMs));
        }
    }
    return next;
}

void EngineImpl::noteBackgroundSleepLocked(uint64_t nowMs, int timeoutMs) {
    // A link whose sends stop completing is found only by this thread. If it
    // sleeps longer than the timeout with no clock running, the first send
    // posted meanwhile wakes it (watchdogOnPostLocked), at most once per sleep.
    const uint64_t limitMs = m_settings.get(SettingId::txCompletionTimeoutMs);
    m_bgWatchdogIdle = limitMs != 0 && (timeoutMs < 0 || static_cast<uint64_t>(timeoutMs) > limitMs) &&
                       txWatchdogDeadlineMsLocked(nowMs) == UINT64_MAX;
}

}  // namespace smcr::core
