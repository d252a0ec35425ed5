#include "core/connection/window_policy.h"

#include <algorithm>

namespace smcr::core {

uint32_t windowUpdateLimitBytes(WindowUpdateLimit policy, uint32_t rmbeBytes) {
    const uint32_t tenth = rmbeBytes / 10;
    const uint32_t half = kSockMinSndbufBytes / 2;
    return policy == WindowUpdateLimit::min ? std::min(tenth, half) : std::max(tenth, half);
}

uint32_t readPieceBytes(uint32_t rmbeBytes) {
    return std::max<uint32_t>(rmbeBytes / 4, 4096);
}

bool windowUpdateNeeded(WindowUpdateLimit policy, const WindowUpdateInput& in) {
    if (in.unannouncedConsumedBytes == 0) return false;  // nothing new to announce
    if (in.force || in.peerRequestedUpdate) return true;
    if (in.unannouncedConsumedBytes <= windowUpdateLimitBytes(policy, in.rmbeBytes)) return false;
    return in.senderFreeBytes <= in.rmbeBytes / 2 || in.peerWriteBlocked;
}

}  // namespace smcr::core
