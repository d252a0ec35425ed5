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
#include "core/shell/engine_impl.h"

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
    // find it (LinkGroup::retiredByQpn, engine_receive.cpp).
    lgr.multi.retired = std::move(link);
}

void EngineImpl::freeRetiredLinkLocked(LinkGroup& lgr) {
    std::unique_ptr<Link> old = std::move(lgr.multi.retired);
    if (old && old->qp) m_lgrByQpn.erase(old->qp->qpn());
}

}  // namespace smcr::core
