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
#include <functional>
#include <random>
#include <set>

#include <smcr/wire/cdc.h>

#include "engine_impl.h"
#include "handshake_io.h"
#include "link_failover.h"
#include "link_send_side.h"
#include "llc_send.h"
#include "wr_id.h"

namespace smcr::core {

namespace {

// Kernel QP attributes for SMC-R links (smc-protocol.md section 4), as for
// the first link (engine_lgr.cpp).
constexpr uint8_t kMinRnrTimer = 5;
constexpr uint8_t kAckTimeout = 15;
constexpr uint8_t kRetryCnt = 7;
constexpr uint8_t kRnrRetryInfinite = 7;

// Swaps the link that carries the connections with the standby: every
// per-link field of the group trades places (link_path.h).
void swapPrimary(LinkGroup& lgr, LinkPath& path, uint8_t enginePort) {
    std::swap(lgr.peerMac, path.peerMac);
    std::swap(lgr.peerQpn, path.peerQpn);
    std::swap(lgr.localPsn, path.localPsn);
    std::swap(lgr.mtu, path.mtu);
    std::swap(lgr.qp, path.qp);
    std::swap(lgr.recvBuffers, path.recvBuffers);
    std::swap(lgr.recvWr, path.recvWr);
    std::swap(lgr.sendSlots, path.sendSlots);
    std::swap(lgr.sendSlotsUsed, path.sendSlotsUsed);
    std::swap(lgr.inlineSends, path.inlineSends);
    std::swap(lgr.sendBuffers, path.sendBuffers);
    std::swap(lgr.nextSendBuffer, path.nextSendBuffer);
    std::swap(lgr.link, path.link);
    std::swap(lgr.pendingLlc, path.pendingLlc);
    std::swap(lgr.flow, path.flow);
    // CDCs already received on the old link still wait to be processed
    // (lab.rx_backlog), before the survivor's own.
    for (auto& cdc : lgr.flow.backlog) path.flow.backlog.push_back(cdc);
    lgr.flow.backlog = std::move(path.flow.backlog);
    std::swap(lgr.txWatchdog, path.txWatchdog);
    const uint8_t oldPort = lgr.multi.primaryPort != 0 ? lgr.multi.primaryPort : enginePort;
    lgr.multi.primaryPort = path.portNum;
    path.portNum = oldPort;
    // Connections balanced onto the survivor wait for its slots as before;
    // the old link's connections join them (they move to the survivor).
    for (auto& w : path.slotWaiters) lgr.slotWaiters.push_back(w);
    path.slotWaiters.clear();
}

// After a lost link the server adds one again (lab.link_readd_ms; the
// kernel does on a port event; the client only answers ADD_LINK).
void scheduleReadd(LinkGroup& lgr, uint64_t delayMs, uint64_t nowMs) {
    if (lgr.role == HandshakeRole::server && delayMs != 0 && !lgr.terminated) lgr.multi.readdAtMs = nowMs + delayMs;
}

// The port of the link in LinkGroup's fields.
uint8_t primaryPortOf(const LinkGroup& lgr, uint8_t enginePort) {
    return lgr.multi.primaryPort != 0 ? lgr.multi.primaryPort : enginePort;
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

struct PathSetup {
    fabric::ProtectionDomain* pd;
    fabric::CompletionQueue* sendCq;
    fabric::CompletionQueue* recvCq;
    const fabric::DeviceLimits* limits;
};

Status postPathRecv(LinkPath& path, uint32_t slot) {
    fabric::RecvWr wr;
    wr.wrId = makeWrId(WrKind::recv, slot);
    wr.numSge = 1;
    wr.sg[0] = {path.recvBuffers->address() + uint64_t{slot} * kWrBufferBytes, kWrBufferBytes,
                path.recvBuffers->lkey()};
    return path.qp->postRecv(wr);
}

Result<std::unique_ptr<LinkPath>> makePath(const PathSetup& setup, const LinkGroup& lgr, const fabric::PortInfo& port,
                                           uint8_t linkId, const LinkTimers& timers, uint64_t nowMs) {
    auto path = std::make_unique<LinkPath>();
    path->linkId = linkId;
    path->portNum = port.portNum;
    // The same WR budget as the first link.
    path->sendSlots = lgr.sendSlots;
    path->recvWr = lgr.recvWr;
    path->link = std::make_unique<LinkCore>(linkId, timers, nowMs);
    std::random_device rd;
    path->localPsn = rd() & fabric::kPsnMask;

    fabric::QpInit init;
    init.sendCq = setup.sendCq;
    init.recvCq = setup.recvCq;
    init.caps.maxSendWr = std::min(3 * path->sendSlots, setup.limits->maxQpWr);
    init.caps.maxRecvWr = std::min(path->recvWr, setup.limits->maxQpWr);
    init.caps.maxSendSge = 2;
    init.caps.maxRecvSge = 1;
    init.caps.maxInlineBytes = std::min<uint32_t>(kWrMessageBytes, setup.limits->maxInlineBytes);
    auto qp = setup.pd->createQp(init);
    if (!qp) return fail(qp.error());
    path->qp = std::move(qp.value());
    path->inlineSends = path->qp->caps().maxInlineBytes >= kWrMessageBytes;

    fabric::QpAttr attr;
    attr.state = fabric::QpState::init;
    attr.port = port.portNum;
    attr.accessFlags = fabric::Access::localWrite | fabric::Access::remoteWrite;
    if (Status s = path->qp->modify(attr, fabric::kMaskResetToInit); !s) return fail(s.error());
    auto recv = setup.pd->allocateRegion(uint64_t{path->recvWr} * kWrBufferBytes, fabric::Access::localWrite);
    if (!recv) return fail(recv.error());
    path->recvBuffers = std::move(recv.value());
    if (!path->inlineSends) {
        auto send = setup.pd->allocateRegion(uint64_t{path->sendSlots} * kWrBufferBytes, fabric::Access::localWrite);
        if (!send) return fail(send.error());
        path->sendBuffers = std::move(send.value());
    }
    for (uint32_t slot = 0; slot < path->recvWr; ++slot) {
        if (Status s = postPathRecv(*path, slot); !s) return fail(s.error());
    }
    path->local.mac = port.mac;
    path->local.gid = port.gid;
    path->local.qpn = path->qp->qpn();
    path->local.psn = path->localPsn;
    path->local.mtu = mtuToWire(port.activeMtu);
    return path;
}

Status bringUpPath(LinkPath& path, const LinkEndpoint& peer, fabric::PathMtu localMtu) {
    path.peerMac = peer.mac;
    path.peerQpn = peer.qpn;
    path.mtu = std::min(mtuFromWire(peer.mtu), localMtu);
    fabric::QpAttr attr;
    attr.state = fabric::QpState::rtr;
    attr.remoteGid = peer.gid;
    attr.remoteMac = peer.mac;
    attr.hopLimit = 1;
    attr.pathMtu = path.mtu;
    attr.remoteQpn = peer.qpn;
    attr.rqPsn = peer.psn;
    attr.maxDestRdAtomic = 1;
    attr.minRnrTimer = kMinRnrTimer;
    if (Status s = path.qp->modify(attr, fabric::kMaskInitToRtr); !s) return s;
    attr.state = fabric::QpState::rts;
    attr.sqPsn = path.localPsn;
    attr.timeout = kAckTimeout;
    attr.retryCnt = kRetryCnt;
    attr.rnrRetry = kRnrRetryInfinite;
    attr.maxRdAtomic = 1;
    return path.qp->modify(attr, fabric::kMaskRtrToRts);
}

// kind: an ANNOUNCE_CREDITS may use the credit kept back for it (credits.h).
Status postPathLlc(LinkPath& path, const wire::LlcBytes& bytes, CreditSendKind kind = CreditSendKind::message) {
    if (path.sendSlotsUsed >= path.sendSlots || !path.flow.credits.canSend(kind)) {
        path.pendingLlc.push_back(bytes);
        return {};
    }
    if (Status s =
            postLlcSend(*path.qp, path.inlineSends, path.sendBuffers.get(), path.nextSendBuffer, path.sendSlots, bytes);
        !s) {
        return s;
    }
    ++path.sendSlotsUsed;
    (void)path.flow.credits.take(kind);  // checked above
    return {};
}

// Owed RQ credits of the added link go back by ANNOUNCE_CREDITS when no CDC
// on it carried them (as for the first link, engine_credits.cpp).
void announcePathCredits(LinkPath& path) {
    if (!path.flow.credits.announceDue() || path.sendSlotsUsed >= path.sendSlots) return;
    wire::LlcAnnounceCredits msg;
    msg.response = true;
    msg.credits = path.flow.credits.takeForAnnounce();
    if (msg.credits == 0) return;
    path.flow.announcedByLlc += msg.credits;
    ++path.flow.announceLlcs;
    (void)postPathLlc(path, wire::encode(msg), CreditSendKind::announce);  // a failure shows as a lost link
}

// CDC byte 26 of a CDC that came over the added link: that link's credits.
void takePathCdcCredits(LinkPath& path, const uint8_t* bytes, EngineStats& stats) {
    auto msg = wire::decodeCdc(std::span<const uint8_t>(bytes, kWrMessageBytes));
    if (!msg || msg.value().credits == 0) return;
    if (!path.flow.credits.enabled()) {
        ++stats.cdcReservedNonzero;  // reserved without the extension: never acted on
        return;
    }
    path.flow.credits.onPeerCredits(msg.value().credits);
    path.flow.creditsReceived += msg.value().credits;
}

}  // namespace

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
    if (lgr->role != HandshakeRole::server || lgr->terminated || multi.standby || multi.addLinkTried) return;
    multi.addLinkTried = true;
    if (m_settings.get(SettingId::maxLinksPerLgr) < 2) return;
    const fabric::PortInfo* port = alternatePort(m_device->info(), primaryPortOf(*lgr, m_port.portNum));
    if (port == nullptr) return;  // one port: nothing to add (the kernel's "no alternate path")
    LinkTimers timers;
    timers.testLinkIdleMs = m_settings.get(SettingId::testlinkTimeS) * 1000;
    timers.llcWaitMs = m_settings.get(SettingId::llcWaitMs);
    const uint64_t nowMs = monotonicMs();
    auto path = makePath(PathSetup{m_pd.get(), m_sendCq.get(), m_recvCq.get(), &m_device->info().limits}, *lgr, *port,
                         multi.nextLinkId++, timers, nowMs);
    if (!path) {
        ++m_stats.addLinkFailed;
        return;
    }
    multi.standby = std::move(path.value());
    m_lgrByQpn[multi.standby->qp->qpn()] = lgr;
    multi.flow = std::make_unique<AddLinkFlow>(HandshakeRole::server, timers.llcWaitMs);
    // lab.rq_credits: the new link's receive WQEs, offered in byte 36.
    multi.flow->setCreditOffer(creditOfferLocked(*lgr));
    std::random_device rd;
    AddLinkActions a = multi.flow->start(multi.standby->local, multi.standby->linkId, rd(), ownRkeys(*lgr), nowMs);
    for (const auto& m : a.sendOnCurrent) (void)postLlcLocked(*lgr, wire::encodeLlc(m));
}

// One place that carries out AddLinkActions (used by every flow event).
static void applyAddLink(EngineImpl& engine, LinkGroup& lgr, const AddLinkActions& a, fabric::PathMtu localMtu,
                         EngineStats& stats, const std::function<Status(const wire::LlcBytes&)>& postPrimary,
                         const std::function<void()>& drop) {
    MultiLink& multi = lgr.multi;
    (void)engine;
    // Credits before the first SEND on the new link (its CONFIRM_LINK).
    if (a.peerInitCredits > 0 && multi.standby) {
        multi.standby->flow.credits.enable(multi.standby->recvWr, a.peerInitCredits);
    }
    for (const wire::RkeyPair& pair : a.learnedRkeys) multi.peerRkeys.learn(pair);
    bool failed = a.abandon;
    if (!failed && a.bringUp && multi.standby) failed = !bringUpPath(*multi.standby, *a.bringUp, localMtu);
    if (!failed) {
        for (const auto& m : a.sendOnCurrent) (void)postPrimary(wire::encodeLlc(m));
        if (a.sendOnNew && multi.standby) {
            failed = !postPathLlc(*multi.standby, wire::encodeLlc(*a.sendOnNew));
        }
    }
    if (!failed && a.linkActive && multi.standby) {
        multi.standby->link->activate(monotonicMs());
        ++stats.linksAdded;
    }
    if (failed) {
        ++stats.addLinkFailed;
        drop();
    }
}

bool EngineImpl::onMultiLinkLlcLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcMessage& msg) {
    MultiLink& multi = lgr->multi;
    const uint64_t nowMs = monotonicMs();
    auto postPrimary = [&](const wire::LlcBytes& bytes) { return postLlcLocked(*lgr, bytes); };
    auto drop = [&] { dropStandbyLocked(*lgr); };
    auto apply = [&](const AddLinkActions& a) {
        applyAddLink(*this, *lgr, a, m_port.activeMtu, m_stats, postPrimary, drop);
    };
    if (const auto* add = std::get_if<wire::LlcAddLink>(&msg)) {
        if (add->response) {
            if (multi.flow) apply(multi.flow->onResponse(*add, nowMs));
            return true;
        }
        // Client: take the second link when we may (setting, a second port,
        // none yet); otherwise LinkCore rejects as the kernel does.
        if (lgr->role != HandshakeRole::client || multi.standby || m_settings.get(SettingId::maxLinksPerLgr) < 2) {
            return false;
        }
        const fabric::PortInfo* port = alternatePort(m_device->info(), primaryPortOf(*lgr, m_port.portNum));
        if (port == nullptr) return false;
        LinkTimers timers;
        timers.testLinkIdleMs = m_settings.get(SettingId::testlinkTimeS) * 1000;
        timers.llcWaitMs = m_settings.get(SettingId::llcWaitMs);
        auto path = makePath(PathSetup{m_pd.get(), m_sendCq.get(), m_recvCq.get(), &m_device->info().limits}, *lgr,
                             *port, add->linkNumber, timers, nowMs);
        if (!path) return false;
        multi.standby = std::move(path.value());
        m_lgrByQpn[multi.standby->qp->qpn()] = lgr;
        multi.flow = std::make_unique<AddLinkFlow>(HandshakeRole::client, timers.llcWaitMs);
        multi.flow->setCreditOffer(creditOfferLocked(*lgr));  // answered only when the request offers
        std::random_device rd;
        apply(multi.flow->onRequest(*add, multi.standby->local, rd(), ownRkeys(*lgr), nowMs));
        return true;
    }
    if (const auto* cont = std::get_if<wire::LlcAddLinkCont>(&msg)) {
        if (multi.flow) apply(multi.flow->onCont(*cont, nowMs));
        return true;
    }
    if (const auto* del = std::get_if<wire::LlcDeleteLink>(&msg)) {
        if (del->response) return true;
        if (del->allLinks) return false;  // the whole group: LinkCore ends it
        LinkSetView view{lgr->link->linkId(), multi.standby ? multi.standby->linkId : uint8_t{0},
                         multi.standbyActive()};
        const LinkLossPlan plan = planLinkLoss(view, del->linkNumber, del->reason, del);
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
        serviceSlotWaitersLocked(*lgr);
        wakeSleepersLocked();
        return true;
    }
    if (const auto* confirm = std::get_if<wire::LlcConfirmRkey>(&msg)) {
        if (confirm->response) {
            if (!confirm->negative) ++m_stats.rkeysConfirmed;
            return true;
        }
        if (!multi.standby) return false;  // one link: LinkCore confirms
        (void)postLlcLocked(*lgr, wire::encode(multi.peerRkeys.onConfirmRkey(*confirm, multi.standby->linkId)));
        return true;
    }
    if (const auto* del = std::get_if<wire::LlcDeleteRkey>(&msg)) {
        if (del->response) {
            m_stats.rkeysDeleted += deletedRkeyCount(*del);
            return true;
        }
        if (!multi.standby) return false;
        (void)postLlcLocked(*lgr, wire::encode(multi.peerRkeys.onDeleteRkey(*del)));
        return true;
    }
    return false;
}

// ---- the standby link's completions --------------------------------------------

bool EngineImpl::onStandbyCompletionLocked(const std::shared_ptr<LinkGroup>& lgr, const fabric::WorkCompletion& wc,
                                           bool recv) {
    MultiLink& multi = lgr->multi;
    if (!multi.standby || !multi.standby->qp || wc.qpNum != multi.standby->qp->qpn()) return false;
    LinkPath& path = *multi.standby;
    if (wc.status != fabric::WcStatus::success) {
        // The standby failed: its connections move to the first link, the
        // peer hears of it over the first link.
        standbyLinkLostLocked(*lgr);
        return true;
    }
    if (!recv) {
        const WrKind kind = wrKind(wc.wrId);
        if (kind != WrKind::cdc && kind != WrKind::llc) return true;
        if (path.sendSlotsUsed > 0) --path.sendSlotsUsed;
        path.txWatchdog.onCompletion();
        if (kind == WrKind::cdc) {
            // A connection balanced onto this link: as on the first link (engine_rx.cpp).
            auto c = lgr->conns.find(wrValue(wc.wrId));
            if (c != lgr->conns.end() && c->second->core) {
                std::shared_ptr<Connection> conn = c->second;
                conn->core->tx().onCdcSendComplete();
                onCdcSendCompleteLocked(*conn);
                maybeReleaseLocked(*conn);
            }
        }
        serviceStandbySlotsLocked(*lgr);
        return true;
    }
    const uint32_t slot = wrValue(wc.wrId);
    if (slot >= path.recvWr) return true;
    uint8_t bytes[kWrMessageBytes] = {};
    std::memcpy(bytes, path.recvBuffers->data() + uint64_t{slot} * kWrBufferBytes, kWrMessageBytes);
    // Refilled at once and handled at once: the lab's slow-receiver knobs
    // (lab.rx_repost_delay_us, lab.rx_backlog) model the first link's path
    // only (engine_credits.cpp).
    if (Status s = postPathRecv(path, slot); s) {
        path.flow.credits.onRecvReposted();
    } else {
        // Flushed WRs come back as errors behind what already completed, and
        // take the link down in order.
        (void)path.qp->setError();
    }
    const uint64_t nowMs = monotonicMs();
    path.link->onRxActivity(nowMs);
    if (wc.byteLen < kWrMessageBytes) return true;
    if (bytes[0] == wire::kCdcType) {
        // Data of a connection the peer balanced onto this link, or sent
        // after the peer switched before we heard its DELETE_LINK.
        takePathCdcCredits(path, bytes, m_stats);
        onCdcLocked(*lgr, bytes);
        serviceStandbySlotsLocked(*lgr);
        return true;
    }
    auto msg = wire::decodeLlc(std::span<const uint8_t>(bytes, kWrMessageBytes));
    if (!msg) return true;
    if (const auto* credits = std::get_if<wire::LlcAnnounceCredits>(&msg.value())) {
        if (!path.flow.credits.enabled()) {
            // Not negotiated on this link: an unknown LLC type, as on the first link.
            terminateLinkGroupLocked(lgr, wire::kDeleteLinkProtocolViolation, true);
            return true;
        }
        path.flow.credits.onPeerCredits(credits->credits);
        path.flow.creditsReceived += credits->credits;
        serviceStandbySlotsLocked(*lgr);
        return true;
    }
    if (const auto* confirm = std::get_if<wire::LlcConfirmLink>(&msg.value())) {
        if (multi.flow) {
            auto postPrimary = [&](const wire::LlcBytes& b) { return postLlcLocked(*lgr, b); };
            auto drop = [&] { dropStandbyLocked(*lgr); };
            applyAddLink(*this, *lgr, multi.flow->onConfirmLink(*confirm, nowMs), m_port.activeMtu, m_stats,
                         postPrimary, drop);
        }
        serviceStandbySlotsLocked(*lgr);
        return true;
    }
    if (std::holds_alternative<wire::LlcTestLink>(msg.value())) {
        LinkActions a = path.link->onLlc(msg.value(), nowMs);
        if (a.send) (void)postPathLlc(path, wire::encodeLlc(*a.send));
        serviceStandbySlotsLocked(*lgr);
        return true;
    }
    // Anything else concerns the group, whichever link carried it.
    if (!onMultiLinkLlcLocked(lgr, msg.value())) {
        LinkActions a = lgr->link->onLlc(msg.value(), nowMs);
        if (a.send) (void)postLlcLocked(*lgr, wire::encodeLlc(*a.send));
        if (a.terminateLinkGroup || a.linkDown) terminateLinkGroupLocked(lgr, a.reason, false);
    }
    serviceStandbySlotsLocked(*lgr);
    return true;
}

void EngineImpl::serviceStandbySlotsLocked(LinkGroup& lgr) {
    // Re-read the standby every round: a flush may lose it.
    MultiLink& multi = lgr.multi;
    for (;;) {
        LinkPath* path = multi.standby.get();
        if (path == nullptr || lgr.terminated) return;
        announcePathCredits(*path);
        if (path->pendingLlc.empty() || path->sendSlotsUsed >= path->sendSlots ||
            !path->flow.credits.canSend(CreditSendKind::message)) {
            break;
        }
        const wire::LlcBytes bytes = path->pendingLlc.front();
        path->pendingLlc.pop_front();
        (void)postPathLlc(*path, bytes);  // a failure shows as an error completion
    }
    for (;;) {
        LinkPath* path = multi.standby.get();
        if (path == nullptr || lgr.terminated) return;
        if (path->slotWaiters.empty() || path->sendSlotsUsed >= path->sendSlots ||
            !path->flow.credits.canSend(CreditSendKind::message)) {
            return;
        }
        auto conn = path->slotWaiters.front().lock();
        path->slotWaiters.pop_front();
        if (!conn) continue;
        conn->queuedForSlot = false;
        flushLocked(*conn);
    }
}

// ---- balancing connections over two links ------------------------------------------

void EngineImpl::assignLinkLocked(LinkGroup& lgr, Connection& conn) {
    // The kernel's smcr_lgr_conn_assign_link: the active link with the fewest
    // connections (ties: the first link).
    conn.wantStandby = false;
    if (lgr.terminated || !lgr.multi.standbyActive()) return;
    size_t onFirst = 0;
    size_t onAdded = 0;
    for (const auto& [token, other] : lgr.conns) {
        if (other.get() == &conn || other->released) continue;
        ++(other->wantStandby ? onAdded : onFirst);
    }
    conn.wantStandby = onAdded < onFirst;
}

void EngineImpl::switchToStandbyLocked(Connection& conn) {
    LinkGroup& lgr = *conn.lgr;
    MultiLink& multi = lgr.multi;
    if (!multi.standbyActive()) return;
    // Only with nothing outstanding: RC ordering on the first link has then
    // placed every byte and CDC, so no CDC on the new link can overtake them.
    if (!conn.core || conn.queuedForSlot || conn.core->tx().pendingCdcCount() > 0) return;
    // The peer's RMB must be known on the added link (ADD_LINK_CONT or
    // CONFIRM_RKEY); until then the connection stays where it is.
    const auto rmb = multi.peerRkeys.onOtherLink(conn.peerRmbRkey);
    if (!rmb) return;
    conn.standbyRmbRkey = rmb->rkey;
    conn.standbyRmbVaddr = rmb->vaddr;
    conn.onStandby = true;
}

// ---- failover -------------------------------------------------------------------

bool EngineImpl::primaryLinkLostLocked(const std::shared_ptr<LinkGroup>& lgr, uint32_t reason) {
    if (lgr->terminated || !lgr->link) return false;
    MultiLink& multi = lgr->multi;
    LinkSetView view{lgr->link->linkId(), multi.standby ? multi.standby->linkId : uint8_t{0}, multi.standbyActive()};
    const LinkLossPlan plan = planLinkLoss(view, lgr->link->linkId(), reason, nullptr);
    if (plan.kind != LinkLossKind::failover) return false;
    failoverLocked(lgr, &plan.deleteLink);
    return true;
}

void EngineImpl::failoverLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcDeleteLink* announce) {
    MultiLink& multi = lgr->multi;
    std::unique_ptr<LinkPath> old = std::move(multi.standby);
    swapPrimary(*lgr, *old, m_port.portNum);
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
        conn->wantStandby = false;
        if (conn->onStandby) {
            conn->onStandby = false;
            conn->peerRmbRkey = conn->standbyRmbRkey;
            conn->peerRmbVaddr = conn->standbyRmbVaddr;
            continue;
        }
        if (conn->released || !conn->core) continue;
        if (auto other = multi.peerRkeys.onOtherLink(conn->peerRmbRkey)) {
            conn->peerRmbRkey = other->rkey;
            conn->peerRmbVaddr = other->vaddr;
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
    serviceSlotWaitersLocked(*lgr);
    wakeSleepersLocked();
}

void EngineImpl::moveConnsOffStandbyLocked(LinkGroup& lgr) {
    MultiLink& multi = lgr.multi;
    for (auto& [token, conn] : lgr.conns) {
        conn->wantStandby = false;
        if (!conn->onStandby) continue;
        // Its CDCs on the lost link may never complete: it rewinds to the
        // last completed one and validates on the first link (as a failover).
        conn->onStandby = false;
        if (conn->released || !conn->core) continue;
        ++m_stats.failoverConns;
        multi.validationQueue.push_back(conn);
    }
    if (multi.standby) {
        for (auto& w : multi.standby->slotWaiters) lgr.slotWaiters.push_back(w);
        multi.standby->slotWaiters.clear();
    }
}

void EngineImpl::standbyLinkLostLocked(LinkGroup& lgr) {
    MultiLink& multi = lgr.multi;
    if (!multi.standby || lgr.terminated) return;
    LinkSetView view{lgr.link->linkId(), multi.standby->linkId, multi.standbyActive()};
    const LinkLossPlan plan = planLinkLoss(view, multi.standby->linkId, wire::kDeleteLinkLostPath, nullptr);
    ++m_stats.linksDown;
    moveConnsOffStandbyLocked(lgr);
    dropStandbyLocked(lgr);
    if (plan.sendDeleteLink) (void)postLlcLocked(lgr, wire::encode(plan.deleteLink));
    scheduleReadd(lgr, m_settings.get(SettingId::linkReaddMs), monotonicMs());
    serviceValidationsLocked(lgr);
    serviceSlotWaitersLocked(lgr);
    wakeSleepersLocked();
}

void EngineImpl::serviceValidationsLocked(LinkGroup& lgr) {
    MultiLink& multi = lgr.multi;
    // A validation is a CDC like any other: it needs a slot and, with RQ
    // credits, a credit of the link (they arrive with serviceSlotWaitersLocked).
    while (!multi.validationQueue.empty() && lgr.sendSlotsUsed < lgr.sendSlots && !lgr.terminated &&
           lgr.flow.credits.canSend(CreditSendKind::message)) {
        auto conn = multi.validationQueue.front().lock();
        multi.validationQueue.pop_front();
        if (!conn || conn->released || !conn->core) continue;
        const CdcInfo validation = conn->core->beginFailover();
        if (!postCdcLocked(*conn, validation, nullptr)) return;  // the group is gone
        // Whatever was not confirmed goes again, with a fresh consumer cursor.
        conn->needCdc = true;
        flushLocked(*conn);
    }
}

// ---- rkey announcements -----------------------------------------------------------

void EngineImpl::announceRmbLocked(LinkGroup& lgr, Connection& conn) {
    MultiLink& multi = lgr.multi;
    if (!multi.standby || lgr.terminated || conn.rmb == nullptr) return;
    if (!multi.announcedRmbs.insert(conn.rmbId).second) return;
    const wire::RkeyPair own = ownRkeyPair(*conn.rmb);
    const wire::LlcConfirmRkey m = makeConfirmRkey(RmbOnLink{own.rkeyCurrent, own.vaddrNew}, multi.standby->linkId,
                                                   RmbOnLink{own.rkeyNew, own.vaddrNew});
    (void)postLlcLocked(lgr, wire::encode(m));  // a failure shows as a lost link
}

void EngineImpl::withdrawRmbLocked(LinkGroup& lgr, Connection& conn) {
    MultiLink& multi = lgr.multi;
    if (multi.announcedRmbs.erase(conn.rmbId) == 0 || !multi.standby || lgr.terminated || conn.rmb == nullptr) return;
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
    if (multi.standby || lgr.terminated) retireLinkLocked(lgr, std::move(multi.standby));
    multi.flow.reset();
    multi.peerRkeys.clear();
    multi.announcedRmbs.clear();
}

void EngineImpl::multiLinkTimersLocked(uint64_t nowMs) {
    std::vector<std::shared_ptr<LinkGroup>> groups = m_linkGroups;
    for (auto& lgr : groups) {
        MultiLink& multi = lgr->multi;
        if (lgr->terminated) continue;
        if (!multi.standby && multi.readdAtMs <= nowMs) {
            // Server, after a lost link: ADD_LINK again while the other port
            // is active (the kernel re-adds on a port event). Once per loss.
            multi.readdAtMs = UINT64_MAX;
            multi.addLinkTried = false;
            startAddLinkLocked(lgr);
        }
        if (!multi.standby) continue;
        if (multi.flow && multi.flow->running()) {
            AddLinkActions a = multi.flow->poll(nowMs);
            if (a.abandon) {
                ++m_stats.addLinkFailed;
                dropStandbyLocked(*lgr);
                continue;
            }
        }
        LinkActions a = multi.standby->link->poll(nowMs);
        if (a.send) {
            ++m_stats.testLinksSent;
            (void)postPathLlc(*multi.standby, wire::encodeLlc(*a.send));
        }
        if (a.linkDown) standbyLinkLostLocked(*lgr);  // unanswered TEST_LINK
    }
}

uint64_t EngineImpl::multiLinkDeadlineMs() const {
    uint64_t next = UINT64_MAX;
    for (const auto& lgr : m_linkGroups) {
        const MultiLink& multi = lgr->multi;
        if (!multi.standby) {
            if (!lgr->terminated) next = std::min(next, multi.readdAtMs);
            continue;
        }
        if (multi.flow) next = std::min(next, multi.flow->deadlineMs());
        if (multi.standby->link) next = std::min(next, multi.standby->link->nextDeadlineMs());
    }
    return next;
}

void EngineImpl::addLinkStatsLocked(EngineStats& out) const {
    for (const auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        if (lgr->link && lgr->link->state() == LinkState::active) ++out.linksActive;
        if (lgr->multi.standbyActive()) ++out.linksActive;
        for (const auto& [token, conn] : lgr->conns) {
            if (conn->onStandby) ++out.connsSecondLink;
        }
    }
}

Status EngineImpl::injectLinkFault(LinkSelect which, fabric::sim::Fault fault, uint64_t value) {
    std::lock_guard lock(m_mutex);
    fabric::sim::SimControl* sim = fabric::sim::simControl(*m_device);
    if (sim == nullptr) return fail(Errc::notSupported, "fault injection needs the sim fabric");
    size_t done = 0;
    for (auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        fabric::QueuePair* qp = nullptr;
        if (which == LinkSelect::primary) qp = lgr->qp.get();
        if (which == LinkSelect::standby && lgr->multi.standby) qp = lgr->multi.standby->qp.get();
        if (qp == nullptr) continue;
        if (Status s = sim->injectFault(*qp, fault, value); !s) return s;
        ++done;
    }
    if (done == 0) return fail(Errc::notFound, "no such link");
    // Let the fault surface now rather than at the next poll.
    sim->progress();
    wakeSleepersLocked();
    return {};
}

}  // namespace smcr::core
