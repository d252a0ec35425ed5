// libFuzzer target for the CDC decoder.
#include <cstdlib>

#include <smcr/wire/cdc.h>
#include <smcr/wire/describe.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    auto msg = smcr::wire::decodeCdc(bytes);
    if (!msg) {
        if (msg.error().code != smcr::Errc::malformed || msg.error().message.empty()) std::abort();
        return 0;
    }
    const smcr::wire::CdcBytes encoded = smcr::wire::encode(*msg);
    // Only reserved bytes and unknown flag bits may differ from the input.
    for (size_t i = 0; i < 8; ++i) {
        if (encoded[i] != data[i]) std::abort();
    }
    auto again = smcr::wire::decodeCdc(encoded);
    if (!again || !(*again == *msg)) std::abort();
    (void)smcr::wire::formatDescription(smcr::wire::describe(*msg));
    return 0;
}
