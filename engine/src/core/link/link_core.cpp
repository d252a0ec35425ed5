#include "core/link/link_core.h"

#include <cstdint>
#include <type_traits>

namespace smcr::core {

const char* linkStateName(LinkState state) {
    switch (state) {
        case LinkState::activating:
            return "activating";
        case LinkState::active:
            return "active";
        case LinkState::down:
            return "down";
    }
    return "?";
}

LinkCore::LinkCore(uint8_t linkId, const LinkTimers& timers, uint64_t nowMs)
    : m_linkId(linkId), m_timers(timers), m_lastRxMs(nowMs) {}

void LinkCore::activate(uint64_t nowMs) {
    if (m_state == LinkState::activating) m_state = LinkState::active;
    m_lastRxMs = nowMs;
}

LinkActions LinkCore::onLlc(const wire::LlcMessage& msg, uint64_t nowMs) {
    LinkActions out;
    m_lastRxMs = nowMs;
    std::visit(
        [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, wire::LlcTestLink>) {
                if (m.response) {
                    m_testOutstanding = false;
                } else {
                    wire::LlcTestLink reply = m;  // user data echoed (RFC 7609 4.5.5)
                    reply.response = true;
                    out.send = reply;
                }
            } else if constexpr (std::is_same_v<T, wire::LlcAddLink>) {
                if (!m.response) {
                    // One port and one device: no alternate path (kernel
                    // smc_llc_cli_add_link_reject).
                    wire::LlcAddLink reply;
                    reply.response = true;
                    reply.rejected = true;
                    reply.rejectReason = wire::kAddLinkRejectNoAltPath;
                    reply.linkNumber = m.linkNumber;
                    out.send = reply;
                    out.addLinkRejected = true;
                }
            } else if constexpr (std::is_same_v<T, wire::LlcDeleteLink>) {
                if (!m.response) {
                    wire::LlcDeleteLink reply = m;
                    reply.response = true;
                    out.send = reply;
                    out.reason = static_cast<wire::DeleteLinkReason>(m.reason);
                    out.linkDown = true;
                    // Single-link group: losing the link loses the group.
                    out.terminateLinkGroup = true;
                    m_state = LinkState::down;
                }
            } else if constexpr (std::is_same_v<T, wire::LlcConfirmRkey>) {
                if (!m.response) {
                    wire::LlcConfirmRkey reply = m;
                    reply.response = true;
                    out.send = reply;
                }
            } else if constexpr (std::is_same_v<T, wire::LlcDeleteRkey>) {
                if (!m.response) {
                    wire::LlcDeleteRkey reply = m;
                    reply.response = true;
                    reply.errorMask = 0;
                    out.send = reply;
                }
            } else if constexpr (std::is_same_v<T, wire::LlcConfirmLink>) {
                // Handled by the handshake; a repeat later is harmless.
            } else {
                out.terminateLinkGroup = true;
                out.reason = wire::DeleteLinkReason::protocolViolation;
            }
        },
        msg);
    return out;
}

LinkActions LinkCore::onUnknownLlc() {
    LinkActions out;
    out.terminateLinkGroup = true;
    out.linkDown = true;
    out.reason = wire::DeleteLinkReason::protocolViolation;
    m_state = LinkState::down;
    return out;
}

LinkActions LinkCore::poll(uint64_t nowMs) {
    LinkActions out;
    if (m_state != LinkState::active || m_timers.testLinkIdleMs == 0) return out;
    if (m_testOutstanding) {
        if (nowMs >= m_testSentMs + m_timers.llcWaitMs) {
            m_state = LinkState::down;
            m_testOutstanding = false;
            out.linkDown = true;
            out.terminateLinkGroup = true;
            out.reason = wire::DeleteLinkReason::lostPath;
        }
        return out;
    }
    if (nowMs >= m_lastRxMs + m_timers.testLinkIdleMs) {
        wire::LlcTestLink req;
        ++m_testCounter;
        for (size_t i = 0; i < 8; ++i) req.userData[i] = static_cast<uint8_t>(m_testCounter >> (8 * i));
        out.send = req;
        m_testOutstanding = true;
        m_testSentMs = nowMs;
        ++m_testLinksSent;
    }
    return out;
}

uint64_t LinkCore::nextDeadlineMs() const {
    if (m_state != LinkState::active || m_timers.testLinkIdleMs == 0) return UINT64_MAX;
    if (m_testOutstanding) return m_testSentMs + m_timers.llcWaitMs;
    return m_lastRxMs + m_timers.testLinkIdleMs;
}

}  // namespace smcr::core
