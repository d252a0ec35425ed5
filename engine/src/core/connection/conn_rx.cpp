#include "core/connection/conn_rx.h"

#include <cassert>
#include <cstdint>

namespace smcr::core {

int64_t ConnRx::onProducer(Cursor producer) {
    const uint32_t diff = cursorDiff(m_producerCursor, producer, m_rmbeBytes);
    if (diff == 0) return 0;
    if (m_produced + diff - m_consumed > m_rmbeBytes) return -1;
    m_produced += diff;
    m_producerCursor = producer;
    return diff;
}

void ConnRx::onPeerFlags(bool writeBlocked, bool consumerUpdateRequested) {
    m_peerWriteBlocked = writeBlocked;
    m_peerRequestedUpdate = m_peerRequestedUpdate || consumerUpdateRequested;
}

RingSpans ConnRx::readSpans(uint64_t skip, uint32_t bytes) const {
    assert(skip + bytes <= availableBytes());
    return ringSpans(m_consumed + skip, bytes, m_rmbeBytes);
}

void ConnRx::consume(uint32_t bytes) {
    assert(bytes <= availableBytes());
    m_consumed += bytes;
}

uint32_t ConnRx::readPieceBytes(SenderWaits sender) const {
    const bool awake = sender == SenderWaits::busyPolls ||
                       (sender == SenderWaits::pollsForWindow && m_peerWriteBlocked && m_readerKeepsUp);
    return awake ? core::readPieceBytes(m_rmbeBytes) : UINT32_MAX;
}

void ConnRx::markAnnounced() {
    m_announced = m_consumed;
    m_peerRequestedUpdate = false;
}

bool ConnRx::windowUpdateNeeded(WindowUpdateLimit policy, bool force) const {
    WindowUpdateInput in;
    in.rmbeBytes = m_rmbeBytes;
    in.unannouncedConsumedBytes = m_consumed - m_announced;
    // The sender believes everything after our last announced consumer
    // cursor up to its producer cursor is occupied.
    const uint64_t occupied = m_produced - m_announced;
    in.senderFreeBytes = occupied >= m_rmbeBytes ? 0 : m_rmbeBytes - occupied;
    in.peerWriteBlocked = m_peerWriteBlocked;
    in.peerRequestedUpdate = m_peerRequestedUpdate;
    in.force = force;
    return core::windowUpdateNeeded(policy, in);
}

}  // namespace smcr::core
