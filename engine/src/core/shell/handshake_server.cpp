// Server side of the CLC handshake for an accepted TCP socket whose first
// bytes carry the CLC eyecatcher (smc_detect.h decided that): Proposal,
// Accept, Confirm, and on first contact the CONFIRM_LINK request/response.
#include <algorithm>
#include <utility>
#include <vector>

#include <smcr/wire/decline_reasons.h>

#include "core/handshake/handshake.h"
#include "core/shell/clc_io.h"
#include "core/shell/handshake_io.h"
#include "core/shell/handshake_v2.h"
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
    countFallback(Side::server, static_cast<uint32_t>(reason), 0, false);
    {
        std::lock_guard lock(m_mutex);
        ++m_stats.limitHsFallbacks;
    }
    auto sock = std::make_shared<SocketImpl>(shared_from_this(), fd, peerName, static_cast<uint32_t>(reason), 0);
    if (!prefix.empty()) sock->setPrefix(std::move(prefix));
    return sock;
}

// One server handshake: what it has built so far and its steps, in the
// order of run(). Each step either carries on (nullptr) or ends the
// handshake with the socket it fell back to.
class ServerHandshakeDriver {
public:
    using Outcome = std::shared_ptr<SocketImpl>;

    ServerHandshakeDriver(EngineImpl& engine, int fd, const std::string& peerName, std::vector<uint8_t> prefix)
        : m_engine(engine),
          m_self(engine.shared_from_this()),
          m_fd(fd),
          m_peerName(peerName),
          m_prefix(std::move(prefix)),
          m_clcWaitMs(static_cast<int>(engine.m_settings.get(SettingId::clcWaitMs))) {}

    Outcome run() {
        m_hs.on(eventOf(HandshakeEventKind::start));
        if (auto end = receiveProposal()) return end;
        if (auto end = joinLinkGroup()) return end;
        if (auto end = sendAccept()) return end;
        if (auto end = receiveConfirm()) return end;
        if (auto end = confirmFirstLink()) return end;
        return established();
    }

private:
    Outcome receiveProposal();
    // The client's link group (found, or new: first contact) and our connection in it.
    Outcome joinLinkGroup();
    void joinLinkGroupLocked(const PeerKey& peer);
    Outcome sendAccept();
    Outcome receiveConfirm();
    void startConnectionLocked(const HandshakeEvent& confirmEvent);
    // First contact: our CONFIRM_LINK request over the new link, the client's response.
    Outcome confirmFirstLink();
    Outcome established();
    // A Decline from the client; with out-of-sync our reused group is stale.
    Outcome onDecline(const wire::ClcDecline& d);
    // Undoes what the handshake built, tells the peer if the machine says
    // so, and carries on over TCP.
    Outcome fallBack(const HandshakeActions& a);
    Outcome fallBack(const HandshakeEvent& e) { return fallBack(m_hs.on(e)); }

    EngineImpl& m_engine;
    std::shared_ptr<EngineImpl> m_self;
    int m_fd;
    const std::string& m_peerName;
    // The client's first bytes, already read by the listener's sort; what no
    // CLC message takes is the application's on a fallback.
    std::vector<uint8_t> m_prefix;
    int m_clcWaitMs;
    Handshake m_hs{Side::server};
    wire::ClcProposal m_proposal;
    wire::ClcAcceptConfirm m_accept;   // ours
    wire::ClcAcceptConfirm m_confirm;  // the client's
    HandshakeActions m_confirmed;      // what the machine made of the Confirm
    std::shared_ptr<LinkGroup> m_lgr;
    std::shared_ptr<Connection> m_conn;
    bool m_newLgr = false;
    bool m_v2 = false;  // SMC-Rv2 chosen: the client offered it with our UEID
};

ServerHandshakeDriver::Outcome ServerHandshakeDriver::receiveProposal() {
    ClcReceived msg = receiveClc(m_fd, m_clcWaitMs, &m_prefix);
    if (!msg) return fallBack(eventOf(msg.failure));
    if (const auto* d = std::get_if<wire::ClcDecline>(&msg.value())) return onDecline(*d);
    auto* proposal = std::get_if<wire::ClcProposal>(&*msg.message);
    if (proposal == nullptr) return fallBack(eventOf(HandshakeEventKind::malformed));
    m_proposal = std::move(*proposal);  // a v2 client's extensions: moved, not copied
    return nullptr;
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::joinLinkGroup() {
    HandshakeEvent event = eventOf(HandshakeEventKind::proposal);
    // SMC-Rv2 first, as the kernel (smc_listen_find_device): our UEID among the client's.
    m_v2 = proposalMatchesV2(m_proposal, ueidOf(m_engine.m_settings));
    event.smcrOffered = m_v2 || m_proposal.typeV1 == wire::SmcType::r || m_proposal.typeV1 == wire::SmcType::both;
    if (event.smcrOffered) {
        std::lock_guard lock(m_engine.m_mutex);
        // A v2 client is known by its RoCE v2 GID (the kernel's v2 Proposal has no v1 part).
        joinLinkGroupLocked(m_v2 ? PeerKey{m_proposal.peerId, m_proposal.v2Ext->roceV2Gid}
                                 : PeerKey{m_proposal.peerId, m_proposal.gid});
    }
    if (event.smcrOffered && !m_conn) {
        m_hs.on(event);  // moves past awaitProposal so the failure declines
        return fallBack(localFailureOf(wire::DeclineReason::mem));
    }
    const HandshakeActions a = m_hs.on(event);
    if (a.fallBack) return fallBack(a);
    return nullptr;
}

void ServerHandshakeDriver::joinLinkGroupLocked(const PeerKey& peer) {
    m_lgr = m_engine.findLinkGroupLocked(Side::server, peer, 0, true);
    if (!m_lgr) {
        auto made = m_engine.createLinkGroupLocked(Side::server, peer);
        if (made) {
            m_lgr = made.value();
            m_newLgr = true;
            if (m_v2) m_lgr->llcVersion = wire::LlcVersion::v2;
        }
    }
    if (m_lgr) {
        auto added = m_engine.addConnectionLocked(m_lgr);
        if (added) m_conn = added.value();
    }
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::sendAccept() {
    {
        std::lock_guard lock(m_engine.m_mutex);
        const Link& link = m_lgr->primary();
        m_accept = makeAcceptConfirm(m_engine, wire::ClcType::accept, m_newLgr, link, *m_conn);
        // RQ credits offer (seed 004), first contact only; zero = reserved.
        if (m_newLgr) m_accept.initCredits = m_engine.creditOfferLocked(link);
    }
    m_accept.qpMtu = mtuToWire(m_engine.m_port.activeMtu);
    if (m_v2) makeAcceptV2(m_proposal, *ueidOf(m_engine.m_settings), m_accept);
    if (Status s = writeAllTcp(m_fd, wire::encode(m_accept)); !s) {
        return fallBack(localFailureOf(wire::DeclineReason::intErr));
    }
    return nullptr;
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::receiveConfirm() {
    ClcReceived msg = receiveClc(m_fd, m_clcWaitMs, &m_prefix);
    if (!msg) {
        // After our Accept, anything but a CLC message is a broken peer (CNFERR).
        const bool timedOut = msg.failure == HandshakeEventKind::timeout;
        return fallBack(eventOf(timedOut ? HandshakeEventKind::timeout : HandshakeEventKind::malformed));
    }
    if (const auto* d = std::get_if<wire::ClcDecline>(&msg.value())) return onDecline(*d);
    auto* confirm = std::get_if<wire::ClcAcceptConfirm>(&*msg.message);
    if (confirm == nullptr || confirm->type != wire::ClcType::confirm) {
        return fallBack(eventOf(HandshakeEventKind::malformed));
    }
    m_confirm = std::move(*confirm);
    HandshakeEvent event = eventOf(HandshakeEventKind::confirm);
    event.firstContact = m_newLgr;
    event.rmbeSizeValid = m_confirm.rmbeSizeCode <= wire::kRmbeSizeCodeMaxSmcr;
    {
        std::lock_guard lock(m_engine.m_mutex);
        startConnectionLocked(event);
    }
    m_confirmed = m_hs.on(event);
    if (m_confirmed.fallBack) return fallBack(m_confirmed);
    return nullptr;
}

void ServerHandshakeDriver::startConnectionLocked(const HandshakeEvent& confirmEvent) {
    if (confirmEvent.rmbeSizeValid) startConnectionCore(*m_conn, m_confirm);
    // Credits are on when we offered and the client answered with its own.
    if (m_newLgr && m_accept.initCredits > 0) m_lgr->primary().enableCredits(m_confirm.initCredits);
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::confirmFirstLink() {
    if (!m_confirmed.sendConfirmLinkRequest) return nullptr;  // a reused link group: no LLC exchange
    std::unique_lock lock(m_engine.m_mutex);
    const fabric::PathMtu mtu = std::min(mtuFromWire(m_confirm.qpMtu), m_engine.m_port.activeMtu);
    const LinkEndpoint client{m_confirm.mac, m_confirm.gid, m_confirm.qpn, m_confirm.initialPsn, m_confirm.qpMtu};
    if (!m_lgr->primary().bringUp(client, mtu) ||
        !m_engine.postLlcLocked(*m_lgr, wire::encode(makeConfirmLink(m_engine, *m_lgr, false)))) {
        lock.unlock();
        return fallBack(localFailureOf(wire::DeclineReason::errRdyLnk));
    }
    const LlcWaitResult w = waitForLlcFlag(m_engine, lock, *m_lgr, &LinkGroup::confirmLinkRespSeen, m_fd,
                                           m_engine.m_settings.get(SettingId::llcWaitMs));
    if (w != LlcWaitResult::seen) {
        lock.unlock();
        return fallBack(eventOf(HandshakeEventKind::timeout));
    }
    m_hs.on(eventOf(HandshakeEventKind::confirmLinkResponse));
    m_lgr->primary().core->activate(monotonicMs());
    return nullptr;
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::established() {
    std::lock_guard lock(m_engine.m_mutex);
    ++m_engine.m_stats.serverSuccess;
    m_engine.establishLocked(*m_lgr, *m_conn, m_fd, m_newLgr);
    return std::make_shared<SocketImpl>(m_self, m_conn, m_fd, m_peerName);
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::onDecline(const wire::ClcDecline& d) {
    if (d.outOfSync && m_lgr && !m_newLgr) {
        std::lock_guard lock(m_engine.m_mutex);
        if (m_conn) {
            m_engine.dropConnectionLocked(*m_conn);
            m_conn.reset();
        }
        m_engine.terminateLinkGroupLocked(m_lgr, wire::DeleteLinkReason::protocolViolation,
                                          EngineImpl::PeerNotice::deleteLink);
        m_lgr.reset();
    }
    return fallBack(declineOf(d));
}

ServerHandshakeDriver::Outcome ServerHandshakeDriver::fallBack(const HandshakeActions& a) {
    // Best effort: the fallback goes ahead whether or not the peer hears it.
    if (a.sendDecline) (void)sendDecline(m_fd, m_engine.m_systemId, a.declineReason, a.declineOutOfSync);
    {
        std::lock_guard lock(m_engine.m_mutex);
        if (m_conn) m_engine.dropConnectionLocked(*m_conn);
        if (m_lgr && m_newLgr)
            m_engine.terminateLinkGroupLocked(m_lgr, wire::DeleteLinkReason::programTerm, EngineImpl::PeerNotice::none);
    }
    m_engine.countFallback(Side::server, a.fallbackReason, a.peerReason, a.handshakeError);
    auto sock = std::make_shared<SocketImpl>(m_self, m_fd, m_peerName, a.fallbackReason, a.peerReason);
    // Bytes the sort read that no CLC message took: the application's, as
    // if they had been left on the socket.
    if (!m_prefix.empty()) sock->setPrefix(std::move(m_prefix));
    return sock;
}

std::shared_ptr<SocketImpl> EngineImpl::serverHandshake(int fd, const std::string& peerName,
                                                        std::vector<uint8_t> prefix) {
    std::lock_guard pending(m_serverLgrPending);
    return ServerHandshakeDriver(*this, fd, peerName, std::move(prefix)).run();
}

}  // namespace smcr::core
