// A link lost from a multi-link group is retired, not destroyed at once
// (MultiLink::retired, link_group.h). Its QP is in ERR and completions still
// come for it after the connections switched to the survivor:
// - flushed WRs, sends and receives: ignored (the loss is handled, and the
//   survivor's send slots are not the dead link's);
// - send completions, successful ones too: ignored (the connections rewound
//   to their last confirmed CDC, ConnectionCore::beginFailover, and their
//   pending CDCs now belong to the survivor);
// - successful receives: a CDC the peer posted before the link went down.
//   The peer saw that SEND complete, so its failover validation CDC counts
//   the seqno as delivered; had we dropped the CDC, our check would find a
//   CDC "lost" and abort the connection (smc-protocol.md section 7, the
//   kernel's smc_cdc_msg_validate). The kernel hands a CDC to its connection
//   by token whatever state the link is in (smc_cdc_rx_handler); so do we.
//   LLC messages of a link that is down are dropped (smc_llc_rx_handler
//   ignores unusable links).
// Why a receive completes after the failover was decided: the peer may be
// placing a SEND in a receive WQE of ours at the moment our QP goes to ERR.
// It took the WQE before the flush, so the peer's SEND succeeds, but the
// flushed completions of the later WQEs may reach our CQ before its receive
// completion (the sim's responder claims the WQE, then the CQE slot), and
// the first flushed completion already fails the link over.
#include <algorithm>
#include <cstring>

#include <smcr/wire/cdc.h>

#include "core/shell/engine_impl.h"
#include "core/shell/wr_id.h"

namespace smcr::core {

void EngineImpl::retireLinkLocked(LinkGroup& lgr, std::unique_ptr<Link> link) {
    // One retired link per group: its late completions come right after the
    // flush (before the peer could answer our DELETE_LINK); an older one is
    // long drained.
    freeRetiredLinkLocked(lgr);
    if (!link || !link->qp) return;
    (void)link->qp->setError();  // flushes whatever is still outstanding
    if (lgr.terminated) {
        m_lgrByQpn.erase(link->qp->qpn());
        return;
    }
    // Its QPN stays mapped to the group (m_lgrByQpn) so that its completions
    // find it here (onRetiredCompletionLocked).
    lgr.multi.retired = std::move(link);
}

void EngineImpl::freeRetiredLinkLocked(LinkGroup& lgr) {
    std::unique_ptr<Link> old = std::move(lgr.multi.retired);
    if (old && old->qp) m_lgrByQpn.erase(old->qp->qpn());
}

bool EngineImpl::onRetiredCompletionLocked(const std::shared_ptr<LinkGroup>& lgr, const fabric::WorkCompletion& wc,
                                           bool recv) {
    const Link* link = lgr->multi.retired.get();
    if (link == nullptr || !link->qp || wc.qpNum != link->qp->qpn()) return false;
    if (!recv || wc.status != fabric::WcStatus::success || wc.byteLen < kWrMessageBytes || lgr->terminated) {
        return true;
    }
    const uint32_t slot = wrValue(wc.wrId);
    if (wrKind(wc.wrId) != WrKind::recv || slot >= link->recvWr || !link->recvBuffers) return true;
    // Never reposted: the slot still holds the message.
    const uint8_t* bytes = link->recvBuffers->data() + uint64_t{slot} * kWrBufferBytes;
    if (bytes[0] != wire::kCdcType) return true;
    ++m_stats.retiredLinkCdcs;
    const std::optional<ReceivedCdc> cdc = decodeReceivedCdc(bytes);
    if (!cdc) return true;  // a wrong length byte: dropped like the kernel
    LinkRxFlow& flow = lgr->primary().flow;
    if (flow.backlog.empty()) {
        onCdcLocked(*lgr, cdc->info);
        return true;
    }
    // CDCs of the group still wait in the RX backlog (lab.rx_backlog,
    // lab.rx_repost_delay_us): this one arrived after them and goes behind.
    // Its RQ credits (byte 26) were the dead link's: they grant nothing on
    // the survivor.
    RxPending p;
    p.dueNs = std::max(monotonicNs(), flow.backlog.back().dueNs);
    p.qpn = wc.qpNum;
    p.slot = RxPending::kRefilled;  // a dead link's slot is never refilled
    p.cdc = ReceivedCdc{cdc->info, 0};
    flow.backlog.push_back(p);
    return true;
}

}  // namespace smcr::core
