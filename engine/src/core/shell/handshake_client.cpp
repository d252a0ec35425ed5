// Client side of the CLC handshake over a connected TCP socket
// (smc-protocol.md 1.7): Proposal, Accept, Confirm, and on first contact the
// LLC CONFIRM_LINK exchange; any failure falls back to TCP with a reason.
#include <optional>
#include <utility>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/syn_option.h>
#include <smcr/wire/decline_reasons.h>

#include "core/handshake/handshake.h"
#include "core/shell/clc_io.h"
#include "core/shell/handshake_io.h"
#include "core/shell/handshake_v2.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

namespace {

// SMC-Rv2 as the kernel proposes it (smc_clc_send_proposal): v2 only,
// no v1 GID, MAC or IP prefix area, the v2 extension with our IPv4-mapped
// RoCE v2 GID and the UEID. Release 1 (v2.1): one link, up to 255
// connections per link group.
wire::ClcProposal makeProposalV2(const EngineImpl& engine, const wire::Eid& ueid) {
    wire::ClcProposal p;
    p.version = 2;
    // Unlike the kernel (whose v2 Proposal leaves it zero), our system id:
    // a kernel server matches link groups on it, and each libsmcr process
    // is its own peer. With zero ids a new process got the link group of
    // one that had ended, and the kernel fell back (ERR_REGBUF).
    p.peerId = engine.systemId();
    p.typeV1 = wire::SmcType::none;
    p.typeV2 = wire::SmcType::r;
    p.ipAreaOffset = 0;
    p.smcdArea = wire::ClcProposalSmcdArea{};
    wire::ClcProposalV2Ext ext;
    ext.release = 1;
    ext.roceV2Gid = engine.port().gid;
    ext.maxConns = kV2MaxConns;
    ext.maxLinks = kV2MaxLinks;
    ext.ueids.push_back(ueid);
    p.v2Ext = ext;
    return p;
}

wire::ClcProposal makeProposal(const EngineImpl& engine, int fd, const std::optional<wire::Eid>& ueid) {
    if (ueid) return makeProposalV2(engine, *ueid);
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

// One client handshake: what it has built so far and its steps, in the
// order of run(). Each step either carries on (nullopt) or ends the
// handshake with its outcome: a fallback socket or an error.
class ClientHandshakeDriver {
public:
    using Outcome = Result<std::shared_ptr<SocketImpl>>;

    ClientHandshakeDriver(EngineImpl& engine, int fd, const std::string& peerName)
        : m_engine(engine),
          m_self(engine.shared_from_this()),
          m_fd(fd),
          m_peerName(peerName),
          m_clcWaitMs(static_cast<int>(engine.m_settings.get(SettingId::clcWaitMs))),
          m_pending(engine.m_clientLgrPending, std::defer_lock) {}

    Outcome run() {
        if (peerSynOption(m_fd) == PeerSynOption::absent) {
            // The server's SYN-ACK had no SMC option: a plain TCP server, or a
            // kernel one that took our SYN for a plain one. Either hands CLC
            // bytes to its application, so none go (the kernel's
            // smc_connect_fallback, PEERNOSMC).
            m_hs.on(eventOf(HandshakeEventKind::start));
            return fallBack(eventOf(HandshakeEventKind::notClc));
        }
        if (Status s = sendProposal(); !s) return fail(s.error());
        if (auto end = receiveAccept()) return std::move(*end);
        // Link-group creation is serialized from the Accept on (the kernel
        // takes smc_client_lgr_pending in smc_connect_rdma, after the
        // Proposal/Accept exchange): the Proposal leaves at once. Holding the
        // lock before it would keep this connection silent while another
        // thread's handshake runs, and past lab.clc_detect_ms a libsmcr
        // listener takes a silent client for plain TCP.
        m_pending.lock();
        if (auto end = joinLinkGroup()) return std::move(*end);
        if (auto end = sendConfirm()) return std::move(*end);
        if (auto end = confirmFirstLink()) return std::move(*end);
        return established();
    }

private:
    Status sendProposal();
    std::optional<Outcome> receiveAccept();
    // The link group the Accept names (new on first contact) and our connection in it.
    std::optional<Outcome> joinLinkGroup();
    std::optional<wire::DeclineReason> linkGroupLocked(std::unique_lock<std::mutex>& lock, HandshakeEvent& event);
    std::optional<wire::DeclineReason> newLinkGroupLocked(const PeerKey& peer);
    std::optional<wire::DeclineReason> addConnectionLocked();
    std::optional<Outcome> sendConfirm();
    // First contact: the server's CONFIRM_LINK request, our response.
    std::optional<Outcome> confirmFirstLink();
    Outcome confirmLinkMissed(LlcWaitResult w);
    Outcome established();
    // Undoes what the handshake built, tells the peer if the machine says
    // so, and carries on over TCP.
    Outcome fallBack(const HandshakeActions& a);
    Outcome fallBack(const HandshakeEvent& e) { return fallBack(m_hs.on(e)); }

    EngineImpl& m_engine;
    std::shared_ptr<EngineImpl> m_self;
    int m_fd;
    const std::string& m_peerName;
    int m_clcWaitMs;
    std::unique_lock<std::mutex> m_pending;  // the engine's m_clientLgrPending
    Handshake m_hs{Side::client};
    wire::ClcAcceptConfirm m_accept;  // the server's Accept
    bool m_establishedByAccept = false;
    std::shared_ptr<LinkGroup> m_lgr;
    std::shared_ptr<Connection> m_conn;
    bool m_newLgr = false;
};

Status ClientHandshakeDriver::sendProposal() {
    m_hs.on(eventOf(HandshakeEventKind::start));
    return writeAllTcp(m_fd, wire::encode(makeProposal(m_engine, m_fd, ueidOf(m_engine.m_settings))));
}

std::optional<ClientHandshakeDriver::Outcome> ClientHandshakeDriver::receiveAccept() {
    ClcReceived msg = receiveClc(m_fd, m_clcWaitMs);
    if (!msg) return fallBack(eventOf(msg.failure));
    if (const auto* decline = std::get_if<wire::ClcDecline>(&msg.value())) return fallBack(declineOf(*decline));
    auto* accept = std::get_if<wire::ClcAcceptConfirm>(&*msg.message);
    if (accept == nullptr || accept->type != wire::ClcType::accept) {
        return fallBack(eventOf(HandshakeEventKind::malformed));
    }
    m_accept = std::move(*accept);
    return std::nullopt;
}

std::optional<ClientHandshakeDriver::Outcome> ClientHandshakeDriver::joinLinkGroup() {
    HandshakeEvent event = eventOf(HandshakeEventKind::accept);
    event.firstContact = m_accept.firstContact;
    event.rmbeSizeValid = m_accept.rmbeSizeCode <= wire::kRmbeSizeCodeMaxSmcr;
    std::optional<wire::DeclineReason> failure;
    {
        std::unique_lock lock(m_engine.m_mutex);
        failure = linkGroupLocked(lock, event);
        if (!failure && m_lgr) failure = addConnectionLocked();
    }
    if (failure) return fallBack(localFailureOf(*failure));
    const HandshakeActions a = m_hs.on(event);
    if (a.fallBack) return fallBack(a);
    m_establishedByAccept = a.established;
    return std::nullopt;
}

std::optional<wire::DeclineReason> ClientHandshakeDriver::linkGroupLocked(std::unique_lock<std::mutex>& lock,
                                                                          HandshakeEvent& event) {
    if (!event.rmbeSizeValid) return std::nullopt;  // the machine declines it (CNFERR)
    const PeerKey key{m_accept.peerId, m_accept.gid};
    if (m_accept.firstContact) return newLinkGroupLocked(key);
    m_lgr = m_engine.findLinkGroupLocked(Side::client, key, m_accept.qpn, false);
    event.linkGroupFound = m_lgr != nullptr;
    // The server saw room in the group; here the slots may still be held by
    // connections whose closing CDCs are in flight.
    if (m_lgr && m_lgr->core->full()) {
        const uint64_t deadline = monotonicNs() + m_engine.m_settings.get(SettingId::llcWaitMs) * 1000000;
        m_engine.waitUntil(
            lock, [&] { return !m_lgr->core->full() || m_lgr->terminated; }, deadline);
    }
    return std::nullopt;
}

std::optional<wire::DeclineReason> ClientHandshakeDriver::newLinkGroupLocked(const PeerKey& peer) {
    auto made = m_engine.createLinkGroupLocked(Side::client, peer);
    if (!made) return wire::DeclineReason::errRdyLnk;
    m_lgr = made.value();
    m_newLgr = true;
    if (m_accept.version >= 2) m_lgr->llcVersion = wire::LlcVersion::v2;
    // RQ credits (seed 004): on when the server offered and so do we.
    Link& link = m_lgr->primary();
    if (m_accept.initCredits > 0 && m_engine.creditOfferLocked(link) > 0) link.enableCredits(m_accept.initCredits);
    const fabric::PathMtu mtu = std::min(mtuFromWire(m_accept.qpMtu), m_engine.m_port.activeMtu);
    const LinkEndpoint server{m_accept.mac, m_accept.gid, m_accept.qpn, m_accept.initialPsn, m_accept.qpMtu};
    if (!link.bringUp(server, mtu)) return wire::DeclineReason::errRdyLnk;
    return std::nullopt;
}

std::optional<wire::DeclineReason> ClientHandshakeDriver::addConnectionLocked() {
    auto added = m_engine.addConnectionLocked(m_lgr);
    if (!added) return wire::DeclineReason::mem;
    m_conn = added.value();
    startConnectionCore(*m_conn, m_accept);
    return std::nullopt;
}

std::optional<ClientHandshakeDriver::Outcome> ClientHandshakeDriver::sendConfirm() {
    // Our QP, RMB and token.
    wire::ClcAcceptConfirm confirm;
    {
        std::lock_guard lock(m_engine.m_mutex);
        const Link& link = m_lgr->primary();
        confirm = makeAcceptConfirm(m_engine, wire::ClcType::confirm, m_accept.firstContact, link, *m_conn);
        if (m_accept.version >= 2) makeConfirmV2(m_engine, m_accept, confirm);
        confirm.qpMtu = mtuToWire(link.mtu);
        // Our offer answers the server's; zero (reserved) when credits are off.
        if (m_newLgr && link.flow.credits.enabled()) confirm.initCredits = LinkCredits::offerFor(link.recvWr);
    }
    if (Status s = writeAllTcp(m_fd, wire::encode(confirm)); !s) {
        return fallBack(localFailureOf(wire::DeclineReason::intErr));
    }
    return std::nullopt;
}

std::optional<ClientHandshakeDriver::Outcome> ClientHandshakeDriver::confirmFirstLink() {
    if (m_establishedByAccept) return std::nullopt;  // a reused link group: no LLC exchange
    // First contact: the server's CONFIRM_LINK request is the first RoCE message.
    std::unique_lock lock(m_engine.m_mutex);
    const LlcWaitResult w = waitForLlcFlag(m_engine, lock, *m_lgr, &LinkGroup::confirmLinkSeen, m_fd,
                                           m_engine.m_settings.get(SettingId::llcWaitMs));
    if (w != LlcWaitResult::seen) {
        lock.unlock();
        return confirmLinkMissed(w);
    }
    m_hs.on(eventOf(HandshakeEventKind::confirmLinkRequest));
    if (Status s = m_engine.postLlcLocked(*m_lgr, wire::encode(makeConfirmLink(m_engine, *m_lgr, true))); !s) {
        lock.unlock();
        return fallBack(localFailureOf(wire::DeclineReason::errRdyLnk));
    }
    m_lgr->primary().core->activate(monotonicMs());
    return std::nullopt;
}

ClientHandshakeDriver::Outcome ClientHandshakeDriver::confirmLinkMissed(LlcWaitResult w) {
    if (w != LlcWaitResult::tcpData) return fallBack(eventOf(HandshakeEventKind::timeout));
    // Bytes on the TCP socket instead: a late Decline, or a broken peer.
    ClcReceived late = receiveClc(m_fd, m_clcWaitMs);
    if (late) {
        if (const auto* d = std::get_if<wire::ClcDecline>(&late.value())) return fallBack(declineOf(*d));
    }
    return fallBack(eventOf(HandshakeEventKind::malformed));
}

ClientHandshakeDriver::Outcome ClientHandshakeDriver::established() {
    std::lock_guard lock(m_engine.m_mutex);
    ++m_engine.m_stats.clientSuccess;
    m_engine.establishLocked(*m_lgr, *m_conn, m_fd, m_newLgr);
    return std::make_shared<SocketImpl>(m_self, m_conn, m_fd, m_peerName);
}

ClientHandshakeDriver::Outcome ClientHandshakeDriver::fallBack(const HandshakeActions& a) {
    // Best effort: the fallback goes ahead whether or not the peer hears it.
    if (a.sendDecline) (void)sendDecline(m_fd, m_engine.m_systemId, a.declineReason, a.declineOutOfSync);
    {
        std::lock_guard lock(m_engine.m_mutex);
        if (m_conn) {
            m_conn->appClosed = false;  // keep the TCP fd: the fallback socket owns it
            m_engine.dropConnectionLocked(*m_conn);
        }
        if (m_lgr && m_newLgr)
            m_engine.terminateLinkGroupLocked(m_lgr, wire::DeleteLinkReason::programTerm, EngineImpl::PeerNotice::none);
    }
    m_engine.countFallback(Side::client, a.fallbackReason, a.peerReason, a.handshakeError);
    return std::make_shared<SocketImpl>(m_self, m_fd, m_peerName, a.fallbackReason, a.peerReason);
}

Result<std::shared_ptr<SocketImpl>> EngineImpl::clientHandshake(int fd, const std::string& peerName) {
    return ClientHandshakeDriver(*this, fd, peerName).run();
}

void EngineImpl::countFallback(Side role, uint32_t reason, uint32_t peerReason, bool error) {
    std::lock_guard lock(m_mutex);
    if (role == Side::client) {
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
