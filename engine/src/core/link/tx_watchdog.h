// The send-completion watchdog of one link, without I/O (the kernel's
// SMC_WR_TX_WAIT_FREE_SLOT_TIME, 10 s: a sender that waits that long for a
// send slot takes the link down, smc_wr_tx_get_free_slot -> smcr_link_down).
//
// A link is stuck when some signaled SEND (CDC or LLC) is outstanding and no
// send completion at all came back for the timeout
// (lab.tx_completion_timeout_ms). A lost completion never returns its slot:
// traffic may go on over the other slots for a while, but once it stops the
// lost slot is all that is left outstanding and the clock runs out.
//
// The hot path only counts completions (onCompletion); the clock is read by
// the engine's timer (the background thread, which polls the CQs right
// before), so a link that merely waited for someone to poll is never blamed.
#pragma once

#include <cstdint>

namespace smcr::core {

class TxWatchdog {
public:
    // A successful send completion of this link.
    void onCompletion() { ++m_completions; }

    // Timer duty: `outstanding` = send slots in use now. True when nothing
    // completed for timeoutMs while something was outstanding (0 = off).
    bool stalled(uint32_t outstanding, uint64_t nowMs, uint64_t timeoutMs);

    // When stalled() should look again (UINT64_MAX: no clock runs).
    uint64_t deadlineMs(uint32_t outstanding, uint64_t nowMs, uint64_t timeoutMs) const;

    uint64_t completions() const { return m_completions; }

private:
    uint64_t m_completions = 0;
    uint64_t m_seen = 0;     // m_completions when the clock (re)started
    uint64_t m_sinceMs = 0;  // when the clock (re)started
    bool m_running = false;  // something was outstanding at the last look
};

}  // namespace smcr::core
