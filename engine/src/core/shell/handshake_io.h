// Helpers shared by the client and server handshake drivers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

#include "core/handshake/handshake.h"
#include "core/shell/engine_impl.h"

namespace smcr::core {

Status sendDecline(int fd, const wire::PeerId& systemId, wire::DeclineReason reason, bool outOfSync);

// An event for the handshake machine with no facts beyond its kind.
inline HandshakeEvent eventOf(HandshakeEventKind kind) {
    HandshakeEvent e;
    e.kind = kind;
    return e;
}
// Resources could not be set up; reason: what the Decline says.
inline HandshakeEvent localFailureOf(wire::DeclineReason reason) {
    HandshakeEvent e = eventOf(HandshakeEventKind::localFailure);
    e.reason = reason;
    return e;
}
// The peer declined (its code kept for the stats).
inline HandshakeEvent declineOf(const wire::ClcDecline& decline) {
    HandshakeEvent e = eventOf(HandshakeEventKind::decline);
    e.peerReason = decline.reasonCode;
    return e;
}

// Our Accept (server) or Confirm (client): our ids, the QP of `link` and
// the RMB element of `conn` (RFC 7609 3.3.2). The caller sets the MTU and
// the RQ credits offer, which differ per side (caller holds the engine lock).
wire::ClcAcceptConfirm makeAcceptConfirm(const EngineImpl& engine, wire::ClcType type, bool firstContact,
                                         const Link& link, const Connection& conn);
// The connection's core from the peer's Accept or Confirm: its token, RMB
// element and size (caller holds the engine lock).
void startConnectionCore(Connection& conn, const wire::ClcAcceptConfirm& peer);

// One CLC message read (clc_io.h) and decoded, or the event a failure feeds
// the handshake machine: timeout; notClc for bytes without an eyecatcher or
// EOF; malformed for a broken header, a read error or bytes that do not
// decode. Both handshake drivers read every CLC message through this.
struct ClcReceived {
    std::optional<wire::ClcMessage> message;
    HandshakeEventKind failure = HandshakeEventKind::malformed;  // when there is no message

    explicit operator bool() const { return message.has_value(); }
    const wire::ClcMessage& value() const { return *message; }
};
ClcReceived receiveClc(int fd, int timeoutMs);
// The same with bytes the listener already read off fd (clc_io.h).
ClcReceived receiveClc(int fd, int timeoutMs, std::vector<uint8_t>* prefix);

// Waits (driving progress) until `flag` is set on lgr, a CLC Decline shows
// up on the TCP socket, or the timeout passes. Returns the flag.
enum class LlcWaitResult : uint8_t { seen = 0, timeout, tcpData };
LlcWaitResult waitForLlcFlag(EngineImpl& engine, std::unique_lock<std::mutex>& lock, const LinkGroup& lgr,
                             bool LinkGroup::*flag, int fd, uint64_t timeoutMs);

wire::LlcConfirmLink makeConfirmLink(const EngineImpl& engine, const LinkGroup& lgr, bool response);

fabric::PathMtu mtuFromWire(wire::IbMtu mtu);
wire::IbMtu mtuToWire(fabric::PathMtu mtu);

}  // namespace smcr::core
