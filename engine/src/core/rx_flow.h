// Per-link receive-side flow state kept by the shell: the RQ credits of the
// link (credits.h, lab.rq_credits) and the RX backlog (lab.rx_backlog).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

#include "credits.h"

namespace smcr::core {

struct LinkRxFlow {
    LinkCredits credits;
    // lab.rx_backlog (seed 004's alternative, no protocol change): CDCs
    // copied out of their receive slots, which were refilled at once;
    // processed after the completion batch.
    std::deque<std::array<uint8_t, 44>> backlog;
    size_t backlogMax = 0;
    uint64_t creditsReceived = 0;
    uint64_t announcedByCdc = 0;  // credits returned in CDC byte 26
    uint64_t announcedByLlc = 0;  // credits returned by ANNOUNCE_CREDITS
    uint64_t announceLlcs = 0;    // ANNOUNCE_CREDITS messages sent
};

}  // namespace smcr::core
