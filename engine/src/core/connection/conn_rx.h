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

private:
    uint32_t m_rmbeBytes;
    uint64_t m_produced = 0;   // the peer's producer cursor as a stream offset
    uint64_t m_consumed = 0;   // what the application read
    uint64_t m_announced = 0;  // consumer offset in the last CDC we posted
    Cursor m_producerCursor;
    bool m_peerWriteBlocked = false;
    bool m_peerRequestedUpdate = false;
};

}  // namespace smcr::core
