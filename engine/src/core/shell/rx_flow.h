// Per-link receive-side flow state kept by the shell: the RQ credits of the
// link (credits.h, lab.rq_credits), and the CDCs the receive path has not
// handled yet (lab.rx_backlog, lab.rx_repost_delay_us).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "core/connection/cdc_info.h"
#include "core/link/credits.h"

namespace smcr::core {

// A received CDC, decoded once when it arrives (engine_rx.cpp): what its
// connection takes, and the RQ credits it returns to the link it came over
// (byte 26).
struct ReceivedCdc {
    CdcInfo info;
    uint8_t credits = 0;
};
// The 44 bytes of a CDC; nullopt for a wrong length byte (dropped like the kernel).
std::optional<ReceivedCdc> decodeReceivedCdc(const uint8_t* bytes);

// A received CDC waiting for the receive path (engine_credits.cpp).
struct RxPending {
    uint64_t dueNs = 0;  // handled at this time (lab.rx_repost_delay_us after arrival)
    uint32_t qpn = 0;    // the QP whose receive WQE `slot` still waits for its refill
    uint32_t slot = kRefilled;
    ReceivedCdc cdc;
    static constexpr uint32_t kRefilled = UINT32_MAX;  // lab.rx_backlog refilled it at arrival
};

// How one link's receive path differs from another's, as data: one
// dispatcher (EngineImpl::receiveLocked, engine_receive.cpp) serves every
// link of a group.
struct RxRules {
    // A link of the group: its receive WQEs are reposted, its LLC messages
    // handled, CDC byte 26 credits it. Not the retired link (QP in ERR),
    // of which only the CDCs it took in before it went down still count.
    bool live = true;
    // lab.rx_backlog and lab.rx_repost_delay_us model this link's path (the
    // primary's: the kernel's rx tasklet running late).
    bool labSlowPath = false;
    // Its CDCs wait behind the group's RX backlog (arrival order).
    bool inGroupOrder = false;
    // A short message or an unknown LLC type ends the group (protocol
    // violation); elsewhere it is dropped.
    bool malformedEndsGroup = false;
    // Its waiting senders are served after every message it brings (the
    // added link); the primary's come with its credits and completions.
    bool serviceAfterEach = false;
    // Counted in smcr.retired_link_cdcs.
    bool countRetired = false;

    static constexpr RxRules primary() {
        return {.live = true, .labSlowPath = true, .inGroupOrder = true, .malformedEndsGroup = true};
    }
    static constexpr RxRules added() { return {.live = true, .serviceAfterEach = true}; }
    static constexpr RxRules retired() { return {.live = false, .inGroupOrder = true, .countRetired = true}; }
};

struct LinkRxFlow {
    LinkCredits credits;
    // CDCs copied out of their receive slots, in arrival order. With
    // lab.rx_backlog (seed 004's alternative, no protocol change) the slot
    // was refilled at once and the CDC waits here to be handled after the
    // completion batch; with lab.rx_repost_delay_us (the slow receive path)
    // it is handled, and its slot refilled, that long after it arrived.
    std::deque<RxPending> backlog;
    size_t backlogMax = 0;
    uint64_t creditsReceived = 0;
    uint64_t announcedByCdc = 0;  // credits returned in CDC byte 26
    uint64_t announcedByLlc = 0;  // credits returned by ANNOUNCE_CREDITS
    uint64_t announceLlcs = 0;    // ANNOUNCE_CREDITS messages sent
};

}  // namespace smcr::core
