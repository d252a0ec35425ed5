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
    uint64_t txBytes = 0;         // written to the peer RMBE
    uint64_t rxBytes = 0;         // copied out to the application
    uint64_t txCalls = 0;
    uint64_t rxCalls = 0;
    uint64_t windowUpdates = 0;   // CDCs with no data, sent for the consumer cursor
    uint64_t bufFullPeer = 0;     // a push found the peer RMBE full (write_blocked)
    uint64_t bufFull = 0;         // a send found the local sndbuf full
    uint64_t corkedCalls = 0;     // sends with MSG_MORE or TCP_CORK set
    uint64_t nodelayCalls = 0;    // sends with TCP_NODELAY set
    uint64_t sendfileCalls = 0;
    uint64_t staleCdcDropped = 0;

    ConnectionStats& operator+=(const ConnectionStats& o);
};

// Whole-engine counters (a superset of the per-connection ones, summed).
struct EngineStats {
    ConnectionStats total;
    uint64_t clientSuccess = 0;       // SMC connections made as client
    uint64_t serverSuccess = 0;       // SMC connections accepted
    uint64_t clientFallbacks = 0;
    uint64_t serverFallbacks = 0;
    uint64_t handshakeErrors = 0;     // fallbacks that were failures (not plain TCP peers)
    std::map<uint32_t, uint64_t> clientFallbackReasons;  // decline code -> count
    std::map<uint32_t, uint64_t> serverFallbackReasons;
    std::map<uint32_t, uint64_t> peerDeclineReasons;     // codes peers sent us
    uint64_t linkGroupsCreated = 0;
    uint64_t linkGroupsFreed = 0;
    uint64_t linkGroupReuses = 0;     // connections that joined an existing group
    uint64_t linksDown = 0;
    uint64_t connectionsAborted = 0;
    uint64_t unknownTokenDropped = 0; // CDCs for no connection on the link
    uint64_t testLinksSent = 0;
    uint64_t addLinkRejected = 0;
    uint64_t rmbAllocs = 0;
    uint64_t rmbReuses = 0;
    uint64_t sndbufAllocs = 0;
    uint64_t sndbufReuses = 0;
    uint64_t cqPolls = 0;             // poll calls that found completions
    uint64_t cqEvents = 0;            // completion-channel wake-ups
    uint64_t busyPollHits = 0;        // waits satisfied while spinning
    uint64_t blockingWaits = 0;       // waits that armed the CQs and slept
    uint64_t sendSlotWaits = 0;       // a push found no free send slot
    uint64_t connectionsActive = 0;   // gauge: SMC connections holding an RMB now

    // Flat "name value" pairs, e.g. {"smcr.cdc_sent", 10}; fallback reasons as
    // "smcr.fallback.client.PEERNOSMC".
    std::vector<std::pair<std::string, uint64_t>> flatten() const;
};

}  // namespace smcr
