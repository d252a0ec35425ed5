// The shell around LinkCredits (credits.h) and the RX backlog: receive
// refill order, credits in and out of CDCs and ANNOUNCE_CREDITS, the
// receive-side lab knobs, and the RNR counters of the fabric.
//
// Receive order (seed 004): the kernel's rx tasklet handles a message and
// then refills its receive WQE, so a receive path that runs late leaves the
// queue dry and the peer's SENDs meet RNR NAKs. lab.rx_repost_delay_us models
// that slow path: a CDC is handled, and its WQE refilled, that many
// microseconds after its completion was polled (a tasklet that runs late
// behind busy application threads). It is time, not work: the CDC waits in
// the link's queue and no CPU is spent meanwhile, so the knob holds receive
// WQEs without capping what either process can do on a small host (a busy
// wait here would burn the CPU both processes need and hold the engine lock).
// lab.rx_backlog refills first and hands CDC processing to the same queue,
// drained after the completion batch (or after the delay).
// The receive path that applies this order to every link is
// EngineImpl::receiveLocked (engine_receive.cpp); the queue is drained here.
#include <cstring>

#include <smcr/wire/cdc.h>

#include "core/shell/engine_impl.h"
#include "core/shell/wr_id.h"

namespace smcr::core {

uint8_t EngineImpl::creditOfferLocked(const Link& link) const {
    if (m_settings.get(SettingId::rqCredits) == 0) return 0;
    return LinkCredits::offerFor(link.recvWr);
}

bool EngineImpl::refillRecvLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link, uint32_t slot) {
    if (lgr->terminated) return false;
    if (Status s = link.postRecv(slot); !s) {
        // The link cannot take work. Its QP goes to ERR: the flushed WRs come
        // back as error completions behind everything that already completed
        // (so no received CDC is skipped), and those fail the link over to a
        // second link, drop the added link or end the group (engine_rx.cpp).
        // This message arrived intact and is still handled.
        if (link.qp->setError()) return true;
        linkLostLocked(lgr, link);
        return false;
    }
    link.flow.credits.onRecvReposted();
    return true;
}

bool EngineImpl::runRxQueueLocked(const std::shared_ptr<LinkGroup>& lgr, uint64_t nowNs) {
    bool any = false;
    // The backlog is the primary's; a failover moves it to the survivor.
    while (!lgr->primary().flow.backlog.empty() && !lgr->terminated &&
           lgr->primary().flow.backlog.front().dueNs <= nowNs) {
        LinkRxFlow& flow = lgr->primary().flow;
        const RxPending p = flow.backlog.front();
        flow.backlog.pop_front();
        any = true;
        onCdcLocked(*lgr, p.cdc.info);
        // Handled, then refilled (the kernel's order). A slot of a QP that
        // failed over meanwhile went with it.
        Link& link = lgr->primary();
        if (p.slot != RxPending::kRefilled && link.qp->qpn() == p.qpn && !refillRecvLocked(lgr, link, p.slot)) {
            break;  // the group ended
        }
        // The credits it carried last: the senders they release go after the
        // refill, as the kernel's woken senders run after its rx tasklet, so
        // their CDCs take the reposted WQE back to the peer (byte 26) instead
        // of leaving it to an ANNOUNCE_CREDITS. The knob models a late
        // tasklet, whose credit put is late too. Taking them at arrival
        // instead (tried) broke that pairing: bench kv --preset credits sent
        // 85% of the credits by LLC, ~12 per message, instead of 40%.
        if (takeCdcCreditsLocked(link, p.cdc.credits)) serviceSlotWaitersLocked(*lgr, link);
    }
    if (lgr->terminated) lgr->primary().flow.backlog.clear();
    return any;
}

bool EngineImpl::serviceRxQueuesLocked() {
    // Called on every progress: a cheap look first.
    uint64_t nowNs = 0;
    bool due = false;
    for (const auto& lgr : m_linkGroups) {
        const LinkRxFlow& flow = lgr->primary().flow;
        if (flow.backlog.empty()) continue;
        if (nowNs == 0) nowNs = monotonicNs();
        if (flow.backlog.front().dueNs <= nowNs) {
            due = true;
            break;
        }
    }
    if (!due) return false;
    std::vector<std::shared_ptr<LinkGroup>> groups = m_linkGroups;  // handling may end a group
    bool any = false;
    for (auto& lgr : groups) {
        if (!runRxQueueLocked(lgr, nowNs)) continue;
        any = true;
        announceCreditsLocked(*lgr, lgr->primary());  // the refills may owe the peer an announcement
    }
    return any;
}

uint64_t EngineImpl::nextRxDueNsLocked() const {
    uint64_t next = 0;
    for (const auto& lgr : m_linkGroups) {
        const LinkRxFlow& flow = lgr->primary().flow;
        if (flow.backlog.empty()) continue;
        const uint64_t due = flow.backlog.front().dueNs;
        if (next == 0 || due < next) next = due;
    }
    return next;
}

bool EngineImpl::takeCdcCreditsLocked(Link& link, uint8_t credits) {
    if (credits == 0) return false;
    if (!link.onPeerCredits(credits)) {
        // Byte 26 is reserved without the extension: count, never act on it.
        ++m_stats.cdcReservedNonzero;
        return false;
    }
    return true;
}

void EngineImpl::onAnnounceCreditsLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link,
                                         const wire::LlcAnnounceCredits& msg) {
    if (!link.onPeerCredits(msg.credits)) {
        // Not negotiated on this link: 0x0A is an unknown LLC type here, as in the kernel.
        terminateLinkGroupLocked(lgr, wire::DeleteLinkReason::protocolViolation, PeerNotice::deleteLink);
        return;
    }
    serviceSlotWaitersLocked(*lgr, link);
}

void EngineImpl::announceCreditsLocked(LinkGroup& lgr, Link& link) {
    // Only when no CDC took the owed credits along (callers run after the
    // completion batch and its pushes) and a send slot is free; a slot that
    // frees later brings us back here.
    if (lgr.terminated) return;
    if (auto msg = link.takeCreditAnnouncement()) {
        (void)postLlcLocked(lgr, link, wire::encode(*msg),
                            CreditSendKind::announce);  // failures surface as a lost link
    }
}

void EngineImpl::afterRecvBatchLocked() {
    std::vector<std::shared_ptr<LinkGroup>> groups = m_linkGroups;
    const uint64_t nowNs = monotonicNs();
    for (auto& lgr : groups) {
        runRxQueueLocked(lgr, nowNs);  // lab.rx_backlog without a delay: all of it
        announceCreditsLocked(*lgr, lgr->primary());
    }
}

void EngineImpl::addFlowStatsLocked(EngineStats& out) {
    auto add = [&out](const LinkRxFlow& f) {
        if (f.credits.enabled()) ++out.creditLinks;
        out.creditsReceived += f.creditsReceived;
        out.creditsAnnouncedCdc += f.announcedByCdc;
        out.creditsAnnouncedLlc += f.announcedByLlc;
        out.creditAnnounceLlcs += f.announceLlcs;
        out.creditsLowEvents += f.credits.lowEvents();
        out.rxBacklogMax = std::max<uint64_t>(out.rxBacklogMax, f.backlogMax);
    };
    for (const auto& lgr : m_linkGroups) {
        for (const auto& link : lgr->links) {
            if (link) add(link->flow);  // an added link's credits: ADD_LINK byte 36
        }
    }
}

}  // namespace smcr::core
