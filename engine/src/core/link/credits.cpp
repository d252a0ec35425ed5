#include "core/link/credits.h"

#include <algorithm>

namespace smcr::core {

void LinkCredits::enable(uint32_t localRecvWr, uint8_t peerInitCredits) {
    m_enabled = peerInitCredits > 0;
    m_localCredits = 0;  // every WQE posted so far went out as the initial offer
    if (!m_enabled) {
        m_txCredits = 0;
        return;
    }
    m_txCredits = peerInitCredits;
    m_highWatermark = std::max<uint32_t>(localRecvWr / 3, 2);
    m_lowWatermark = std::max<uint32_t>(uint32_t{peerInitCredits} * 2 / 3, 1);
    m_reserve = peerInitCredits > 1 ? 1 : 0;
}

bool LinkCredits::canSend(CreditSendKind kind) const {
    if (!m_enabled) return true;
    const uint32_t keep = kind == CreditSendKind::announce ? 0 : m_reserve;
    return m_txCredits > keep;
}

bool LinkCredits::take(CreditSendKind kind) {
    if (!m_enabled) return true;
    if (!canSend(kind)) return false;
    const bool wasAbove = m_txCredits > m_lowWatermark;
    --m_txCredits;
    if (wasAbove && m_txCredits <= m_lowWatermark) ++m_lowEvents;
    return true;
}

bool LinkCredits::onPeerCredits(uint32_t credits) {
    if (!m_enabled || credits == 0) return false;
    const bool couldSend = canSend(CreditSendKind::message);
    m_txCredits += credits;
    return !couldSend && canSend(CreditSendKind::message);
}

uint8_t LinkCredits::takeForCdc() {
    if (!m_enabled) return 0;
    const uint32_t n = std::min<uint32_t>(m_localCredits, 255);
    m_localCredits -= n;
    return static_cast<uint8_t>(n);
}

bool LinkCredits::announceDue() const {
    return m_enabled && m_localCredits >= m_highWatermark && canSend(CreditSendKind::announce);
}

}  // namespace smcr::core
