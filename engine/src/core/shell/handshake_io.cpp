#include "core/shell/handshake_io.h"

#include <algorithm>

#include "core/shell/clc_io.h"

namespace smcr::core {

Status sendDecline(int fd, const wire::PeerId& systemId, wire::DeclineReason reason, bool outOfSync) {
    wire::ClcDecline d;
    d.version = 1;
    d.peerId = systemId;
    d.reasonCode = static_cast<uint32_t>(reason);
    d.outOfSync = outOfSync;
    const std::vector<uint8_t> bytes = wire::encode(d);
    return writeAllTcp(fd, bytes);
}

void EngineImpl::establishLocked(LinkGroup& lgr, Connection& conn, int fd, bool newLgr) {
    if (!newLgr) ++m_stats.linkGroupReuses;
    conn.tcpFd = fd;
    watchTcpLocked(conn);
    replayEarlyCdcsLocked(lgr, conn);
}

ClcReceived receiveClc(int fd, int timeoutMs) {
    return receiveClc(fd, timeoutMs, nullptr);
}

ClcReceived receiveClc(int fd, int timeoutMs, std::vector<uint8_t>* prefix) {
    ClcReceived out;
    const ClcRead read = readClc(fd, timeoutMs, prefix);
    switch (read.status) {
        case ClcReadStatus::ok:
            break;
        case ClcReadStatus::timeout:
            out.failure = HandshakeEventKind::timeout;
            return out;
        case ClcReadStatus::notClc:
        case ClcReadStatus::closed:
            out.failure = HandshakeEventKind::notClc;
            return out;
        case ClcReadStatus::malformed:
        case ClcReadStatus::error:
            out.failure = HandshakeEventKind::malformed;
            return out;
    }
    auto msg = wire::decodeClc(read.bytes);
    if (msg) out.message = std::move(msg.value());
    return out;
}

LlcWaitResult waitForLlcFlag(EngineImpl& engine, std::unique_lock<std::mutex>& lock, const LinkGroup& lgr,
                             bool LinkGroup::*flag, int fd, uint64_t timeoutMs) {
    const uint64_t deadline = monotonicNs() + timeoutMs * 1000000;
    for (;;) {
        // Slices, so a Decline on the TCP socket is noticed while waiting.
        const uint64_t slice = std::min<uint64_t>(deadline, monotonicNs() + 20 * 1000000ull);
        if (engine.waitUntil(
                lock, [&] { return lgr.*flag || lgr.terminated; }, slice)) {
            return lgr.*flag ? LlcWaitResult::seen : LlcWaitResult::timeout;
        }
        if (tcpReadable(fd)) return LlcWaitResult::tcpData;
        if (monotonicNs() >= deadline) return LlcWaitResult::timeout;
    }
}

wire::LlcConfirmLink makeConfirmLink(const EngineImpl& engine, const LinkGroup& lgr, bool response) {
    wire::LlcConfirmLink m;
    m.response = response;
    m.noRmbeEyecatcher = true;
    m.senderMac = engine.port().mac;
    m.senderGid = engine.port().gid;
    m.qpn = lgr.primary().local.qpn;
    m.linkNumber = lgr.primary().linkId();
    m.linkUid = static_cast<uint32_t>(lgr.id);
    m.maxLinks = 2;  // Linux announces SMC_LINKS_PER_LGR_MAX_PREFER; ADD_LINK follows (engine_links.cpp)
    return m;
}

wire::ClcAcceptConfirm makeAcceptConfirm(const EngineImpl& engine, wire::ClcType type, bool firstContact,
                                         const Link& link, const Connection& conn) {
    wire::ClcAcceptConfirm m;
    m.type = type;
    m.version = 1;
    m.firstContact = firstContact;
    m.peerId = engine.systemId();
    m.gid = engine.port().gid;
    m.mac = engine.port().mac;
    m.qpn = link.local.qpn;
    m.initialPsn = link.local.psn;
    m.rmbRkey = conn.rmb->rkey();
    m.rmbeIndex = 1;
    m.rmbeAlertToken = conn.localToken;
    m.rmbeSizeCode = wire::rmbeSizeToCode(static_cast<uint32_t>(conn.rmb->length()));
    m.rmbVaddr = conn.rmb->address();
    return m;
}

void startConnectionCore(Connection& conn, const wire::ClcAcceptConfirm& peer) {
    ConnectionParams params;
    params.localToken = conn.localToken;
    params.peerToken = peer.rmbeAlertToken;
    params.sndbufBytes = static_cast<uint32_t>(conn.sndbuf->length());
    params.rmbeBytes = static_cast<uint32_t>(conn.rmb->length());
    params.peerRmbeBytes = wire::rmbeCodeToSize(peer.rmbeSizeCode);
    conn.core = std::make_unique<ConnectionCore>(params);
    // RMBE index 1: the first (only) element of the peer's RMB.
    conn.assignment.primaryRmb =
        PeerRmb{peer.rmbVaddr + uint64_t{params.peerRmbeBytes} * (peer.rmbeIndex - 1u), peer.rmbRkey};
}

fabric::PathMtu mtuFromWire(wire::IbMtu mtu) {
    const auto v = static_cast<uint8_t>(mtu);
    return v >= 1 && v <= 5 ? static_cast<fabric::PathMtu>(v) : fabric::PathMtu::mtu1024;
}

wire::IbMtu mtuToWire(fabric::PathMtu mtu) {
    const auto v = static_cast<uint8_t>(mtu);
    return v >= 1 && v <= 5 ? static_cast<wire::IbMtu>(v) : wire::IbMtu::mtu1024;
}

}  // namespace smcr::core
