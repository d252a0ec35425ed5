// libFuzzer target for the LLC v2 forms alone: the input becomes a v2
// message (its first byte is or picks a v2 type, bytes 1-2 are set to the
// input's length, little-endian), so every execution reaches the v2 size
// rules and bodies, the ADD_LINK extension most of all. Whatever decodes
// re-encodes to the same length and decodes to the same message.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

#include <smcr/wire/describe.h>
#include <smcr/wire/llc.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static constexpr std::array<uint8_t, 7> kV2Types = {0x21, 0x22, 0x24, 0x25, 0x26, 0x27, 0x29};
    if (size < 4 || size > smcr::wire::kLlcV2MaxBytes) return 0;
    std::vector<uint8_t> bytes(data, data + size);
    // A v2 type stays (the seeds are the kernel's messages), any other byte picks one.
    if (std::find(kV2Types.begin(), kV2Types.end(), data[0]) == kV2Types.end()) {
        bytes[0] = kV2Types[data[0] % kV2Types.size()];
    }
    bytes[1] = static_cast<uint8_t>(size & 0xFF);
    bytes[2] = static_cast<uint8_t>(size >> 8);
    auto msg = smcr::wire::decodeLlc(bytes);
    if (!msg) {
        const auto code = msg.error().code;
        if ((code != smcr::Errc::malformed && code != smcr::Errc::notSupported) || msg.error().message.empty()) {
            std::abort();
        }
        return 0;
    }
    const std::vector<uint8_t> encoded = smcr::wire::encodeLlcV2(*msg);
    // Same type and length; flag bits the type does not define are dropped.
    if (encoded.size() != size || encoded[0] != bytes[0]) std::abort();
    auto again = smcr::wire::decodeLlc(encoded);
    if (!again || !(*again == *msg)) std::abort();
    if (smcr::wire::encodeLlcV2(*again) != encoded) std::abort();
    (void)smcr::wire::formatDescription(smcr::wire::describe(*msg, smcr::wire::LlcVersion::v2));
    return 0;
}
