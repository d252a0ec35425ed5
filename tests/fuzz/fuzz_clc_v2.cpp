// libFuzzer target for the CLC v2 bodies: the input becomes a well-framed
// SMC-R v2 Proposal, Accept or Confirm (eyecatcher, a type picked by byte
// 4, the input's length, version 2 with the input's type bits, the
// trailer), so every execution gets past the frame checks into the areas
// and offsets of the v2 Proposal and the FCE and GID list of Accept and
// Confirm. Whatever decodes re-encodes to bytes that decode to the same message.
#include <algorithm>
#include <vector>

#include <smcr/wire/clc.h>

#include "clc_round_trip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using smcr::wire::kEyecatcherSmcr;
    if (size < smcr::wire::kClcHeaderBytes + smcr::wire::kClcTrailerBytes || size > smcr::wire::kClcMaxMessageBytes) {
        return 0;
    }
    std::vector<uint8_t> bytes(data, data + size);
    std::copy(kEyecatcherSmcr.begin(), kEyecatcherSmcr.end(), bytes.begin());
    bytes[4] = static_cast<uint8_t>(1 + data[4] % 3);  // Proposal, Accept, Confirm
    bytes[5] = static_cast<uint8_t>(size >> 8);
    bytes[6] = static_cast<uint8_t>(size & 0xFF);
    bytes[7] = static_cast<uint8_t>(0x20 | (data[7] & 0x0F));
    std::copy(kEyecatcherSmcr.begin(), kEyecatcherSmcr.end(), bytes.end() - 4);
    return checkClcRoundTrip(bytes);
}
