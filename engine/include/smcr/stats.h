// libsmcr counters, named after the kernel's smc_stats / `smcr stats`
// output where one exists (smc-protocol.md section 8). Kept per engine and
// per connection; read as snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace smcr {

// One connection's counters.
struct ConnectionStats {
    uint64_t cdcSent = 0;
    uint64_t cdcReceived = 0;
    uint64_t rdmaWrites = 0;
    uint64_t txBytes = 0;  // written to the peer RMBE
    uint64_t rxBytes = 0;  // copied out to the application
    uint64_t txCalls = 0;
    uint64_t rxCalls = 0;
    uint64_t windowUpdates = 0;  // CDCs with no data, sent for the consumer cursor
    uint64_t bufFullPeer = 0;    // a push found the peer RMBE full (write_blocked)
    uint64_t bufFull = 0;        // a send found the local sndbuf full
    uint64_t corkedCalls = 0;    // sends with MSG_MORE or TCP_CORK set
    uint64_t nodelayCalls = 0;   // sends with TCP_NODELAY set
    uint64_t sendfileCalls = 0;
    uint64_t staleCdcDropped = 0;
    // Datapath series (seeds 000/002): who pushed, and what corking held back.
    uint64_t autocorkedSends = 0;   // sends held by autocorking (a CDC was outstanding)
    uint64_t autocorkPushes = 0;    // pushes of autocorked data by the last CDC completion
    uint64_t userCorkedSends = 0;   // sends held by TCP_CORK / MSG_MORE / a non-last sendfile piece
    uint64_t corkPushes = 0;        // corked data pushed by clearing TCP_CORK (kernel cork_cnt) or the cork timer
    uint64_t corkTimerPushes = 0;   // ... of which by lab.cork_timer_ms (old delayed work)
    uint64_t nodelayPushes = 0;     // pending data pushed by setting TCP_NODELAY (kernel ndly_cnt)
    uint64_t pushesApp = 0;         // data pushes by the application thread in its socket call
    uint64_t pushesCompletion = 0;  // data pushes while handling a completion or CDC, or by the timer
    uint64_t pushesDeferred = 0;    // completion pushes handed to the thread inside the socket

    ConnectionStats& operator+=(const ConnectionStats& o);
};

// Whole-engine counters (a superset of the per-connection ones, summed).
struct EngineStats {
    ConnectionStats total;
    uint64_t clientSuccess = 0;  // SMC connections made as client
    uint64_t serverSuccess = 0;  // SMC connections accepted
    uint64_t clientFallbacks = 0;
    uint64_t serverFallbacks = 0;
    uint64_t handshakeErrors = 0;                        // fallbacks that were failures (not plain TCP peers)
    std::map<uint32_t, uint64_t> clientFallbackReasons;  // decline code -> count
    std::map<uint32_t, uint64_t> serverFallbackReasons;
    std::map<uint32_t, uint64_t> peerDeclineReasons;  // codes peers sent us
    uint64_t linkGroupsCreated = 0;
    uint64_t linkGroupsFreed = 0;
    uint64_t linkGroupReuses = 0;  // connections that joined an existing group
    uint64_t linksDown = 0;
    uint64_t connectionsAborted = 0;
    uint64_t unknownTokenDropped = 0;  // CDCs for no connection on the link
    uint64_t testLinksSent = 0;
    uint64_t testLinksAnswered = 0;  // the peer's TEST_LINK requests answered (the response posted)
    uint64_t addLinkRejected = 0;
    uint64_t rmbAllocs = 0;
    uint64_t rmbReuses = 0;
    uint64_t sndbufAllocs = 0;
    uint64_t sndbufReuses = 0;
    uint64_t cqPolls = 0;            // poll calls that found completions
    uint64_t cqEvents = 0;           // completion-channel wake-ups
    uint64_t busyPollHits = 0;       // waits satisfied while spinning
    uint64_t blockingWaits = 0;      // waits that armed the CQs and slept
    uint64_t wordSleeps = 0;         // of them, on the channel's futex word (no fds)
    uint64_t backgroundWakeups = 0;  // the background thread woke (channel, timer, a TCP socket, a kick)
    uint64_t sendSlotWaits = 0;      // a push found no free send slot
    uint64_t connectionsActive = 0;  // gauge: SMC connections holding an RMB now
    // Multi-link groups (smcr_max_links_per_lgr = 2; engine_links.cpp).
    uint64_t linksAdded = 0;       // second links confirmed by ADD_LINK
    uint64_t addLinkFailed = 0;    // ADD_LINK flows rejected by the peer or timed out
    uint64_t linkFailovers = 0;    // connections of a lost link moved to the surviving one
    uint64_t failoverConns = 0;    // connections moved by those failovers
    uint64_t retiredLinkCdcs = 0;  // CDCs a lost link took in before it went down, handled after the switch
    uint64_t rkeysConfirmed = 0;   // our RMBs the peer confirmed by CONFIRM_RKEY
    uint64_t rkeysDeleted = 0;     // our RMBs the peer dropped by DELETE_RKEY
    // The peer's own rkey requests, one link or two. A kernel peer sends
    // CONFIRM_RKEY for every connection's RMB but a first contact's
    // (af_smc.c smcr_lgr_reg_rmbs) and DELETE_RKEY for every connection it
    // frees (smc_core.c smcr_buf_unuse), then waits SMC_LLC_WAIT_TIME (2 s)
    // for the answer: received minus answered is a stall on the peer's side.
    uint64_t peerConfirmRkeys = 0;          // CONFIRM_RKEY requests received
    uint64_t peerConfirmRkeysAnswered = 0;  // ... answered (the response posted)
    uint64_t peerDeleteRkeys = 0;           // DELETE_RKEY requests received
    uint64_t peerDeleteRkeysAnswered = 0;   // ... answered (the response posted)
    uint64_t linksActive = 0;               // gauge: links carrying or standing by now
    uint64_t txCompletionTimeouts = 0;      // links declared down: no send completion for lab.tx_completion_timeout_ms
    uint64_t connsSecondLink = 0;           // gauge: connections balanced onto the added link, sending there now
    uint64_t cdcSecondLink = 0;             // CDCs those connections sent on the added link
    uint64_t cqArms = 0;                    // CQ arm (request notify) calls
    uint64_t cqSendArms = 0;      // of those, with the send CQ armed for its next completion (engine_wake.cpp)
    uint64_t cqMissedEvents = 0;  // drain_then_arm: arms that reported missed events, so the CQs were polled again
    // RQ credits and RX backlog (lab.rq_credits, lab.rx_backlog; seed 004). RNR
    // counters come from the fabric (sim: its responder/requester counters).
    uint64_t rnrNaksSent = 0;          // as responder: SENDs that found no receive WQE
    uint64_t rnrNaksReceived = 0;      // as requester: RNR NAKs taken
    uint64_t rnrRetries = 0;           // SENDs retried after an RNR NAK (rnr_retry 7: every NAK)
    uint64_t creditLinks = 0;          // gauge: links that negotiated RQ credits
    uint64_t creditWaits = 0;          // a push found no peer receive credit and waited
    uint64_t creditsLowEvents = 0;     // tx credits fell to the peer low watermark (2/3 of initial)
    uint64_t creditsReceived = 0;      // credits granted by the peer (CDC + LLC)
    uint64_t creditsAnnouncedCdc = 0;  // credits returned in CDC byte 26
    uint64_t creditsAnnouncedLlc = 0;  // credits returned by ANNOUNCE_CREDITS
    uint64_t creditAnnounceLlcs = 0;   // ANNOUNCE_CREDITS messages sent
    uint64_t rxBacklogMax = 0;         // most CDCs waiting in a link's RX backlog
    uint64_t cdcReservedNonzero = 0;   // CDCs with byte 26 set on a link without credits (ignored)
    // Listener accept path (lab.fast_fallback, limit_smc_hs; seed 003).
    uint64_t fastFallbackAccepts = 0;  // plain TCP clients queued without the handshake worker
    uint64_t synOptionAccepts = 0;     // SMC clients sorted by their SYN's option (BPF), not by first bytes
    uint64_t hsQueueDepthMax = 0;      // most SMC connections waiting for or in a listener's handshake worker
    uint64_t limitHsFallbacks = 0;     // SMC clients declined at once because the handshake queue was congested

    // Flat "name value" pairs, e.g. {"smcr.cdc_sent", 10}; fallback reasons as
    // "smcr.fallback.client.PEERNOSMC".
    std::vector<std::pair<std::string, uint64_t>> flatten() const;
};

}  // namespace smcr
