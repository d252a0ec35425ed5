// What happens when one link of a link group is lost, without I/O
// (smc-protocol.md section 7 "Failover"; RFC 7609 section 4.5.3; the
// kernel's smcr_link_down / smc_switch_conns / smc_cdc_msg_validate).
//
// Link level: a lost standby link is just dropped; a lost link that carries
// the connections moves them to the surviving active link; with no
// survivor the whole group goes and its connections are aborted. Whoever
// detects the loss locally (QP error, RETRY_EXC, unanswered TEST_LINK) tells
// the peer with DELETE_LINK over the survivor; a DELETE_LINK from the peer
// is answered with a DELETE_LINK response. Either side may start it (the
// kernel lets only the server run the flow; both sides of this engine act
// alike, which needs no role negotiation).
//
// Connection level (ConnectionCore::beginFailover, ConnTx::rewindToConfirmed):
// bytes whose CDC completed on the old link reached the peer; anything
// after that may be lost. The sender rewinds its sent cursor to that point
// (or further, to the peer's consumer cursor when the peer already read
// more), sends a CDC with the failover-validation flag and seqno = the last
// CDC that completed, and then re-writes the unconfirmed bytes. Re-written
// bytes land at the same RMBE offsets with the same content, and a producer
// cursor that is not ahead of the receiver's is ignored, so nothing is
// duplicated. The receiver checks the validation seqno: newer than any CDC
// it saw means CDCs were lost (the connection is aborted); the validation
// CDC itself changes nothing else.
#pragma once

#include <cstdint>

#include <smcr/wire/llc.h>

#include "core/connection/connection_core.h"

namespace smcr::core {

// The links of a group as far as the loss decision cares.
struct LinkSetView {
    uint8_t primaryId = 0;       // the link carrying the connections
    uint8_t standbyId = 0;       // 0 = none (also while ADD_LINK runs: then standbyActive = false)
    bool standbyActive = false;  // CONFIRM_LINK done on the standby
};

enum class LinkLossKind : uint8_t {
    none = 0,        // not a link of this group (already gone): nothing to do
    dropStandby,     // the standby (or a link still being added) is gone
    failover,        // connections move to the standby, which becomes primary
    terminateGroup,  // no survivor: abort every connection
};
const char* linkLossKindName(LinkLossKind kind);

struct LinkLossPlan {
    LinkLossKind kind = LinkLossKind::none;
    // Sent over the surviving link (after the switch, for a failover).
    bool sendDeleteLink = false;
    wire::LlcDeleteLink deleteLink;
};

// lostLinkId: the link that failed. peerRequest: the peer's DELETE_LINK
// request when the peer announced it (answered with a response), nullptr
// when we detected the loss ourselves (announced with a request).
LinkLossPlan planLinkLoss(const LinkSetView& links, uint8_t lostLinkId, wire::DeleteLinkReason reason,
                          const wire::LlcDeleteLink* peerRequest);

// The receiver's check of a failover-validation CDC: staleSeqno-like
// "failoverChecked" when every CDC up to claimedSeqno was seen,
// "failoverLost" when claimedSeqno is newer than the newest one seen.
CdcVerdict checkFailoverValidation(uint16_t lastRxSeqno, uint16_t claimedSeqno);

}  // namespace smcr::core
