// libFuzzer target for the CLC decoder: whatever decodes must re-encode to
// bytes that decode to the same message; errors must be typed and named.
#include <cstdlib>

#include <smcr/wire/clc.h>
#include <smcr/wire/describe.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    (void)smcr::wire::peekClcHeader(bytes);
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
