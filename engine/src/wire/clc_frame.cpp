#include "clc_frame.h"

#include <algorithm>
#include <string>

namespace smcr::wire {

namespace {

std::span<const uint8_t> eyecatcherBytes(Eyecatcher eyecatcher) {
    return eyecatcher == Eyecatcher::smcd ? std::span<const uint8_t>(kEyecatcherSmcd)
                                          : std::span<const uint8_t>(kEyecatcherSmcr);
}

std::string hex32(uint32_t value) {
    static const char* digits = "0123456789abcdef";
    std::string text = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) text += digits[(value >> shift) & 0xF];
    return text;
}

}  // namespace

Result<ClcHeader> peekClcHeader(std::span<const uint8_t> bytes) {
    ByteReader in(bytes, "clc.header");
    std::array<uint8_t, 4> eye = in.array<4>("eyecatcher");
    const uint8_t type = in.u8("type");
    const uint16_t length = in.u16("length");
    const uint8_t byte7 = in.u8("version");
    if (!in.ok()) return in.takeError();

    ClcHeader header;
    if (eye == kEyecatcherSmcr) {
        header.eyecatcher = Eyecatcher::smcr;
    } else if (eye == kEyecatcherSmcd) {
        header.eyecatcher = Eyecatcher::smcd;
    } else {
        const uint32_t value = (uint32_t{eye[0]} << 24) | (uint32_t{eye[1]} << 16) | (uint32_t{eye[2]} << 8) | eye[3];
        return fail(Errc::malformed,
                    "clc.header.eyecatcher: " + hex32(value) + " is neither SMCR (0xe2d4c3d9) nor SMCD (0xe2d4c3c4)");
    }
    if (type < 1 || type > 4) {
        return fail(Errc::malformed, "clc.header.type: unknown CLC type " + std::to_string(type));
    }
    header.type = static_cast<ClcType>(type);
    if (length < kClcHeaderBytes + kClcTrailerBytes || length > kClcMaxMessageBytes) {
        return fail(Errc::malformed, "clc.header.length: " + std::to_string(length) + " is outside " +
                                         std::to_string(kClcHeaderBytes + kClcTrailerBytes) + ".." +
                                         std::to_string(kClcMaxMessageBytes));
    }
    header.lengthBytes = length;
    header.version = static_cast<uint8_t>(byte7 >> 4);
    header.typeV2 = static_cast<uint8_t>((byte7 >> 2) & 0x03);
    header.typeV1 = static_cast<uint8_t>(byte7 & 0x03);
    if (header.version == 0) return fail(Errc::malformed, "clc.header.version: 0 is not a CLC version");
    return header;
}

Result<ClcHeader> checkClcFrame(std::span<const uint8_t> bytes, ClcType expected, std::string_view context) {
    auto header = peekClcHeader(bytes);
    if (!header) return fail(header.error());
    const std::string ctx(context);
    if (header->type != expected) {
        return fail(Errc::malformed,
                    ctx + ".type: expected " + clcTypeName(expected) + ", got " + clcTypeName(header->type));
    }
    if (bytes.size() != header->lengthBytes) {
        return fail(Errc::malformed, ctx + ".length: header says " + std::to_string(header->lengthBytes) +
                                         " bytes, have " + std::to_string(bytes.size()));
    }
    // The kernel does not check a Decline's trailer (older peers got it wrong).
    if (expected != ClcType::decline) {
        const auto trailer = bytes.subspan(bytes.size() - kClcTrailerBytes);
        const auto eye = eyecatcherBytes(header->eyecatcher);
        if (!std::equal(trailer.begin(), trailer.end(), eye.begin(), eye.end())) {
            return fail(Errc::malformed, ctx + ".trailer: does not repeat the header eyecatcher");
        }
    }
    return header;
}

void writeClcHeader(ByteWriter& out, const ClcHeader& header) {
    out.bytes(eyecatcherBytes(header.eyecatcher));
    out.u8(static_cast<uint8_t>(header.type));
    out.u16(header.lengthBytes);
    out.u8(clcByte7(header.version, header.typeV2, header.typeV1));
}

void writeClcTrailer(ByteWriter& out, Eyecatcher eyecatcher) {
    out.bytes(eyecatcherBytes(eyecatcher));
}

}  // namespace smcr::wire
