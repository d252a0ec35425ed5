// The receiving half of an SMC-R connection's data path, without I/O
// (smc-protocol.md section 3; Linux smc_rx.c / smc_cdc.c behaviour).
// The peer RDMA-writes into our RMBE and announces the new producer cursor
// in a CDC; the application copies out and advances the consumer cursor,
// which goes back to the peer in our next CDC (a "window update" when no
// data rides along).
#pragma once

#include <cstdint>

#include "core/connection/cursor.h"
#include "core/connection/ring_span.h"
#include "core/connection/window_policy.h"

namespace smcr::core {

class ConnRx {
public:
    explicit ConnRx(uint32_t rmbeBytes) : m_rmbeBytes(rmbeBytes) {}

    uint32_t rmbeBytes() const { return m_rmbeBytes; }

    // A CDC's producer cursor: returns the new bytes it makes readable, or
    // -1 when the cursor claims more than the RMBE holds (protocol violation).
    int64_t onProducer(Cursor producer);
    // The flags of the latest CDC that matter for window updates.
    void onPeerFlags(bool writeBlocked, bool consumerUpdateRequested);

    uint64_t availableBytes() const { return m_produced - m_consumed; }
    // Where bytes [skip, skip + bytes) of the readable data lie in the RMBE.
    RingSpans readSpans(uint64_t skip, uint32_t bytes) const;
    void consume(uint32_t bytes);

    Cursor consumerCursor() const { return cursorAt(m_consumed, m_rmbeBytes); }
    // A CDC carrying consumerCursor() was posted.
    void markAnnounced();
    bool windowUpdateNeeded(WindowUpdateLimit policy, bool force = false) const;
    uint64_t unannouncedBytes() const { return m_consumed - m_announced; }

    // How the sender waits, as the reader's decisions assume it (both ends
    // of the lab run the same settings): it busy-polls (lab.busy_poll_us),
    // polls only while blocked on our window (lab.window_spin_us), or sleeps.
    enum class SenderWaits : uint8_t { invalid, sleeps, pollsForWindow, busyPolls };
    // How a recv came by its data. A reader that polled for it and caught it
    // is faster than its sender, which is then awake refilling; one that
    // found data queued is the slower end, and one that slept did not see
    // the sender answer in time: either way a sender blocked on it may have
    // given up polling and gone to sleep.
    enum class RecvWait : uint8_t { invalid, none, polled, slept };
    void onRecv(RecvWait wait) { m_readerKeepsUp = wait == RecvWait::polled; }
    // How much one copy of a read takes before the window rule is checked
    // (window_policy.h readPieceBytes): pieces while the sender is awake to
    // refill what each announces (busy polling, or blocked on our window
    // with a window spin while this reader catches its bytes polling), else
    // the whole read: a sleeping sender would wake for every piece.
    uint32_t readPieceBytes(SenderWaits sender) const;
    // The peer's last CDC said it is blocked on our window, and we read all
    // there was and announced it: its bytes are on their way (the window update
    // releases them), one CDC and one RDMA write from now. A reader that
    // finds nothing to read then waits for them on the CPU, not asleep.
    bool peerRefillExpected() const { return m_peerWriteBlocked && m_announced == m_consumed && availableBytes() == 0; }

private:
    uint32_t m_rmbeBytes;
    uint64_t m_produced = 0;   // the peer's producer cursor as a stream offset
    uint64_t m_consumed = 0;   // what the application read
    uint64_t m_announced = 0;  // consumer offset in the last CDC we posted
    Cursor m_producerCursor;
    bool m_peerWriteBlocked = false;
    bool m_peerRequestedUpdate = false;
    bool m_readerKeepsUp = false;  // the current recv caught its data polling
};

}  // namespace smcr::core
