// The sending half of an SMC-R connection's data path, without I/O
// (smc-protocol.md section 3; Linux smc_tx.c behaviour).
//
// Bytes flow: the application copies into the local sndbuf ring (prepared),
// the engine RDMA-writes them into the peer's RMBE and posts a CDC carrying
// the new producer cursor (sent), and the sndbuf space is returned when that
// CDC's send completion arrives (finished). The peer frees RMBE space by
// announcing its consumer cursor in CDCs it sends us.
//
// All offsets are 64-bit stream offsets; the wire cursors derive from them.
#pragma once

#include <array>
#include <cstdint>
#include <deque>

#include "core/connection/cursor.h"
#include "core/connection/ring_span.h"

namespace smcr::core {

// One RDMA WRITE: a contiguous range of the peer RMBE, gathered from at most
// two pieces of the sndbuf (when the sndbuf wraps).
struct RdmaWritePlan {
    uint32_t remoteOffset = 0;  // offset inside the peer RMBE
    uint32_t lengthBytes = 0;
    RingSpans source;  // pieces of the local sndbuf
};

// What to transmit now: at most two WRITEs (the peer RMBE wraps at most once
// per CDC), then one CDC whose producer cursor is `producer`.
struct TxPlan {
    std::array<RdmaWritePlan, 2> writes{};
    uint8_t writeCount = 0;
    uint32_t bytes = 0;
    uint64_t endOffset = 0;     // stream offset after these bytes
    Cursor producer;            // endOffset as a cursor in the peer RMBE
    bool writeBlocked = false;  // unsent data fills (or exceeds) the peer's space
};

class ConnTx {
public:
    ConnTx(uint32_t sndbufBytes, uint32_t peerRmbeBytes);

    uint32_t sndbufBytes() const { return m_sndbufBytes; }
    uint32_t peerRmbeBytes() const { return m_peerRmbeBytes; }

    // Room in the sndbuf for new application bytes.
    uint32_t sndbufFreeBytes() const;
    // Where to copy the next `bytes` application bytes (bytes <= free).
    RingSpans reserve(uint32_t bytes) const;
    // The bytes reserved were copied: they are now prepared for sending.
    void commit(uint32_t bytes);

    uint64_t unsentBytes() const { return m_prepared - m_sent; }
    uint64_t inFlightBytes() const { return m_sent - m_peerConsumed; }
    // Free bytes in the peer RMBE as far as we know.
    uint64_t peerSpaceBytes() const;

    // What to RDMA-write now (pure; nothing changes until markSent()).
    // `maxBytes` caps the size of this push (0 = no cap).
    TxPlan plan(uint32_t maxBytes = 0) const;
    // The plan's WRITEs and its CDC were posted.
    void markSent(const TxPlan& plan);
    // A CDC without new data (window update, close flags) was posted.
    void markControlSent() { m_pendingCdcEnds.push_back(m_sent); }
    // The oldest outstanding CDC completed: its data no longer needs the sndbuf.
    void onCdcSendComplete();
    uint32_t pendingCdcCount() const { return static_cast<uint32_t>(m_pendingCdcEnds.size()); }

    // The peer's consumer cursor from a CDC; returns the bytes it freed.
    // Backward or stale cursors free nothing.
    uint32_t onPeerConsumer(Cursor consumer);
    Cursor producerCursor() const { return cursorAt(m_sent, m_peerRmbeBytes); }

    // Everything prepared was sent and every CDC completed.
    bool drained() const { return m_prepared == m_finished && m_pendingCdcEnds.empty(); }
    uint64_t sentOffset() const { return m_sent; }
    // Failover (link_failover.cpp): forget what was sent after the last
    // completed CDC, so it goes again over the surviving link.
    void rewindToConfirmed();
    uint64_t preparedOffset() const { return m_prepared; }

private:
    uint32_t m_sndbufBytes;
    uint32_t m_peerRmbeBytes;
    uint64_t m_prepared = 0;      // copied into the sndbuf by the application
    uint64_t m_sent = 0;          // written to the peer (producer cursor)
    uint64_t m_finished = 0;      // sndbuf space returned (CDC completed)
    uint64_t m_peerConsumed = 0;  // the peer's consumer cursor, as a stream offset
    Cursor m_peerConsumerCursor;
    std::deque<uint64_t> m_pendingCdcEnds;  // m_sent at each posted CDC, oldest first
};

}  // namespace smcr::core
