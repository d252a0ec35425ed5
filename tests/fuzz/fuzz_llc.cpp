// libFuzzer target for the LLC decoder (v1 messages; v2 types must be refused).
#include <cstdlib>

#include <smcr/wire/describe.h>
#include <smcr/wire/llc.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    (void)smcr::wire::peekLlcHeader(bytes);
    auto msg = smcr::wire::decodeLlc(bytes);
    if (!msg) {
        const auto code = msg.error().code;
        if ((code != smcr::Errc::malformed && code != smcr::Errc::notSupported) || msg.error().message.empty()) {
            std::abort();
        }
        return 0;
    }
    if (size != smcr::wire::kLlcMessageBytes) std::abort();
    const smcr::wire::LlcBytes encoded = smcr::wire::encodeLlc(*msg);
    if (encoded[0] != data[0]) std::abort();
    auto again = smcr::wire::decodeLlc(encoded);
    if (!again || !(*again == *msg)) std::abort();
    if (smcr::wire::encodeLlc(*again) != encoded) std::abort();
    (void)smcr::wire::formatDescription(smcr::wire::describe(*msg));
    return 0;
}
