#include "core/handshake/handshake.h"

namespace smcr::core {

using wire::DeclineReason;

const char* handshakeStateName(HandshakeState state) {
    switch (state) {
        case HandshakeState::idle:
            return "idle";
        case HandshakeState::awaitProposal:
            return "awaitProposal";
        case HandshakeState::awaitAccept:
            return "awaitAccept";
        case HandshakeState::awaitConfirm:
            return "awaitConfirm";
        case HandshakeState::awaitConfirmLink:
            return "awaitConfirmLink";
        case HandshakeState::awaitConfirmLinkResp:
            return "awaitConfirmLinkResp";
        case HandshakeState::established:
            return "established";
        case HandshakeState::fellBack:
            return "fellBack";
    }
    return "?";
}

HandshakeActions Handshake::declineAndFallBack(DeclineReason reason, bool outOfSync) {
    HandshakeActions out;
    out.sendDecline = true;
    out.declineReason = reason;
    out.declineOutOfSync = outOfSync;
    out.fallBack = true;
    out.fallbackReason = static_cast<uint32_t>(reason);
    out.handshakeError = true;
    m_fallbackReason = out.fallbackReason;
    m_state = HandshakeState::fellBack;
    return out;
}

HandshakeActions Handshake::fallBackSilently(DeclineReason reason, bool error) {
    HandshakeActions out;
    out.fallBack = true;
    out.fallbackReason = static_cast<uint32_t>(reason);
    out.handshakeError = error;
    m_fallbackReason = out.fallbackReason;
    m_state = HandshakeState::fellBack;
    return out;
}

HandshakeActions Handshake::on(const HandshakeEvent& event) {
    if (done()) return {};
    // A Decline may arrive at any step (smc-protocol.md 1.1: a kernel client
    // without a device even sends one instead of a Proposal). The local
    // fallback reason is PEERDECL; the peer's own code is kept alongside.
    if (event.kind == HandshakeEventKind::decline) {
        HandshakeActions out = fallBackSilently(DeclineReason::peerDecl, true);
        out.peerReason = event.peerReason;
        return out;
    }
    if (event.kind == HandshakeEventKind::localFailure) {
        const bool peerSpeaksClc = m_state != HandshakeState::awaitProposal && m_state != HandshakeState::idle;
        if (m_role == Side::server && !peerSpeaksClc) return fallBackSilently(event.reason, true);
        return declineAndFallBack(event.reason);
    }
    return m_role == Side::client ? onClient(event) : onServer(event);
}

HandshakeActions Handshake::onConfirmLink(const HandshakeEvent& event) {
    // The client waits for the server's request and answers it; the server
    // waits for that answer. Either way the message establishes, and the
    // llcWait timer's end is TIMEOUT_CL (the kernel's
    // SMC_CLC_DECL_TIMEOUT_CL).
    const bool client = m_role == Side::client;
    const HandshakeEventKind awaited =
        client ? HandshakeEventKind::confirmLinkRequest : HandshakeEventKind::confirmLinkResponse;
    if (event.kind == awaited) {
        HandshakeActions out;
        out.sendConfirmLinkResponse = client;
        out.established = true;
        m_state = HandshakeState::established;
        return out;
    }
    if (event.kind == HandshakeEventKind::timeout) return declineAndFallBack(DeclineReason::timeoutCl);
    return declineAndFallBack(DeclineReason::intErr);
}

HandshakeActions Handshake::onClient(const HandshakeEvent& event) {
    HandshakeActions out;
    switch (m_state) {
        case HandshakeState::idle:
            if (event.kind != HandshakeEventKind::start) break;
            out.sendProposal = true;
            out.armTimer = TimerKind::clcWait;
            m_state = HandshakeState::awaitAccept;
            return out;
        case HandshakeState::awaitAccept:
            switch (event.kind) {
                case HandshakeEventKind::accept:
                    if (!event.rmbeSizeValid) return declineAndFallBack(DeclineReason::cnfErr);
                    // The server reused a link group we do not know: out of sync
                    // (smc-protocol.md 1.4), the server must drop that group.
                    if (!event.firstContact && !event.linkGroupFound) {
                        return declineAndFallBack(DeclineReason::syncErr, true);
                    }
                    out.sendConfirm = true;
                    if (event.firstContact) {
                        out.armTimer = TimerKind::llcWait;
                        m_state = HandshakeState::awaitConfirmLink;
                    } else {
                        out.established = true;
                        m_state = HandshakeState::established;
                    }
                    return out;
                // No answer to the Proposal: the server is plain TCP (the
                // kernel learns this from the missing SYN option; we can only
                // wait). No Decline: the peer does not speak CLC.
                case HandshakeEventKind::timeout:
                case HandshakeEventKind::notClc:
                    return fallBackSilently(DeclineReason::peerNoSmc, false);
                case HandshakeEventKind::malformed:
                    return declineAndFallBack(DeclineReason::cnfErr);
                default:
                    return declineAndFallBack(DeclineReason::intErr);
            }
        case HandshakeState::awaitConfirmLink:
            return onConfirmLink(event);
        default:
            break;
    }
    return out;
}

HandshakeActions Handshake::onServer(const HandshakeEvent& event) {
    HandshakeActions out;
    switch (m_state) {
        case HandshakeState::idle:
            if (event.kind != HandshakeEventKind::start) break;
            out.armTimer = TimerKind::firstBytes;
            m_state = HandshakeState::awaitProposal;
            return out;
        case HandshakeState::awaitProposal:
            switch (event.kind) {
                case HandshakeEventKind::proposal:
                    if (!event.smcrOffered) return declineAndFallBack(DeclineReason::modeUnsupp);
                    out.sendAccept = true;
                    out.armTimer = TimerKind::clcWait;
                    m_state = HandshakeState::awaitConfirm;
                    return out;
                // Not SMC at all (other bytes, or a client that waits for the
                // server to speak first): plain TCP, nothing is sent.
                case HandshakeEventKind::notClc:
                case HandshakeEventKind::timeout:
                    return fallBackSilently(DeclineReason::peerNoSmc, false);
                case HandshakeEventKind::malformed:
                    return declineAndFallBack(DeclineReason::cnfErr);
                default:
                    return declineAndFallBack(DeclineReason::intErr);
            }
        case HandshakeState::awaitConfirm:
            switch (event.kind) {
                case HandshakeEventKind::confirm:
                    if (!event.rmbeSizeValid) return declineAndFallBack(DeclineReason::cnfErr);
                    if (event.firstContact) {
                        out.sendConfirmLinkRequest = true;
                        out.armTimer = TimerKind::llcWait;
                        m_state = HandshakeState::awaitConfirmLinkResp;
                    } else {
                        out.established = true;
                        m_state = HandshakeState::established;
                    }
                    return out;
                // The kernel fails the socket on a CLC wait timeout; a lab
                // engine keeps the TCP connection and reports INTERR.
                case HandshakeEventKind::timeout:
                    return declineAndFallBack(DeclineReason::intErr);
                case HandshakeEventKind::malformed:
                    return declineAndFallBack(DeclineReason::cnfErr);
                default:
                    return declineAndFallBack(DeclineReason::intErr);
            }
        case HandshakeState::awaitConfirmLinkResp:
            return onConfirmLink(event);
        default:
            break;
    }
    return out;
}

}  // namespace smcr::core
