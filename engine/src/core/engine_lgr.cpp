// Link groups: creation with one RC QP, QP bring-up from the CLC values,
// connections and their pooled buffers, termination and linger.
#include <algorithm>
#include <cstring>
#include <random>

#include <sys/socket.h>
#include <unistd.h>

#include "engine_impl.h"
#include "llc_send.h"
#include "wr_id.h"

namespace smcr::core {

namespace {

// Kernel QP attributes for SMC-R (smc-protocol.md section 4).
constexpr uint8_t kMinRnrTimer = 5;  // 0.06 ms
constexpr uint8_t kAckTimeout = 15;  // ~134 ms
constexpr uint8_t kRetryCnt = 7;
constexpr uint8_t kRnrRetryInfinite = 7;
// Clients keep an unused link group 10 s longer than servers, so the server
// frees first (kernel SMC_LGR_FREE_DELAY_CLNT = SERV + 10 s).
constexpr uint64_t kClientExtraLingerMs = 10000;

}  // namespace

Result<std::shared_ptr<LinkGroup>> EngineImpl::createLinkGroupLocked(HandshakeRole role, const PeerKey& peer) {
    auto lgr = std::make_shared<LinkGroup>();
    lgr->id = m_nextLgrId++;
    lgr->role = role;
    lgr->peer = peer;
    lgr->createdMs = monotonicMs();
    lgr->sendSlots = static_cast<uint32_t>(m_settings.get(SettingId::maxSendWr));
    lgr->recvWr = static_cast<uint32_t>(m_settings.get(SettingId::maxRecvWr));
    uint64_t lingerMs = m_settings.get(SettingId::lgrLingerMs);
    if (role == HandshakeRole::client) lingerMs += kClientExtraLingerMs;
    std::random_device rd;
    lgr->core = std::make_unique<LinkGroupCore>(static_cast<uint32_t>(m_settings.get(SettingId::maxConnsPerLgr)),
                                                lingerMs, rd());
    LinkTimers timers;
    timers.testLinkIdleMs = m_settings.get(SettingId::testlinkTimeS) * 1000;
    timers.llcWaitMs = m_settings.get(SettingId::llcWaitMs);
    lgr->link = std::make_unique<LinkCore>(1, timers, monotonicMs());
    lgr->localPsn = rd() & fabric::kPsnMask;

    const fabric::DeviceLimits& limits = m_device->info().limits;
    fabric::QpInit init;
    init.sendCq = m_sendCq.get();
    init.recvCq = m_recvCq.get();
    // One CDC SEND may follow up to two RDMA WRITEs: 3 WRs per send slot.
    init.caps.maxSendWr = std::min(3 * lgr->sendSlots, limits.maxQpWr);
    init.caps.maxRecvWr = std::min(lgr->recvWr, limits.maxQpWr);
    init.caps.maxSendSge = 2;
    init.caps.maxRecvSge = 1;
    init.caps.maxInlineBytes = std::min<uint32_t>(kWrMessageBytes, limits.maxInlineBytes);
    auto qp = m_pd->createQp(init);
    if (!qp) return fail(qp.error());
    lgr->qp = std::move(qp.value());
    lgr->inlineSends = lgr->qp->caps().maxInlineBytes >= kWrMessageBytes;

    fabric::QpAttr attr;
    attr.state = fabric::QpState::init;
    attr.port = m_port.portNum;
    attr.accessFlags = fabric::Access::localWrite | fabric::Access::remoteWrite;
    if (Status s = lgr->qp->modify(attr, fabric::kMaskResetToInit); !s) return fail(s.error());

    auto recv = m_pd->allocateRegion(uint64_t{lgr->recvWr} * kWrBufferBytes, fabric::Access::localWrite);
    if (!recv) return fail(recv.error());
    lgr->recvBuffers = std::move(recv.value());
    if (!lgr->inlineSends) {
        auto send = m_pd->allocateRegion(uint64_t{lgr->sendSlots} * kWrBufferBytes, fabric::Access::localWrite);
        if (!send) return fail(send.error());
        lgr->sendBuffers = std::move(send.value());
    }
    // Receives are posted before the peer can send (from INIT on; the
    // server's CONFIRM_LINK follows the Confirm at once).
    for (uint32_t slot = 0; slot < lgr->recvWr; ++slot) {
        if (Status s = postRecvLocked(*lgr, slot); !s) return fail(s.error());
    }
    m_linkGroups.push_back(lgr);
    m_lgrByQpn[lgr->qp->qpn()] = lgr;
    ++m_stats.linkGroupsCreated;
    return lgr;
}

Status EngineImpl::bringUpQpLocked(LinkGroup& lgr, const wire::Gid& gid, const wire::Mac& mac, uint32_t qpn,
                                   uint32_t psn, fabric::PathMtu mtu) {
    lgr.peerMac = mac;
    lgr.peerQpn = qpn;
    lgr.mtu = mtu;
    fabric::QpAttr attr;
    attr.state = fabric::QpState::rtr;
    attr.remoteGid = gid;
    attr.remoteMac = mac;
    attr.hopLimit = 1;
    attr.pathMtu = mtu;
    attr.remoteQpn = qpn;
    attr.rqPsn = psn;
    attr.maxDestRdAtomic = 1;
    attr.minRnrTimer = kMinRnrTimer;
    if (Status s = lgr.qp->modify(attr, fabric::kMaskInitToRtr); !s) return s;
    attr.state = fabric::QpState::rts;
    attr.sqPsn = lgr.localPsn;
    attr.timeout = kAckTimeout;
    attr.retryCnt = kRetryCnt;
    attr.rnrRetry = kRnrRetryInfinite;
    attr.maxRdAtomic = 1;
    return lgr.qp->modify(attr, fabric::kMaskRtrToRts);
}

std::shared_ptr<LinkGroup> EngineImpl::findLinkGroupLocked(HandshakeRole role, const PeerKey& peer, uint32_t peerQpn,
                                                           bool anyQpn) {
    for (auto& lgr : m_linkGroups) {
        if (lgr->terminated || lgr->role != role || !(lgr->peer == peer)) continue;
        if (!lgr->link || lgr->link->state() != LinkState::active) continue;
        if (!anyQpn && lgr->peerQpn != peerQpn) continue;
        if (anyQpn && lgr->core->full()) continue;
        return lgr;
    }
    return nullptr;
}

Result<std::shared_ptr<Connection>> EngineImpl::addConnectionLocked(const std::shared_ptr<LinkGroup>& lgr) {
    auto token = lgr->core->addConnection();
    if (!token) return fail(Errc::outOfResources, "link group full");
    auto conn = std::make_shared<Connection>(lgr, *token);
    conn->id = m_nextConnId++;

    auto take = [&](std::vector<PooledBuffer>& pool, BufferPool& accounting, uint8_t sizeClass, fabric::Access access,
                    uint64_t& allocs, uint64_t& reuses) -> Result<uint32_t> {
        if (auto id = accounting.acquire(sizeClass)) {
            ++reuses;
            std::memset(pool[*id].region->data(), 0, pool[*id].region->length());
            return *id;
        }
        auto region = m_pd->allocateRegion(bufferClassBytes(sizeClass), access);
        if (!region) return fail(region.error());
        const auto id = static_cast<uint32_t>(pool.size());
        pool.push_back(PooledBuffer{std::move(region.value()), sizeClass});
        accounting.add(id, sizeClass);
        ++allocs;
        return id;
    };
    const uint8_t rmbClass = bufferClassFor(m_settings.get(SettingId::rmem));
    const uint8_t sndClass = bufferClassFor(m_settings.get(SettingId::wmem));
    auto rmb = take(lgr->rmbs, lgr->core->rmbs(), rmbClass, fabric::Access::localWrite | fabric::Access::remoteWrite,
                    m_stats.rmbAllocs, m_stats.rmbReuses);
    if (!rmb) {
        lgr->core->removeConnection(*token, monotonicMs());
        return fail(rmb.error());
    }
    auto snd = take(lgr->sndbufs, lgr->core->sndbufs(), sndClass, fabric::Access::localWrite, m_stats.sndbufAllocs,
                    m_stats.sndbufReuses);
    if (!snd) {
        lgr->core->rmbs().release(rmb.value());
        lgr->core->removeConnection(*token, monotonicMs());
        return fail(snd.error());
    }
    conn->rmbId = rmb.value();
    conn->sndbufId = snd.value();
    conn->rmb = lgr->rmbs[conn->rmbId].region.get();
    conn->sndbuf = lgr->sndbufs[conn->sndbufId].region.get();
    lgr->conns[*token] = conn;
    m_connById[conn->id] = conn;
    announceRmbLocked(*lgr, *conn);  // CONFIRM_RKEY on a multi-link group (engine_links.cpp)
    assignLinkLocked(*lgr, *conn);   // the link with fewer connections (engine_links.cpp)
    return conn;
}

void EngineImpl::dropConnectionLocked(Connection& conn) {
    if (conn.released) return;
    conn.released = true;
    unwatchTcpLocked(conn);
    m_connById.erase(conn.id);
    // Fold the counters into the engine totals before the connection goes.
    m_stats.total += conn.stats;
    if (auto lgr = conn.lgr) {
        withdrawRmbLocked(*lgr, conn);  // DELETE_RKEY on a multi-link group (engine_links.cpp)
        lgr->core->rmbs().release(conn.rmbId);
        lgr->core->sndbufs().release(conn.sndbufId);
        lgr->core->removeConnection(conn.localToken, monotonicMs());
        lgr->conns.erase(conn.localToken);
    }
    if (conn.tcpFd >= 0 && conn.appClosed) {
        ::close(conn.tcpFd);
        conn.tcpFd = -1;
    }
    std::erase_if(m_closingConns, [&](const auto& c2) { return c2.get() == &conn; });
}

void EngineImpl::lingerCheckLocked(uint64_t nowMs) {
    std::vector<std::shared_ptr<LinkGroup>> expired;
    for (auto& lgr : m_linkGroups) {
        if (lgr->core && lgr->core->lingerExpired(nowMs)) expired.push_back(lgr);
    }
    for (auto& lgr : expired) terminateLinkGroupLocked(lgr, wire::kDeleteLinkProgramTerm, true);
}

Status EngineImpl::postLlcLocked(LinkGroup& lgr, const wire::LlcBytes& bytes, CreditSendKind kind) {
    if (lgr.terminated) return fail(Errc::connectionAborted, "link group terminated");
    if (lgr.sendSlotsUsed >= lgr.sendSlots || !lgr.flow.credits.canSend(kind)) {
        lgr.pendingLlc.push_back(bytes);
        return {};
    }
    if (Status s =
            postLlcSend(*lgr.qp, lgr.inlineSends, lgr.sendBuffers.get(), lgr.nextSendBuffer, lgr.sendSlots, bytes);
        !s) {
        return s;
    }
    ++lgr.sendSlotsUsed;
    watchdogOnPostLocked(lgr.sendSlotsUsed);  // engine_watchdog.cpp
    (void)lgr.flow.credits.take(kind);        // checked above
    return {};
}

void EngineImpl::terminateLinkGroupLocked(const std::shared_ptr<LinkGroup>& lgr, uint32_t reason, bool tellPeer) {
    if (lgr->terminated) return;
    if (tellPeer && lgr->link && lgr->link->state() == LinkState::active) {
        wire::LlcDeleteLink del;
        del.allLinks = true;
        del.orderly = true;
        del.linkNumber = lgr->link->linkId();
        del.reason = reason;
        (void)postLlcLocked(*lgr, wire::encode(del));  // best effort: the group goes anyway
    }
    lgr->terminated = true;
    dropStandbyLocked(*lgr);  // the added link goes with the group (engine_links.cpp)
    if (lgr->link) {
        if (lgr->link->state() != LinkState::down) ++m_stats.linksDown;
        lgr->link->markDown();
    }
    if (lgr->qp) (void)lgr->qp->setError();  // flushes whatever is outstanding
    // Every connection on the group is aborted locally (ECONNABORTED).
    std::vector<std::shared_ptr<Connection>> conns;
    for (auto& [token, conn] : lgr->conns) conns.push_back(conn);
    for (auto& conn : conns) {
        if (conn->core) {
            CloseActions a = conn->core->closer().on(CloseEvent::linkGroupLost);
            if (a.error != Errc::invalid) {
                conn->error = a.error;
                ++m_stats.connectionsAborted;
            }
        } else {
            conn->error = Errc::connectionAborted;
        }
        // The peer may be idle and never touch the dead link: tell it over
        // TCP, as the kernel aborts the CLC socket of a killed connection.
        if (conn->tcpFd >= 0) ::shutdown(conn->tcpFd, SHUT_RDWR);
        // Nothing will complete on an errored QP: the sndbuf is gone with it.
        if (conn->appClosed) dropConnectionLocked(*conn);
    }
    std::erase(m_linkGroups, lgr);
    if (lgr->qp) m_lgrByQpn.erase(lgr->qp->qpn());
    ++m_stats.linkGroupsFreed;
    wakeSleepersLocked();
}

}  // namespace smcr::core
