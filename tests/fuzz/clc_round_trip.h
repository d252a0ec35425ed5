// What every CLC fuzz target checks of one input: whatever decodes
// re-encodes to bytes that decode to the same message (and encode the same
// again), and describes; an error is typed (malformed, not supported) and
// says why.
#pragma once

#include <cstdlib>
#include <span>
#include <vector>

#include <smcr/wire/clc.h>
#include <smcr/wire/describe.h>

inline int checkClcRoundTrip(std::span<const uint8_t> bytes) {
    auto msg = smcr::wire::decodeClc(bytes);
    if (!msg) {
        const auto code = msg.error().code;
        if ((code != smcr::Errc::malformed && code != smcr::Errc::notSupported) || msg.error().message.empty()) {
            std::abort();
        }
        return 0;
    }
    const std::vector<uint8_t> encoded = smcr::wire::encodeClc(*msg);
    auto again = smcr::wire::decodeClc(encoded);
    if (!again || !(*again == *msg)) std::abort();
    if (smcr::wire::encodeClc(*again) != encoded) std::abort();
    (void)smcr::wire::formatDescription(smcr::wire::describe(*msg));
    return 0;
}
