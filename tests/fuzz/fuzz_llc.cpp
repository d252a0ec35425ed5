// libFuzzer target for the LLC decoder, v1 and v2 forms: whatever decodes
// re-encodes in its own form to the same length and decodes to the same
// message; errors must be typed and named.
#include <cstdlib>

#include <smcr/wire/describe.h>
#include <smcr/wire/llc.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    const auto header = smcr::wire::peekLlcHeader(bytes);
    auto msg = smcr::wire::decodeLlc(bytes);
    if (!msg) {
        const auto code = msg.error().code;
        if ((code != smcr::Errc::malformed && code != smcr::Errc::notSupported) || msg.error().message.empty()) {
            std::abort();
        }
        return 0;
    }
    if (!header) std::abort();  // a decoded message has a header
    const auto version = header->v2 ? smcr::wire::LlcVersion::v2 : smcr::wire::LlcVersion::v1;
    const std::vector<uint8_t> encoded = smcr::wire::encodeLlc(*msg, version);
    if (encoded.size() != size || encoded[0] != data[0]) std::abort();
    auto again = smcr::wire::decodeLlc(encoded);
    if (!again || !(*again == *msg)) std::abort();
    if (smcr::wire::encodeLlc(*again, version) != encoded) std::abort();
    (void)smcr::wire::formatDescription(smcr::wire::describe(*msg, version));
    return 0;
}
