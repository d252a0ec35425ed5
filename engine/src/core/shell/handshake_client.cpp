// Client side of the CLC handshake over a connected TCP socket
// (smc-protocol.md 1.7): Proposal, Accept, Confirm, and on first contact the
// LLC CONFIRM_LINK exchange; any failure falls back to TCP with a reason.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/wire/decline_reasons.h>

#include "core/handshake/handshake.h"
#include "core/shell/clc_io.h"
#include "core/shell/handshake_io.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

namespace {

wire::ClcProposal makeProposal(const EngineImpl& engine, int fd) {
    wire::ClcProposal p;
    p.version = 1;
    p.typeV1 = wire::SmcType::r;
    p.typeV2 = wire::SmcType::none;
    p.peerId = engine.systemId();
    p.gid = engine.port().gid;
    p.mac = engine.port().mac;
    p.ipAreaOffset = 40;
    p.smcdArea = wire::ClcProposalSmcdArea{};
    // The v1 prefix area: our IPv4 subnet. libsmcr servers do not compare it
    // (one host, sim fabric); a kernel server would (DIFFPREFIX).
    wire::ClcProposalIpPrefix prefix;
    sockaddr_in local{};
    socklen_t len = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 && local.sin_family == AF_INET) {
        prefix.ipv4Subnet = ntohl(local.sin_addr.s_addr) & 0xFFFFFF00u;
    }
    prefix.ipv4PrefixLength = 24;
    p.ipPrefix = prefix;
    return p;
}

}  // namespace

Result<std::shared_ptr<SocketImpl>> EngineImpl::clientHandshake(int fd, const std::string& peerName) {
    // Link-group creation is serialized from the Accept on (the kernel takes
    // smc_client_lgr_pending in smc_connect_rdma, after the Proposal/Accept
    // exchange): the Proposal leaves at once. Holding the lock before it
    // would keep this connection silent while another thread's handshake
    // runs, and past lab.clc_detect_ms a libsmcr listener takes a silent
    // client for plain TCP.
    std::unique_lock pending(m_clientLgrPending, std::defer_lock);
    auto self = shared_from_this();
    Handshake hs(HandshakeRole::client);
    std::shared_ptr<LinkGroup> lgr;
    std::shared_ptr<Connection> conn;
    bool newLgr = false;

    // Undo what the handshake built, tell the peer if the core says so, and
    // carry on over TCP.
    auto fallBack = [&](const HandshakeActions& a) -> Result<std::shared_ptr<SocketImpl>> {
        // Best effort: the fallback goes ahead whether or not the peer hears it.
        if (a.sendDecline) (void)sendDecline(fd, m_systemId, a.declineReason, a.declineOutOfSync);
        {
            std::lock_guard lock(m_mutex);
            if (conn) {
                conn->appClosed = false;  // keep the TCP fd: the fallback socket owns it
                dropConnectionLocked(*conn);
            }
            if (lgr && newLgr) terminateLinkGroupLocked(lgr, wire::kDeleteLinkProgramTerm, false);
        }
        countFallback(HandshakeRole::client, a.fallbackReason, a.peerReason, a.handshakeError);
        return std::make_shared<SocketImpl>(self, fd, peerName, a.fallbackReason, a.peerReason);
    };
    auto eventOf = [](HandshakeEventKind kind) {
        HandshakeEvent e;
        e.kind = kind;
        return e;
    };

    hs.on(eventOf(HandshakeEventKind::start));
    const std::vector<uint8_t> proposal = wire::encode(makeProposal(*this, fd));
    if (Status s = writeAllTcp(fd, proposal); !s) return fail(s.error());

    const int clcWaitMs = static_cast<int>(m_settings.get(SettingId::clcWaitMs));
    ClcReceived msg = receiveClc(fd, clcWaitMs);
    if (!msg) return fallBack(hs.on(eventOf(msg.failure)));
    if (const auto* decline = std::get_if<wire::ClcDecline>(&msg.value())) {
        HandshakeEvent e = eventOf(HandshakeEventKind::decline);
        e.peerReason = decline->reasonCode;
        return fallBack(hs.on(e));
    }
    const auto* accept = std::get_if<wire::ClcAcceptConfirm>(&msg.value());
    if (accept == nullptr || accept->type != wire::ClcType::accept) {
        return fallBack(hs.on(eventOf(HandshakeEventKind::malformed)));
    }

    pending.lock();
    HandshakeEvent acceptEvent = eventOf(HandshakeEventKind::accept);
    acceptEvent.firstContact = accept->firstContact;
    acceptEvent.rmbeSizeValid = accept->rmbeSizeCode <= wire::kRmbeSizeCodeMaxSmcr;
    {
        std::unique_lock lock(m_mutex);
        const PeerKey key{accept->peerId, accept->gid};
        if (acceptEvent.rmbeSizeValid) {
            if (accept->firstContact) {
                auto made = createLinkGroupLocked(HandshakeRole::client, key);
                if (!made) {
                    lock.unlock();
                    HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
                    e.reason = wire::DeclineReason::errRdyLnk;
                    return fallBack(hs.on(e));
                }
                lgr = made.value();
                newLgr = true;
                // RQ credits (seed 004): on when the server offered and so do we.
                Link& link = lgr->primary();
                if (accept->initCredits > 0 && creditOfferLocked(link) > 0) link.enableCredits(accept->initCredits);
                const fabric::PathMtu mtu = std::min(mtuFromWire(accept->qpMtu), m_port.activeMtu);
                if (!link.bringUp(
                        LinkEndpoint{accept->mac, accept->gid, accept->qpn, accept->initialPsn, accept->qpMtu}, mtu)) {
                    lock.unlock();
                    HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
                    e.reason = wire::DeclineReason::errRdyLnk;
                    return fallBack(hs.on(e));
                }
            } else {
                lgr = findLinkGroupLocked(HandshakeRole::client, key, accept->qpn, false);
                acceptEvent.linkGroupFound = lgr != nullptr;
                // The server saw room in the group; here the slots may still be
                // held by connections whose closing CDCs are in flight.
                if (lgr && lgr->core->full()) {
                    const uint64_t deadline = monotonicNs() + m_settings.get(SettingId::llcWaitMs) * 1000000;
                    waitUntil(
                        lock, [&] { return !lgr->core->full() || lgr->terminated; }, deadline);
                }
            }
        }
        if (lgr) {
            auto added = addConnectionLocked(lgr);
            if (!added) {
                lock.unlock();
                HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
                e.reason = wire::DeclineReason::mem;
                return fallBack(hs.on(e));
            }
            conn = added.value();
            ConnectionParams params;
            params.localToken = conn->localToken;
            params.peerToken = accept->rmbeAlertToken;
            params.sndbufBytes = static_cast<uint32_t>(conn->sndbuf->length());
            params.rmbeBytes = static_cast<uint32_t>(conn->rmb->length());
            params.peerRmbeBytes = wire::rmbeCodeToSize(accept->rmbeSizeCode);
            conn->core = std::make_unique<ConnectionCore>(params);
            // RMBE index 1: the first (only) element of the peer's RMB.
            conn->assignment.primaryRmb =
                PeerRmb{accept->rmbVaddr + uint64_t{params.peerRmbeBytes} * (accept->rmbeIndex - 1u), accept->rmbRkey};
        }
    }
    HandshakeActions a = hs.on(acceptEvent);
    if (a.fallBack) return fallBack(a);

    // Confirm: our QP, RMB and token.
    wire::ClcAcceptConfirm confirm;
    confirm.type = wire::ClcType::confirm;
    confirm.version = 1;
    confirm.firstContact = accept->firstContact;
    confirm.peerId = m_systemId;
    confirm.gid = m_port.gid;
    confirm.mac = m_port.mac;
    {
        std::lock_guard lock(m_mutex);
        const Link& link = lgr->primary();
        confirm.qpn = link.local.qpn;
        confirm.initialPsn = link.local.psn;
        confirm.qpMtu = mtuToWire(link.mtu);
        // Our offer answers the server's; zero (reserved) when credits are off.
        if (newLgr && link.flow.credits.enabled()) confirm.initCredits = LinkCredits::offerFor(link.recvWr);
    }
    confirm.rmbRkey = conn->rmb->rkey();
    confirm.rmbeIndex = 1;
    confirm.rmbeAlertToken = conn->localToken;
    confirm.rmbeSizeCode = wire::rmbeSizeToCode(static_cast<uint32_t>(conn->rmb->length()));
    confirm.rmbVaddr = conn->rmb->address();
    if (Status s = writeAllTcp(fd, wire::encode(confirm)); !s) {
        HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
        e.reason = wire::DeclineReason::intErr;
        return fallBack(hs.on(e));
    }

    if (!a.established) {
        // First contact: the server's CONFIRM_LINK request is the first RoCE message.
        std::unique_lock lock(m_mutex);
        const LlcWaitResult w =
            waitForLlcFlag(*this, lock, *lgr, &LinkGroup::confirmLinkSeen, fd, m_settings.get(SettingId::llcWaitMs));
        if (w != LlcWaitResult::seen) {
            lock.unlock();
            if (w == LlcWaitResult::tcpData) {
                ClcReceived late = receiveClc(fd, clcWaitMs);
                if (late) {
                    if (const auto* d = std::get_if<wire::ClcDecline>(&late.value())) {
                        HandshakeEvent e = eventOf(HandshakeEventKind::decline);
                        e.peerReason = d->reasonCode;
                        return fallBack(hs.on(e));
                    }
                }
                return fallBack(hs.on(eventOf(HandshakeEventKind::malformed)));
            }
            return fallBack(hs.on(eventOf(HandshakeEventKind::timeout)));
        }
        a = hs.on(eventOf(HandshakeEventKind::confirmLinkRequest));
        if (Status s = postLlcLocked(*lgr, wire::encode(makeConfirmLink(*this, *lgr, true))); !s) {
            lock.unlock();
            HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
            e.reason = wire::DeclineReason::errRdyLnk;
            return fallBack(hs.on(e));
        }
        lgr->primary().core->activate(monotonicMs());
    }

    std::lock_guard lock(m_mutex);
    if (!newLgr) ++m_stats.linkGroupReuses;
    ++m_stats.clientSuccess;
    conn->tcpFd = fd;
    watchTcpLocked(*conn);
    replayEarlyCdcsLocked(*lgr, *conn);
    return std::make_shared<SocketImpl>(self, conn, fd, peerName);
}

void EngineImpl::countFallback(HandshakeRole role, uint32_t reason, uint32_t peerReason, bool error) {
    std::lock_guard lock(m_mutex);
    if (role == HandshakeRole::client) {
        ++m_stats.clientFallbacks;
        ++m_stats.clientFallbackReasons[reason];
    } else {
        ++m_stats.serverFallbacks;
        ++m_stats.serverFallbackReasons[reason];
    }
    if (peerReason != 0) ++m_stats.peerDeclineReasons[peerReason];
    if (error) ++m_stats.handshakeErrors;
}

}  // namespace smcr::core
