#include "core/link/tx_watchdog.h"

namespace smcr::core {

bool TxWatchdog::stalled(uint32_t outstanding, uint64_t nowMs, uint64_t timeoutMs) {
    if (timeoutMs == 0 || outstanding == 0) {
        m_running = false;
        m_seen = m_completions;
        return false;
    }
    if (!m_running || m_completions != m_seen) {
        // First look with sends outstanding, or the link made progress since
        // the last look: the clock starts (again) now.
        m_running = true;
        m_seen = m_completions;
        m_sinceMs = nowMs;
        return false;
    }
    return nowMs - m_sinceMs >= timeoutMs;
}

uint64_t TxWatchdog::deadlineMs(uint32_t outstanding, uint64_t nowMs, uint64_t timeoutMs) const {
    if (timeoutMs == 0 || outstanding == 0) return UINT64_MAX;
    // Sends went out since the last look: look at once to start the clock.
    if (!m_running) return nowMs;
    return m_sinceMs + timeoutMs;
}

}  // namespace smcr::core
