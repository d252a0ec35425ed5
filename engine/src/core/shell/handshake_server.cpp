// Server side of the CLC handshake for an accepted TCP socket whose first
// bytes carry the CLC eyecatcher (smc_detect.h decided that): Proposal,
// Accept, Confirm, and on first contact the CONFIRM_LINK request/response.
#include <smcr/wire/decline_reasons.h>

#include "core/handshake/handshake.h"
#include "core/shell/clc_io.h"
#include "core/shell/handshake_io.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

std::shared_ptr<SocketImpl> EngineImpl::serverDeclineCongested(int fd, const std::string& peerName) {
    // The kernel stops echoing the SYN option under congestion, so its
    // client never proposes; this one has, and waits for the answer. Reason
    // PEERNOSMC on both counts, as the listener's decline.
    // Taken off the socket (nothing of it may reach the application); anything
    // but a Proposal (the preload's marked clients always send one) is
    // declined the same way, the client falls back either way.
    std::vector<uint8_t> prefix;
    (void)receiveClc(fd, static_cast<int>(m_settings.get(SettingId::clcWaitMs)), &prefix);
    const auto reason = wire::DeclineReason::peerNoSmc;
    (void)sendDecline(fd, m_systemId, reason, false);  // best effort, as in the handshake
    countFallback(HandshakeRole::server, static_cast<uint32_t>(reason), 0, false);
    {
        std::lock_guard lock(m_mutex);
        ++m_stats.limitHsFallbacks;
    }
    auto sock = std::make_shared<SocketImpl>(shared_from_this(), fd, peerName, static_cast<uint32_t>(reason), 0);
    if (!prefix.empty()) sock->setPrefix(std::move(prefix));
    return sock;
}

std::shared_ptr<SocketImpl> EngineImpl::serverHandshake(int fd, const std::string& peerName,
                                                        std::vector<uint8_t> prefix) {
    std::lock_guard pending(m_serverLgrPending);
    auto self = shared_from_this();
    Handshake hs(HandshakeRole::server);
    std::shared_ptr<LinkGroup> lgr;
    std::shared_ptr<Connection> conn;
    bool newLgr = false;

    auto fallBack = [&](const HandshakeActions& a) {
        // Best effort: the fallback goes ahead whether or not the peer hears it.
        if (a.sendDecline) (void)sendDecline(fd, m_systemId, a.declineReason, a.declineOutOfSync);
        {
            std::lock_guard lock(m_mutex);
            if (conn) dropConnectionLocked(*conn);
            if (lgr && newLgr) terminateLinkGroupLocked(lgr, wire::kDeleteLinkProgramTerm, false);
        }
        countFallback(HandshakeRole::server, a.fallbackReason, a.peerReason, a.handshakeError);
        auto sock = std::make_shared<SocketImpl>(self, fd, peerName, a.fallbackReason, a.peerReason);
        // Bytes the sort read that no CLC message took: the application's, as
        // if they had been left on the socket.
        if (!prefix.empty()) sock->setPrefix(std::move(prefix));
        return sock;
    };
    auto eventOf = [](HandshakeEventKind kind) {
        HandshakeEvent e;
        e.kind = kind;
        return e;
    };
    // A Decline from the client; with out-of-sync our reused group is stale.
    auto onDecline = [&](const wire::ClcDecline& d) {
        if (d.outOfSync && lgr && !newLgr) {
            std::lock_guard lock(m_mutex);
            if (conn) {
                dropConnectionLocked(*conn);
                conn.reset();
            }
            terminateLinkGroupLocked(lgr, wire::kDeleteLinkProtocolViolation, true);
            lgr.reset();
        }
        HandshakeEvent e = eventOf(HandshakeEventKind::decline);
        e.peerReason = d.reasonCode;
        return fallBack(hs.on(e));
    };

    hs.on(eventOf(HandshakeEventKind::start));
    const int clcWaitMs = static_cast<int>(m_settings.get(SettingId::clcWaitMs));
    ClcReceived msg = receiveClc(fd, clcWaitMs, &prefix);
    if (!msg) return fallBack(hs.on(eventOf(msg.failure)));
    if (const auto* d = std::get_if<wire::ClcDecline>(&msg.value())) return onDecline(*d);
    const auto* proposal = std::get_if<wire::ClcProposal>(&msg.value());
    if (proposal == nullptr) return fallBack(hs.on(eventOf(HandshakeEventKind::malformed)));

    HandshakeEvent proposalEvent = eventOf(HandshakeEventKind::proposal);
    proposalEvent.smcrOffered = proposal->typeV1 == wire::SmcType::r || proposal->typeV1 == wire::SmcType::both;
    if (proposalEvent.smcrOffered) {
        std::lock_guard lock(m_mutex);
        const PeerKey key{proposal->peerId, proposal->gid};
        lgr = findLinkGroupLocked(HandshakeRole::server, key, 0, true);
        if (!lgr) {
            auto made = createLinkGroupLocked(HandshakeRole::server, key);
            if (made) {
                lgr = made.value();
                newLgr = true;
            }
        }
        if (lgr) {
            auto added = addConnectionLocked(lgr);
            if (added) conn = added.value();
        }
    }
    if (proposalEvent.smcrOffered && !conn) {
        hs.on(proposalEvent);  // moves past awaitProposal so the failure declines
        HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
        e.reason = wire::DeclineReason::mem;
        return fallBack(hs.on(e));
    }
    HandshakeActions a = hs.on(proposalEvent);
    if (a.fallBack) return fallBack(a);

    wire::ClcAcceptConfirm accept;
    accept.type = wire::ClcType::accept;
    accept.version = 1;
    accept.firstContact = newLgr;
    accept.peerId = m_systemId;
    accept.gid = m_port.gid;
    accept.mac = m_port.mac;
    {
        std::lock_guard lock(m_mutex);
        accept.qpn = lgr->primary().local.qpn;
        accept.initialPsn = lgr->primary().local.psn;
        // RQ credits offer (seed 004), first contact only; zero = reserved.
        if (newLgr) accept.initCredits = creditOfferLocked(lgr->primary());
    }
    accept.qpMtu = mtuToWire(m_port.activeMtu);
    accept.rmbRkey = conn->rmb->rkey();
    accept.rmbeIndex = 1;
    accept.rmbeAlertToken = conn->localToken;
    accept.rmbeSizeCode = wire::rmbeSizeToCode(static_cast<uint32_t>(conn->rmb->length()));
    accept.rmbVaddr = conn->rmb->address();
    if (Status s = writeAllTcp(fd, wire::encode(accept)); !s) {
        HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
        e.reason = wire::DeclineReason::intErr;
        return fallBack(hs.on(e));
    }

    msg = receiveClc(fd, clcWaitMs, &prefix);
    if (!msg) {
        // After our Accept, anything but a CLC message is a broken peer (CNFERR).
        const bool timedOut = msg.failure == HandshakeEventKind::timeout;
        return fallBack(hs.on(eventOf(timedOut ? HandshakeEventKind::timeout : HandshakeEventKind::malformed)));
    }
    if (const auto* d = std::get_if<wire::ClcDecline>(&msg.value())) return onDecline(*d);
    const auto* confirm = std::get_if<wire::ClcAcceptConfirm>(&msg.value());
    if (confirm == nullptr || confirm->type != wire::ClcType::confirm) {
        return fallBack(hs.on(eventOf(HandshakeEventKind::malformed)));
    }
    HandshakeEvent confirmEvent = eventOf(HandshakeEventKind::confirm);
    confirmEvent.firstContact = newLgr;
    confirmEvent.rmbeSizeValid = confirm->rmbeSizeCode <= wire::kRmbeSizeCodeMaxSmcr;
    {
        std::lock_guard lock(m_mutex);
        if (confirmEvent.rmbeSizeValid) {
            ConnectionParams params;
            params.localToken = conn->localToken;
            params.peerToken = confirm->rmbeAlertToken;
            params.sndbufBytes = static_cast<uint32_t>(conn->sndbuf->length());
            params.rmbeBytes = static_cast<uint32_t>(conn->rmb->length());
            params.peerRmbeBytes = wire::rmbeCodeToSize(confirm->rmbeSizeCode);
            conn->core = std::make_unique<ConnectionCore>(params);
            conn->assignment.primaryRmb = PeerRmb{
                confirm->rmbVaddr + uint64_t{params.peerRmbeBytes} * (confirm->rmbeIndex - 1u), confirm->rmbRkey};
        }
        // Credits are on when we offered and the client answered with its own.
        if (newLgr && accept.initCredits > 0) lgr->primary().enableCredits(confirm->initCredits);
    }
    a = hs.on(confirmEvent);
    if (a.fallBack) return fallBack(a);

    if (a.sendConfirmLinkRequest) {
        std::unique_lock lock(m_mutex);
        const fabric::PathMtu mtu = std::min(mtuFromWire(confirm->qpMtu), m_port.activeMtu);
        const LinkEndpoint peer{confirm->mac, confirm->gid, confirm->qpn, confirm->initialPsn, confirm->qpMtu};
        if (!lgr->primary().bringUp(peer, mtu) ||
            !postLlcLocked(*lgr, wire::encode(makeConfirmLink(*this, *lgr, false)))) {
            lock.unlock();
            HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
            e.reason = wire::DeclineReason::errRdyLnk;
            return fallBack(hs.on(e));
        }
        const LlcWaitResult w = waitForLlcFlag(*this, lock, *lgr, &LinkGroup::confirmLinkRespSeen, fd,
                                               m_settings.get(SettingId::llcWaitMs));
        if (w != LlcWaitResult::seen) {
            lock.unlock();
            return fallBack(hs.on(eventOf(HandshakeEventKind::timeout)));
        }
        a = hs.on(eventOf(HandshakeEventKind::confirmLinkResponse));
        lgr->primary().core->activate(monotonicMs());
    }

    std::lock_guard lock(m_mutex);
    if (!newLgr) ++m_stats.linkGroupReuses;
    ++m_stats.serverSuccess;
    conn->tcpFd = fd;
    watchTcpLocked(*conn);
    replayEarlyCdcsLocked(*lgr, *conn);
    return std::make_shared<SocketImpl>(self, conn, fd, peerName);
}

}  // namespace smcr::core
