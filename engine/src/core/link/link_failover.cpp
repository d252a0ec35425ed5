#include "core/link/link_failover.h"

#include <algorithm>

namespace smcr::core {

const char* linkLossKindName(LinkLossKind kind) {
    switch (kind) {
        case LinkLossKind::none:
            return "none";
        case LinkLossKind::dropStandby:
            return "dropStandby";
        case LinkLossKind::failover:
            return "failover";
        case LinkLossKind::terminateGroup:
            return "terminateGroup";
    }
    return "?";
}

LinkLossPlan planLinkLoss(const LinkSetView& links, uint8_t lostLinkId, wire::DeleteLinkReason reason,
                          const wire::LlcDeleteLink* peerRequest) {
    LinkLossPlan plan;
    if (lostLinkId == 0) return plan;
    if (lostLinkId == links.standbyId) {
        plan.kind = LinkLossKind::dropStandby;
    } else if (lostLinkId == links.primaryId) {
        plan.kind = links.standbyId != 0 && links.standbyActive ? LinkLossKind::failover : LinkLossKind::terminateGroup;
    }
    // The peer always hears about it (a response also for a link we no
    // longer know, kernel DELETE_LINK reason "unknown link"), unless no link
    // is left to carry the message.
    if (plan.kind == LinkLossKind::terminateGroup) return plan;
    if (peerRequest != nullptr) {
        plan.sendDeleteLink = true;
        plan.deleteLink = *peerRequest;
        plan.deleteLink.response = true;
        if (plan.kind == LinkLossKind::none)
            plan.deleteLink.reason = static_cast<uint32_t>(wire::DeleteLinkReason::unknownLink);
    } else if (plan.kind != LinkLossKind::none) {
        plan.sendDeleteLink = true;
        plan.deleteLink.linkNumber = lostLinkId;
        plan.deleteLink.reason = static_cast<uint32_t>(reason);
    }
    return plan;
}

CdcVerdict checkFailoverValidation(uint16_t lastRxSeqno, uint16_t claimedSeqno) {
    // 16-bit serial comparison, as for every CDC seqno (kernel smc_cdc_msg_validate).
    const auto diff = static_cast<int16_t>(static_cast<uint16_t>(lastRxSeqno - claimedSeqno));
    return diff < 0 ? CdcVerdict::failoverLost : CdcVerdict::failoverChecked;
}

// ---- members of the connection core used on failover ------------------------

void ConnTx::rewindToConfirmed() {
    // The peer read beyond the last completed CDC: those bytes arrived too.
    if (m_peerConsumed > m_finished) m_finished = m_peerConsumed;
    m_sent = m_finished;
    m_pendingCdcEnds.clear();
}

CdcInfo ConnectionCore::beginFailover() {
    // CDCs complete in order on one QP: the last one that completed is the
    // newest seqno minus the ones still outstanding.
    const auto confirmed = static_cast<uint16_t>(m_txSeqno - m_tx.pendingCdcCount());
    m_tx.rewindToConfirmed();
    // The validation CDC completes like any other CDC (it keeps the
    // completion queue of this connection in step) but takes no seqno.
    m_tx.markControlSent();
    // Whatever was not confirmed goes again after it, with a fresh consumer cursor.
    m_cdcOwed = true;
    CdcInfo cdc;
    cdc.seqno = confirmed;
    cdc.alertToken = m_params.peerToken;
    cdc.prodFlags.failoverValidation = true;
    return cdc;
}

}  // namespace smcr::core
