// One link (one RC QP) of a link group: its LLC duties, without I/O
// (smc-protocol.md section 2; RFC 7609 section 4.5).
//
// Implemented flows: CONFIRM_LINK (handshake), TEST_LINK keepalive after
// smcr_testlink_time of receive silence with link-down when no response
// comes within the LLC wait time, the one-port client's ADD_LINK reject
// (flags 0x40, reason 1 "no alternate path", as the kernel does), DELETE_LINK
// (answered, link down) and CONFIRM_RKEY / DELETE_RKEY answered positively.
// An LLC type the engine does not know terminates the link group, like the
// kernel (protocol violation).
#pragma once

#include <cstdint>
#include <optional>

#include <smcr/wire/llc.h>

namespace smcr::core {

enum class LinkState : uint8_t { activating = 0, active, down };
const char* linkStateName(LinkState state);

struct LinkTimers {
    uint64_t testLinkIdleMs = 30000;  // smcr_testlink_time; 0 disables TEST_LINK
    uint64_t llcWaitMs = 2000;        // SMC_LLC_WAIT_TIME
};

struct LinkActions {
    std::optional<wire::LlcMessage> send;  // a reply or a request to post
    bool linkDown = false;                 // this link is unusable now
    bool terminateLinkGroup = false;       // protocol violation / whole group deleted
    bool addLinkRejected = false;          // for the stats
    // Why the link went down: ours, or the peer's DELETE_LINK reason as it came.
    wire::DeleteLinkReason reason = wire::DeleteLinkReason::invalid;
};

class LinkCore {
public:
    LinkCore(uint8_t linkId, const LinkTimers& timers, uint64_t nowMs);

    uint8_t linkId() const { return m_linkId; }
    LinkState state() const { return m_state; }
    void setTimers(const LinkTimers& timers) { m_timers = timers; }

    // The CONFIRM_LINK exchange finished: the link carries traffic.
    void activate(uint64_t nowMs);
    // Any completion of a receive on this link counts as activity.
    void onRxActivity(uint64_t nowMs) { m_lastRxMs = nowMs; }
    // An LLC message for this link arrived (after decoding).
    LinkActions onLlc(const wire::LlcMessage& msg, uint64_t nowMs);
    // A message whose type the engine does not handle.
    LinkActions onUnknownLlc();
    // Timer duties: TEST_LINK when idle, link down when it went unanswered.
    LinkActions poll(uint64_t nowMs);
    // When poll() next has something to do (UINT64_MAX: nothing armed).
    uint64_t nextDeadlineMs() const;
    // Local decision (QP error, peer gone): no more traffic.
    void markDown() { m_state = LinkState::down; }

    uint64_t testLinksSent() const { return m_testLinksSent; }

private:
    uint8_t m_linkId;
    LinkTimers m_timers;
    LinkState m_state = LinkState::activating;
    uint64_t m_lastRxMs;
    bool m_testOutstanding = false;
    uint64_t m_testSentMs = 0;
    uint64_t m_testCounter = 0;
    uint64_t m_testLinksSent = 0;
};

}  // namespace smcr::core
