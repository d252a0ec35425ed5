// Multi-link groups over the fabric (smc-protocol.md sections 2 and 7):
// the server adds a second link on its second port with ADD_LINK once the
// first link is confirmed; LLC on both links; when a link fails its
// connections move to the survivor (DELETE_LINK, CDC failover validation,
// re-send from the last confirmed cursor); new RMBs are announced with
// CONFIRM_RKEY and withdrawn with DELETE_RKEY while a second link exists.
// New connections are balanced over both links (the one with fewer
// connections, like the kernel's smcr_lgr_conn_assign_link); RQ credits of
// the added link travel in ADD_LINK byte 36 (seed 004); after a lost link the
// server adds a new one once the free port can take it.
// The decisions come from the functional core (add_link_flow.h,
// link_failover.h, rkey_table.h); this file does the I/O.
#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include <smcr/wire/cdc.h>

#include "core/link/link_failover.h"
#include "core/shell/engine_impl.h"
#include "core/shell/handshake_io.h"
#include "core/shell/wr_id.h"

namespace smcr::core {

namespace {

// After a lost link the server adds one again (lab.link_readd_ms; the
// kernel does on a port event; the client only answers ADD_LINK).
void scheduleReadd(LinkGroup& lgr, uint64_t delayMs, uint64_t nowMs) {
    if (lgr.role == Side::server && delayMs != 0 && !lgr.terminated) lgr.multi.readdAtMs = nowMs + delayMs;
}

wire::RkeyPair ownRkeyPair(const fabric::MemoryRegion& rmb) {
    // One protection domain for both ports: the RMB has the same rkey and
    // address on both links (the kernel registers per link because its links
    // may sit on different devices).
    return wire::RkeyPair{rmb.rkey(), rmb.rkey(), rmb.address()};
}

}  // namespace

// ---- creating and connecting the second link -----------------------------------

namespace {

// The port a second link uses: an active one other than the first link's.
const fabric::PortInfo* alternatePort(const fabric::DeviceInfo& info, uint8_t primaryPort) {
    for (const fabric::PortInfo& p : info.ports) {
        if (p.active && p.portNum != primaryPort) return &p;
    }
    return nullptr;
}

std::vector<wire::RkeyPair> ownRkeys(LinkGroup& lgr) {
    std::vector<wire::RkeyPair> out;
    std::set<uint32_t> seen;
    for (auto& [token, conn] : lgr.conns) {
        if (conn->rmb == nullptr || conn->released || !seen.insert(conn->rmbId).second) continue;
        out.push_back(ownRkeyPair(*conn->rmb));
        lgr.multi.announcedRmbs.insert(conn->rmbId);
    }
    return out;
}

}  // namespace

void EngineImpl::startAddLinkLocked(const std::shared_ptr<LinkGroup>& lgr) {
    MultiLink& multi = lgr->multi;
    if (lgr->role != Side::server || lgr->terminated || lgr->standby() || multi.addLinkTried) return;
    multi.addLinkTried = true;
    if (m_settings.get(SettingId::maxLinksPerLgr) < 2) return;
    if (lgr->llcVersion == wire::LlcVersion::v2) return;  // libsmcr negotiates one link in SMC-Rv2 (kV2MaxLinks)
    const fabric::PortInfo* port = alternatePort(m_device->info(), lgr->primary().portNum);
    if (port == nullptr) return;  // one port: nothing to add (the kernel's "no alternate path")
    // The same WR budget as the first link.
    auto link = makeLinkLocked(lgr, *port, multi.nextLinkId++, lgr->primary().sendSlots, lgr->primary().recvWr);
    if (!link) {
        ++m_stats.addLinkFailed;
        return;
    }
    Link& added = *(lgr->links[lgr->current ^ 1u] = std::move(link.value()));
    multi.flow = std::make_unique<AddLinkFlow>(Side::server, m_settings.get(SettingId::llcWaitMs));
    // lab.rq_credits: the new link's receive WQEs, offered in byte 36.
    multi.flow->setCreditOffer(creditOfferLocked(added));
    std::random_device rd;
    AddLinkActions a = multi.flow->start(added.local, added.linkId(), rd(), ownRkeys(*lgr), monotonicMs());
    for (const auto& m : a.sendOnCurrent) (void)postLlcLocked(*lgr, wire::encodeLlc(m));
}

// One place that carries out AddLinkActions (used by every flow event).
void EngineImpl::applyAddLinkLocked(LinkGroup& lgr, const AddLinkActions& a) {
    MultiLink& multi = lgr.multi;
    // Credits before the first SEND on the new link (its CONFIRM_LINK).
    if (a.peerInitCredits > 0 && lgr.standby()) lgr.standby()->enableCredits(a.peerInitCredits);
    for (const wire::RkeyPair& pair : a.learnedRkeys) multi.peerRkeys.learn(pair);
    bool failed = a.abandon;
    if (!failed && a.bringUp && lgr.standby()) {
        const fabric::PathMtu mtu = std::min(mtuFromWire(a.bringUp->mtu), m_port.activeMtu);
        failed = !lgr.standby()->bringUp(*a.bringUp, mtu);
    }
    if (!failed) {
        for (const auto& m : a.sendOnCurrent) (void)postLlcLocked(lgr, wire::encodeLlc(m));
        if (a.sendOnNew && lgr.standby()) {
            failed = !postLlcLocked(lgr, *lgr.standby(), wire::encodeLlc(*a.sendOnNew));
        }
    }
    if (!failed && a.linkActive && lgr.standby()) {
        lgr.standby()->core->activate(monotonicMs());
        ++m_stats.linksAdded;
    }
    if (failed) {
        ++m_stats.addLinkFailed;
        dropStandbyLocked(lgr);
    }
}

bool EngineImpl::onMultiLinkLlcLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcMessage& msg) {
    MultiLink& multi = lgr->multi;
    const uint64_t nowMs = monotonicMs();
    auto apply = [&](const AddLinkActions& a) { applyAddLinkLocked(*lgr, a); };
    if (const auto* add = std::get_if<wire::LlcAddLink>(&msg)) {
        if (add->response) {
            if (multi.flow) apply(multi.flow->onResponse(*add, nowMs));
            return true;
        }
        // Client: take the second link when we may (setting, a second port,
        // none yet); otherwise LinkCore rejects as the kernel does.
        if (lgr->role != Side::client || lgr->standby() || m_settings.get(SettingId::maxLinksPerLgr) < 2) {
            return false;
        }
        const fabric::PortInfo* port = alternatePort(m_device->info(), lgr->primary().portNum);
        if (port == nullptr) return false;
        auto link = makeLinkLocked(lgr, *port, add->linkNumber, lgr->primary().sendSlots, lgr->primary().recvWr);
        if (!link) return false;
        Link& added = *(lgr->links[lgr->current ^ 1u] = std::move(link.value()));
        multi.flow = std::make_unique<AddLinkFlow>(Side::client, m_settings.get(SettingId::llcWaitMs));
        multi.flow->setCreditOffer(creditOfferLocked(added));  // answered only when the request offers
        std::random_device rd;
        apply(multi.flow->onRequest(*add, added.local, rd(), ownRkeys(*lgr), nowMs));
        return true;
    }
    if (const auto* cont = std::get_if<wire::LlcAddLinkCont>(&msg)) {
        if (multi.flow) apply(multi.flow->onCont(*cont, nowMs));
        return true;
    }
    if (const auto* del = std::get_if<wire::LlcDeleteLink>(&msg)) {
        if (del->response) return true;
        if (del->allLinks) return false;  // the whole group: LinkCore ends it
        LinkSetView view{lgr->primary().linkId(), lgr->standby() ? lgr->standby()->linkId() : uint8_t{0},
                         lgr->standbyActive()};
        const LinkLossPlan plan =
            planLinkLoss(view, del->linkNumber, static_cast<wire::DeleteLinkReason>(del->reason), del);
        if (plan.kind == LinkLossKind::terminateGroup) return false;
        if (plan.kind == LinkLossKind::failover) {
            // The response goes first over the survivor, then the validations.
            failoverLocked(lgr, &plan.deleteLink);
            return true;
        }
        if (plan.kind == LinkLossKind::dropStandby) {
            ++m_stats.linksDown;
            moveConnsOffStandbyLocked(*lgr);
            dropStandbyLocked(*lgr);
            scheduleReadd(*lgr, m_settings.get(SettingId::linkReaddMs), nowMs);
        }
        if (plan.sendDeleteLink) (void)postLlcLocked(*lgr, wire::encode(plan.deleteLink));
        serviceValidationsLocked(*lgr);  // balanced connections moved back to the first link
        serviceSlotWaitersLocked(*lgr, lgr->primary());
        wakeSleepersLocked();
        return true;
    }
    if (const auto* confirm = std::get_if<wire::LlcConfirmRkey>(&msg)) {
        if (confirm->response) {
            if (!confirm->negative) ++m_stats.rkeysConfirmed;
            return true;
        }
        if (!lgr->standby()) return false;  // one link: LinkCore confirms
        const Status answered =
            postLlcLocked(*lgr, wire::encode(multi.peerRkeys.onConfirmRkey(*confirm, lgr->standby()->linkId())));
        countPeerRkeyRequest(msg, answered.ok(), m_stats);
        return true;
    }
    if (const auto* del = std::get_if<wire::LlcDeleteRkey>(&msg)) {
        if (del->response) {
            m_stats.rkeysDeleted += deletedRkeyCount(*del);
            return true;
        }
        if (!lgr->standby()) return false;  // one link: LinkCore answers
        const Status answered = postLlcLocked(*lgr, wire::encode(multi.peerRkeys.onDeleteRkey(*del)));
        countPeerRkeyRequest(msg, answered.ok(), m_stats);
        return true;
    }
    return false;
}

// ---- the added link's receives and a lost link --------------------------------------

LinkActions EngineImpl::pollLinkLocked(LinkGroup& lgr, Link& link, uint64_t nowMs) {
    LinkActions a = link.core->poll(nowMs);
    if (a.send) {
        ++m_stats.testLinksSent;
        (void)postLlcLocked(lgr, link, wire::encodeLlc(*a.send));  // a failed post shows as a lost link
    }
    return a;
}

void EngineImpl::linkLostLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link) {
    if (!lgr->isPrimary(link)) {
        // The added link: its connections move to the first link, the peer
        // hears of it over the first link.
        standbyLinkLostLocked(*lgr);
        return;
    }
    // With a second link the connections move over; otherwise the group ends.
    if (!primaryLinkLostLocked(lgr, wire::DeleteLinkReason::lostPath)) {
        terminateLinkGroupLocked(lgr, wire::DeleteLinkReason::lostPath, PeerNotice::none);
    }
}

// ---- balancing connections over two links ------------------------------------------

void EngineImpl::assignLinkLocked(LinkGroup& lgr, Connection& conn) {
    // The kernel's smcr_lgr_conn_assign_link: the active link with the fewest
    // connections (ties: the first link).
    conn.assignment.assign(false);
    if (lgr.terminated || !lgr.standbyActive()) return;
    size_t onFirst = 0;
    size_t onAdded = 0;
    for (const auto& [token, other] : lgr.conns) {
        if (other.get() == &conn || other->released) continue;
        ++(other->assignment.wantsStandby() ? onAdded : onFirst);
    }
    conn.assignment.assign(onAdded < onFirst);
}

void EngineImpl::switchToStandbyLocked(Connection& conn) {
    LinkGroup& lgr = *conn.lgr;
    MultiLink& multi = lgr.multi;
    if (!lgr.standbyActive()) return;
    // Only with nothing outstanding: RC ordering on the first link has then
    // placed every byte and CDC, so no CDC on the new link can overtake them.
    if (!conn.core || conn.queuedForSlot || conn.core->tx().pendingCdcCount() > 0) return;
    // The peer's RMB must be known on the added link (ADD_LINK_CONT or
    // CONFIRM_RKEY); until then the connection stays where it is.
    const auto rmb = multi.peerRkeys.onOtherLink(conn.assignment.primaryRmb.rkey);
    if (!rmb) return;
    conn.assignment.switchToStandby(PeerRmb{rmb->vaddr, rmb->rkey});
}

// ---- failover -------------------------------------------------------------------

bool EngineImpl::primaryLinkLostLocked(const std::shared_ptr<LinkGroup>& lgr, wire::DeleteLinkReason reason) {
    if (lgr->terminated) return false;
    const Link* standby = lgr->standby();
    LinkSetView view{lgr->primary().linkId(), standby ? standby->linkId() : uint8_t{0}, lgr->standbyActive()};
    const LinkLossPlan plan = planLinkLoss(view, lgr->primary().linkId(), reason, nullptr);
    if (plan.kind != LinkLossKind::failover) return false;
    failoverLocked(lgr, &plan.deleteLink);
    return true;
}

void EngineImpl::failoverLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcDeleteLink* announce) {
    MultiLink& multi = lgr->multi;
    // The added link carries the connections from now on (the kernel moves
    // them to another lnk[] entry, smc_switch_conns).
    std::unique_ptr<Link> old = std::move(lgr->links[lgr->current]);
    lgr->current ^= 1u;
    Link& survivor = lgr->primary();
    // CDCs already received on the old link still wait to be processed
    // (lab.rx_backlog), before the survivor's own; the old link's
    // connections wait for a slot before those balanced onto the survivor.
    for (auto& cdc : survivor.flow.backlog) old->flow.backlog.push_back(cdc);
    survivor.flow.backlog = std::move(old->flow.backlog);
    for (auto& w : survivor.slotWaiters) old->slotWaiters.push_back(w);
    survivor.slotWaiters = std::move(old->slotWaiters);
    old->slotWaiters.clear();
    old->flow.backlog.clear();
    // The dead link is retired: its flushed WRs are ignored, but a CDC it
    // took in before it went down is still handled when its completion
    // comes after this switch (engine_retired_link.cpp).
    retireLinkLocked(*lgr, std::move(old));
    multi.flow.reset();
    ++m_stats.linksDown;
    ++m_stats.linkFailovers;
    if (announce != nullptr) (void)postLlcLocked(*lgr, wire::encode(*announce));

    // Every connection of the dead link: its peer RMB on the surviving link,
    // then the validation CDC and the re-send of what was not confirmed.
    // Connections balanced onto the survivor keep going as they were.
    std::vector<std::shared_ptr<Connection>> conns;
    for (auto& [token, conn] : lgr->conns) conns.push_back(conn);
    for (auto& conn : conns) {
        if (conn->assignment.onFailover()) continue;  // it sent on the survivor already
        if (conn->released || !conn->core) continue;
        if (auto other = multi.peerRkeys.onOtherLink(conn->assignment.primaryRmb.rkey)) {
            conn->assignment.primaryRmb = PeerRmb{other->vaddr, other->rkey};
        } else {
            // The peer never told us its RMB on this link: the connection cannot move.
            CloseActions a = conn->core->closer().on(CloseEvent::linkGroupLost);
            if (a.error != Errc::invalid) {
                conn->error = a.error;
                ++m_stats.connectionsAborted;
            }
            maybeReleaseLocked(*conn);
            continue;
        }
        ++m_stats.failoverConns;
        multi.validationQueue.push_back(conn);
    }
    multi.peerRkeys.clear();
    multi.announcedRmbs.clear();
    scheduleReadd(*lgr, m_settings.get(SettingId::linkReaddMs), monotonicMs());
    serviceValidationsLocked(*lgr);
    serviceSlotWaitersLocked(*lgr, lgr->primary());
    wakeSleepersLocked();
}

void EngineImpl::moveConnsOffStandbyLocked(LinkGroup& lgr) {
    MultiLink& multi = lgr.multi;
    for (auto& [token, conn] : lgr.conns) {
        // Its CDCs on the lost link may never complete: it rewinds to the
        // last completed one and validates on the first link (as a failover).
        if (!conn->assignment.leaveStandby()) continue;
        if (conn->released || !conn->core) continue;
        ++m_stats.failoverConns;
        multi.validationQueue.push_back(conn);
    }
    if (Link* standby = lgr.standby()) {
        for (auto& w : standby->slotWaiters) lgr.primary().slotWaiters.push_back(w);
        standby->slotWaiters.clear();
    }
}

void EngineImpl::standbyLinkLostLocked(LinkGroup& lgr) {
    const Link* standby = lgr.standby();
    if (standby == nullptr || lgr.terminated) return;
    LinkSetView view{lgr.primary().linkId(), standby->linkId(), lgr.standbyActive()};
    const LinkLossPlan plan = planLinkLoss(view, standby->linkId(), wire::DeleteLinkReason::lostPath, nullptr);
    ++m_stats.linksDown;
    moveConnsOffStandbyLocked(lgr);
    dropStandbyLocked(lgr);
    if (plan.sendDeleteLink) (void)postLlcLocked(lgr, wire::encode(plan.deleteLink));
    scheduleReadd(lgr, m_settings.get(SettingId::linkReaddMs), monotonicMs());
    serviceValidationsLocked(lgr);
    serviceSlotWaitersLocked(lgr, lgr.primary());
    wakeSleepersLocked();
}

void EngineImpl::serviceValidationsLocked(LinkGroup& lgr) {
    MultiLink& multi = lgr.multi;
    // A validation is a CDC like any other: it needs a slot and, with RQ
    // credits, a credit of the link (they arrive with serviceSlotWaitersLocked).
    while (!multi.validationQueue.empty() && !lgr.terminated && lgr.primary().canSend()) {
        auto conn = multi.validationQueue.front().lock();
        multi.validationQueue.pop_front();
        if (!conn || conn->released || !conn->core) continue;
        const CdcInfo validation = conn->core->beginFailover();
        if (!postCdcLocked(*conn, validation, nullptr)) return;  // the group is gone
        flushLocked(*conn);  // what was not confirmed goes again (beginFailover owes the CDC)
    }
}

// ---- rkey announcements -----------------------------------------------------------

void EngineImpl::announceRmbLocked(LinkGroup& lgr, Connection& conn) {
    MultiLink& multi = lgr.multi;
    if (!lgr.standby() || lgr.terminated || conn.rmb == nullptr) return;
    if (!multi.announcedRmbs.insert(conn.rmbId).second) return;
    const wire::RkeyPair own = ownRkeyPair(*conn.rmb);
    const wire::LlcConfirmRkey m = makeConfirmRkey(RmbOnLink{own.rkeyCurrent, own.vaddrNew}, lgr.standby()->linkId(),
                                                   RmbOnLink{own.rkeyNew, own.vaddrNew});
    (void)postLlcLocked(lgr, wire::encode(m));  // a failure shows as a lost link
}

void EngineImpl::withdrawRmbLocked(LinkGroup& lgr, Connection& conn) {
    MultiLink& multi = lgr.multi;
    if (multi.announcedRmbs.erase(conn.rmbId) == 0 || !lgr.standby() || lgr.terminated || conn.rmb == nullptr) return;
    const uint32_t rkey = conn.rmb->rkey();
    for (const wire::LlcDeleteRkey& m : makeDeleteRkeys(std::span<const uint32_t>(&rkey, 1))) {
        (void)postLlcLocked(lgr, wire::encode(m));
    }
}

// ---- teardown, timers, stats, test hook ---------------------------------------------

void EngineImpl::dropStandbyLocked(LinkGroup& lgr) {
    MultiLink& multi = lgr.multi;
    // Nobody may keep sending on it (callers that may find connections on it
    // moved them already and service their validations).
    if (!lgr.terminated) moveConnsOffStandbyLocked(lgr);
    // Retired like a failed-over link (a CDC of a connection balanced onto
    // it may still complete); with the group, the retired link goes too.
    if (lgr.standby() || lgr.terminated) retireLinkLocked(lgr, std::move(lgr.links[lgr.current ^ 1u]));
    multi.flow.reset();
    multi.peerRkeys.clear();
    multi.announcedRmbs.clear();
}

void EngineImpl::multiLinkTimersLocked(uint64_t nowMs) {
    std::vector<std::shared_ptr<LinkGroup>> groups = m_linkGroups;
    for (auto& lgr : groups) {
        MultiLink& multi = lgr->multi;
        if (lgr->terminated) continue;
        if (!lgr->standby() && multi.readdAtMs <= nowMs) {
            // Server, after a lost link: ADD_LINK again while the other port
            // is active (the kernel re-adds on a port event). Once per loss.
            multi.readdAtMs = UINT64_MAX;
            multi.addLinkTried = false;
            startAddLinkLocked(lgr);
        }
        if (!lgr->standby()) continue;
        if (multi.flow && multi.flow->running()) {
            AddLinkActions a = multi.flow->poll(nowMs);
            if (a.abandon) {
                ++m_stats.addLinkFailed;
                dropStandbyLocked(*lgr);
                continue;
            }
        }
        const LinkActions a = pollLinkLocked(*lgr, *lgr->standby(), nowMs);
        if (a.linkDown) standbyLinkLostLocked(*lgr);  // unanswered TEST_LINK
    }
}

uint64_t EngineImpl::multiLinkDeadlineMs() const {
    uint64_t next = UINT64_MAX;
    for (const auto& lgr : m_linkGroups) {
        const MultiLink& multi = lgr->multi;
        const Link* standby = lgr->standby();
        if (standby == nullptr) {
            if (!lgr->terminated) next = std::min(next, multi.readdAtMs);
            continue;
        }
        if (multi.flow) next = std::min(next, multi.flow->deadlineMs());
        next = std::min(next, standby->core->nextDeadlineMs());
    }
    return next;
}

void EngineImpl::addLinkStatsLocked(EngineStats& out) const {
    for (const auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        for (const auto& link : lgr->links) {
            if (link && link->active()) ++out.linksActive;
        }
        for (const auto& [token, conn] : lgr->conns) {
            if (conn->assignment.onStandby()) ++out.connsSecondLink;
        }
    }
}

std::vector<fabric::QueuePair*> EngineImpl::linkQpsLocked(LinkSelect which) const {
    std::vector<fabric::QueuePair*> qps;
    for (const auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        fabric::QueuePair* qp = nullptr;
        if (which == LinkSelect::primary) qp = lgr->primary().qp.get();
        if (which == LinkSelect::standby && lgr->standby()) qp = lgr->standby()->qp.get();
        if (qp != nullptr) qps.push_back(qp);
    }
    return qps;
}

}  // namespace smcr::core
