// Receive-queue credit flow control of one link. EXPERIMENTAL: the RQ
// credits RFC (seed 004, Jan 2022, never merged upstream), enabled by
// lab.rq_credits and negotiated per link. Sans-I/O: the shell reports posts,
// reposts and received credits; this class keeps the counts and says when a
// SEND may go and when credits must be announced.
//
// The scheme (seed 004):
// - Each side offers its receive WQE count as initial credits in CLC
//   Accept/Confirm byte 51; credits are on only when both offered (the
//   Confirm carries an offer only when the Accept did).
// - A SEND (CDC or LLC) consumes one credit: one receive WQE at the peer.
//   A sender without credits does not post (no RNR NAK is possible); it
//   waits until credits arrive.
// - Every repost of a receive WQE is a local credit owed to the peer. Every
//   CDC returns all owed credits in byte 26; when the owed credits pass the
//   high watermark (1/3 of the receive queue) and no CDC carried them, an
//   LLC ANNOUNCE_CREDITS (0x0A) returns them.
// - The peer low watermark (2/3 of the peer's initial credits) marks a
//   sender that is running short; it is counted so a lab user sees how often
//   senders run low before they have to wait.
//
// Two deliberate differences from the RFC patch:
// - The last credit is kept for ANNOUNCE_CREDITS (rsocket reserves credits
//   for control messages the same way). Without it both sides can spend
//   every credit on data while each owes the other credits, and neither can
//   announce them.
// - The high watermark is at least 2, so queues below 3 WQEs get no credits
//   (offer 0). An announcement consumes one peer WQE, whose repost is one
//   owed credit there: with a watermark of 1 the two sides would answer
//   each other's announcements forever. With >= 2, a blocked sender's peer
//   always owes enough to announce (it owes all but the reserve).
#pragma once

#include <cstdint>

namespace smcr::core {

enum class CreditSendKind : uint8_t { invalid = 0, message, announce };

class LinkCredits {
public:
    // The initial credits a side offers: every receive WQE is posted before
    // the CLC Accept/Confirm goes out. One byte on the wire.
    // Queues below kMinRecvWr offer none (see the watermark above).
    static constexpr uint32_t kMinRecvWr = 3;
    static uint8_t offerFor(uint32_t recvWr) {
        if (recvWr < kMinRecvWr) return 0;
        return static_cast<uint8_t>(recvWr > 255 ? 255 : recvWr);
    }

    // Negotiation finished with the peer's offer; 0 leaves credits off.
    void enable(uint32_t localRecvWr, uint8_t peerInitCredits);
    bool enabled() const { return m_enabled; }

    // Whether a SEND of this kind may be posted now (always when disabled).
    bool canSend(CreditSendKind kind) const;
    // Consumes one credit for a SEND about to be posted; false: wait.
    bool take(CreditSendKind kind);
    // Credits from the peer: CDC byte 26 or ANNOUNCE_CREDITS. True when a
    // waiting message sender may go now.
    bool onPeerCredits(uint32_t credits);

    // A receive WQE was (re)posted after a completion: owed to the peer.
    void onRecvReposted() {
        if (m_enabled) ++m_localCredits;
    }
    // Owed credits to carry in an outgoing CDC (all of them, <= 255).
    uint8_t takeForCdc();
    // Owed credits are at or past the high watermark (and announcing is possible).
    bool announceDue() const;
    // Owed credits for an ANNOUNCE_CREDITS (<= 255); 0: nothing owed.
    uint8_t takeForAnnounce() { return takeForCdc(); }

    uint32_t txCredits() const { return m_txCredits; }
    uint32_t localCredits() const { return m_localCredits; }
    uint32_t highWatermark() const { return m_highWatermark; }
    uint32_t lowWatermark() const { return m_lowWatermark; }
    // Times the tx credits fell to the peer low watermark.
    uint64_t lowEvents() const { return m_lowEvents; }

private:
    bool m_enabled = false;
    uint32_t m_txCredits = 0;      // peer receive WQEs we may still consume
    uint32_t m_localCredits = 0;   // our reposted WQEs the peer does not know of
    uint32_t m_highWatermark = 0;  // max(recvWr / 3, 2)
    uint32_t m_lowWatermark = 0;   // max(peer initial * 2 / 3, 1)
    uint32_t m_reserve = 0;        // credits only an announcement may use
    uint64_t m_lowEvents = 0;
};

}  // namespace smcr::core
