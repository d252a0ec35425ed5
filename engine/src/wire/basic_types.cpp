#include <smcr/wire/basic_types.h>

namespace smcr::wire {

const char* smcTypeName(SmcType type) {
    switch (type) {
        case SmcType::r:
            return "SMC-R";
        case SmcType::d:
            return "SMC-D";
        case SmcType::none:
            return "none";
        case SmcType::both:
            return "SMC-R+SMC-D";
    }
    return "?";
}

uint32_t ibMtuBytes(IbMtu mtu) {
    const auto code = static_cast<uint8_t>(mtu);
    if (code < 1 || code > 5) return 0;
    return 128u << code;
}

IbMtu ibMtuFromBytes(uint32_t mtuBytes) {
    IbMtu best = IbMtu::invalid;
    for (uint8_t code = 1; code <= 5; ++code) {
        if ((128u << code) <= mtuBytes) best = static_cast<IbMtu>(code);
    }
    return best;
}

uint8_t rmbeSizeToCode(uint32_t sizeBytes) {
    // RFC 7609 4.3 / Linux smc_compress_bufsize: 0 for <= 16 KiB, else
    // ilog2((size - 1) >> 14) + 1, i.e. the smallest power of two that holds size.
    if (sizeBytes <= kRmbeSizeMinBytes) return 0;
    uint32_t rest = (sizeBytes - 1) >> 14;
    uint8_t log2 = 0;
    while (rest > 1) {
        rest >>= 1;
        ++log2;
    }
    return static_cast<uint8_t>(log2 + 1);
}

uint32_t rmbeCodeToSize(uint8_t code) {
    if (code > 15) return 0;
    return kRmbeSizeMinBytes << code;
}

}  // namespace smcr::wire
