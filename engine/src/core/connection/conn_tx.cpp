#include "core/connection/conn_tx.h"

#include <algorithm>
#include <cassert>

namespace smcr::core {

ConnTx::ConnTx(uint32_t sndbufBytes, uint32_t peerRmbeBytes)
    : m_sndbufBytes(sndbufBytes), m_peerRmbeBytes(peerRmbeBytes) {}

uint32_t ConnTx::sndbufFreeBytes() const {
    return static_cast<uint32_t>(m_sndbufBytes - (m_prepared - m_finished));
}

RingSpans ConnTx::reserve(uint32_t bytes) const {
    assert(bytes <= sndbufFreeBytes());
    return ringSpans(m_prepared, bytes, m_sndbufBytes);
}

void ConnTx::commit(uint32_t bytes) {
    assert(bytes <= sndbufFreeBytes());
    m_prepared += bytes;
}

uint64_t ConnTx::peerSpaceBytes() const {
    const uint64_t inFlight = m_sent - m_peerConsumed;
    return inFlight >= m_peerRmbeBytes ? 0 : m_peerRmbeBytes - inFlight;
}

TxPlan ConnTx::plan(uint32_t maxBytes) const {
    TxPlan out;
    const uint64_t toSend = unsentBytes();
    const uint64_t space = peerSpaceBytes();
    out.endOffset = m_sent;
    out.producer = producerCursor();
    if (toSend == 0) return out;
    // Linux smc_tx_rdma_writes: write_blocked when the data fills the window.
    out.writeBlocked = toSend >= space;
    uint64_t len = std::min(toSend, space);
    if (maxBytes != 0) len = std::min<uint64_t>(len, maxBytes);
    if (len == 0) return out;
    out.bytes = static_cast<uint32_t>(len);
    const RingSpans dest = ringSpans(m_sent, out.bytes, m_peerRmbeBytes);
    uint64_t src = m_sent;
    for (uint8_t i = 0; i < dest.count; ++i) {
        RdmaWritePlan& w = out.writes[i];
        w.remoteOffset = dest.spans[i].offset;
        w.lengthBytes = dest.spans[i].lengthBytes;
        w.source = ringSpans(src, w.lengthBytes, m_sndbufBytes);
        src += w.lengthBytes;
    }
    out.writeCount = dest.count;
    out.endOffset = m_sent + len;
    out.producer = cursorAt(out.endOffset, m_peerRmbeBytes);
    return out;
}

void ConnTx::markSent(const TxPlan& plan) {
    assert(plan.endOffset >= m_sent && plan.endOffset <= m_prepared);
    m_sent = plan.endOffset;
    m_pendingCdcEnds.push_back(m_sent);
}

void ConnTx::onCdcSendComplete() {
    if (m_pendingCdcEnds.empty()) return;
    m_finished = std::max(m_finished, m_pendingCdcEnds.front());
    m_pendingCdcEnds.pop_front();
}

uint32_t ConnTx::onPeerConsumer(Cursor consumer) {
    const uint32_t diff = cursorDiff(m_peerConsumerCursor, consumer, m_peerRmbeBytes);
    if (diff == 0) return 0;
    // A peer cannot consume what we have not written: clamp a bogus cursor.
    const uint64_t freed = std::min<uint64_t>(diff, m_sent - m_peerConsumed);
    m_peerConsumed += freed;
    m_peerConsumerCursor = cursorAt(m_peerConsumed, m_peerRmbeBytes);
    return static_cast<uint32_t>(freed);
}

}  // namespace smcr::core
