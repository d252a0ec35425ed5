// libFuzzer target for the CLC decoder: whatever decodes must re-encode to
// bytes that decode to the same message; errors must be typed and named.
#include <smcr/wire/clc.h>

#include "clc_round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    (void)smcr::wire::peekClcHeader(bytes);
    return checkClcRoundTrip(bytes);
}
