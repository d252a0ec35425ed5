// Link groups: creation with their first link, the links' fabric setup
// (link.h) and LLC posting on either link, connections and their pooled
// buffers, termination and linger.
#include <algorithm>
#include <cstring>
#include <random>

#include <sys/socket.h>
#include <unistd.h>

#include "core/shell/engine_impl.h"
#include "core/shell/handshake_io.h"

namespace smcr::core {

namespace {

// Clients keep an unused link group 10 s longer than servers, so the server
// frees first (kernel SMC_LGR_FREE_DELAY_CLNT = SERV + 10 s).
constexpr uint64_t kClientExtraLingerMs = 10000;

}  // namespace

Result<std::shared_ptr<LinkGroup>> EngineImpl::createLinkGroupLocked(Side role, const PeerKey& peer) {
    auto lgr = std::make_shared<LinkGroup>();
    lgr->id = m_nextLgrId++;
    lgr->role = role;
    lgr->peer = peer;
    lgr->createdMs = monotonicMs();
    uint64_t lingerMs = m_settings.get(SettingId::lgrLingerMs);
    if (role == Side::client) lingerMs += kClientExtraLingerMs;
    std::random_device rd;
    lgr->core = std::make_unique<LinkGroupCore>(static_cast<uint32_t>(m_settings.get(SettingId::maxConnsPerLgr)),
                                                lingerMs, rd());
    auto link = makeLinkLocked(lgr, m_port, 1, static_cast<uint32_t>(m_settings.get(SettingId::maxSendWr)),
                               static_cast<uint32_t>(m_settings.get(SettingId::maxRecvWr)));
    if (!link) return fail(link.error());
    lgr->links[lgr->current] = std::move(link.value());
    m_linkGroups.push_back(lgr);
    ++m_stats.linkGroupsCreated;
    return lgr;
}

Result<std::unique_ptr<Link>> EngineImpl::makeLinkLocked(const std::shared_ptr<LinkGroup>& lgr,
                                                         const fabric::PortInfo& port, uint8_t linkId,
                                                         uint32_t sendSlots, uint32_t recvWr) {
    LinkSetup setup;
    setup.pd = m_pd.get();
    setup.sendCq = m_sendCq.get();
    setup.recvCq = m_recvCq.get();
    setup.limits = &m_device->info().limits;
    setup.port = &port;
    setup.announcedMtu = mtuToWire(port.activeMtu);
    setup.linkId = linkId;
    setup.sendSlots = sendSlots;
    setup.recvWr = recvWr;
    setup.timers.testLinkIdleMs = m_settings.get(SettingId::testlinkTimeS) * 1000;
    setup.timers.llcWaitMs = m_settings.get(SettingId::llcWaitMs);
    setup.nowMs = monotonicMs();
    auto link = Link::create(setup);
    if (!link) return fail(link.error());
    m_lgrByQpn[link.value()->qp->qpn()] = lgr;
    return link;
}

std::shared_ptr<LinkGroup> EngineImpl::findLinkGroupLocked(Side role, const PeerKey& peer, uint32_t peerQpn,
                                                           bool anyQpn) {
    for (auto& lgr : m_linkGroups) {
        if (lgr->terminated || lgr->role != role || !(lgr->peer == peer)) continue;
        if (!lgr->primary().active()) continue;
        if (!anyQpn && lgr->primary().peerQpn != peerQpn) continue;
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
    m_stats.total += conn.totals();
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
    for (auto& lgr : expired)
        terminateLinkGroupLocked(lgr, wire::DeleteLinkReason::programTerm, PeerNotice::deleteLink);
}

Status EngineImpl::postLlcLocked(LinkGroup& lgr, Link& link, const wire::LlcBytes& bytes, CreditSendKind kind) {
    if (lgr.terminated) return fail(Errc::connectionAborted, "link group terminated");
    auto posted = link.postLlc(lgr.llcVersion == wire::LlcVersion::v2 ? wire::asLlcV2(bytes) : bytes, kind);
    if (!posted) return fail(posted.error());
    if (posted.value()) watchdogOnPostLocked(link.sendSlotsUsed);  // engine_watchdog.cpp
    return {};
}

void EngineImpl::terminateLinkGroupLocked(const std::shared_ptr<LinkGroup>& lgr, wire::DeleteLinkReason reason,
                                          PeerNotice notice) {
    if (lgr->terminated) return;
    Link& primary = lgr->primary();
    if (notice == PeerNotice::deleteLink && primary.active()) {
        wire::LlcDeleteLink del;
        del.allLinks = true;
        del.orderly = true;
        del.linkNumber = primary.linkId();
        del.reason = static_cast<uint32_t>(reason);
        (void)postLlcLocked(*lgr, wire::encode(del));  // best effort: the group goes anyway
    }
    lgr->terminated = true;
    dropStandbyLocked(*lgr);  // the added link goes with the group (engine_links.cpp)
    if (primary.core->state() != LinkState::down) ++m_stats.linksDown;
    primary.core->markDown();
    (void)primary.qp->setError();  // flushes whatever is outstanding
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
    m_lgrByQpn.erase(primary.qp->qpn());
    ++m_stats.linkGroupsFreed;
    wakeSleepersLocked();
}

}  // namespace smcr::core
