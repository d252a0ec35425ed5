// The CLC handshake and first LLC exchange of one connection, without I/O
// (smc-protocol.md sections 1.4-1.7; RFC 7609 section 3.3).
//
// Client: Proposal -> Accept -> Confirm -> (first contact) CONFIRM_LINK
//         request received, response sent -> established.
// Server: Proposal -> Accept -> Confirm -> (first contact) CONFIRM_LINK
//         request sent, response received -> established.
// Any failure ends in a fallback to plain TCP with a reason code (the
// kernel's SMC_CLC_DECL_*), and a CLC Decline to the peer whenever the
// peer speaks CLC. The shell does the I/O and the resource work (link
// group, QP, RMB) and feeds what it found as facts.
#pragma once

#include <cstdint>

#include <smcr/side.h>
#include <smcr/wire/decline_reasons.h>

namespace smcr::core {

enum class HandshakeState : uint8_t {
    idle = 0,
    awaitProposal,         // server: first bytes not seen yet
    awaitAccept,           // client: Proposal sent
    awaitConfirm,          // server: Accept sent
    awaitConfirmLink,      // client: Confirm sent on first contact, waiting for CONFIRM_LINK request
    awaitConfirmLinkResp,  // server: CONFIRM_LINK request sent
    established,
    fellBack,
};
const char* handshakeStateName(HandshakeState state);

// What the shell learned; each event carries only the facts it needs.
enum class HandshakeEventKind : uint8_t {
    start = 0,
    notClc,               // server: the first bytes are not a CLC Proposal (plain TCP client)
    proposal,             // server: a Proposal arrived
    accept,               // client: an Accept arrived
    confirm,              // server: a Confirm arrived
    decline,              // a Decline arrived (peerReason)
    malformed,            // a CLC message failed to decode or was unexpected
    confirmLinkRequest,   // client: LLC CONFIRM_LINK request on the new link
    confirmLinkResponse,  // server: LLC CONFIRM_LINK response
    timeout,              // the armed timer expired
    localFailure,         // resources could not be set up (reason says which)
};

struct HandshakeEvent {
    HandshakeEventKind kind = HandshakeEventKind::start;
    bool firstContact = false;   // accept/confirm: byte 7 bit 3
    bool smcrOffered = true;     // proposal: typeV1 is R or both
    bool linkGroupFound = true;  // accept without first contact: the client knows the link group
    bool rmbeSizeValid = true;   // accept/confirm: size code <= 5
    uint32_t peerReason = 0;     // decline: the peer's diagnosis
    wire::DeclineReason reason = wire::DeclineReason::invalid;  // localFailure
};

enum class TimerKind : uint8_t { none = 0, clcWait, llcWait, firstBytes };

struct HandshakeActions {
    bool sendProposal = false;
    bool sendAccept = false;
    bool sendConfirm = false;
    bool sendConfirmLinkRequest = false;
    bool sendConfirmLinkResponse = false;
    bool sendDecline = false;
    bool declineOutOfSync = false;  // SYNCERR: the peer must drop its link group
    wire::DeclineReason declineReason = wire::DeclineReason::invalid;
    TimerKind armTimer = TimerKind::none;
    bool established = false;
    bool fallBack = false;
    uint32_t fallbackReason = 0;  // counted in the stats
    uint32_t peerReason = 0;      // when the peer declined
    bool handshakeError = false;  // a failure (not a plain TCP peer)
};

class Handshake {
public:
    explicit Handshake(Side role) : m_role(role) {}

    Side role() const { return m_role; }
    HandshakeState state() const { return m_state; }
    bool done() const { return m_state == HandshakeState::established || m_state == HandshakeState::fellBack; }
    uint32_t fallbackReason() const { return m_fallbackReason; }

    HandshakeActions on(const HandshakeEvent& event);

private:
    HandshakeActions declineAndFallBack(wire::DeclineReason reason, bool outOfSync = false);
    HandshakeActions fallBackSilently(wire::DeclineReason reason, bool error);
    HandshakeActions onClient(const HandshakeEvent& event);
    HandshakeActions onServer(const HandshakeEvent& event);
    // The first link's CONFIRM_LINK exchange, either side's half
    // (awaitConfirmLink, awaitConfirmLinkResp).
    HandshakeActions onConfirmLink(const HandshakeEvent& event);

    Side m_role;
    HandshakeState m_state = HandshakeState::idle;
    uint32_t m_fallbackReason = 0;
};

}  // namespace smcr::core
