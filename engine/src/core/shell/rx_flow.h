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
