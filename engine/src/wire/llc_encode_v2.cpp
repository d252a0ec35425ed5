// LLC v2 encoders: the v1 body under a v2 header (type | 0x20, the length
// little-endian in bytes 1-2, as the x86 kernel writes its host-order
// length_v2), and the ADD_LINK request's extension behind byte 44 (its
// rkey count is host order in the kernel too: little-endian).
#include <algorithm>
#include <type_traits>

#include <smcr/wire/llc.h>

#include "common/byte_writer.h"

namespace smcr::wire {

namespace {

constexpr uint8_t kV2TypeBit = 0x20;

bool hasV2Form(LlcType type) {
    switch (type) {
        case LlcType::confirmLink:
        case LlcType::addLink:
        case LlcType::deleteLink:
        case LlcType::confirmRkey:
        case LlcType::testLink:
        case LlcType::deleteRkey:
            return true;
        default:
            return false;
    }
}

// Wire limit of the extension's entries: what fits in the kernel's 8 KiB buffer.
constexpr size_t kMaxAddLinkV2Rkeys =
    (kLlcV2MaxBytes - kLlcMessageBytes - kLlcAddLinkV2ExtFixedBytes) / kLlcAddLinkV2RkeyBytes;

void appendAddLinkV2Ext(std::vector<uint8_t>& bytes, const LlcAddLinkV2Ext& ext) {
    const size_t count = std::min(ext.rkeys.size(), kMaxAddLinkV2Rkeys);
    const size_t start = bytes.size();
    bytes.resize(start + kLlcAddLinkV2ExtFixedBytes + count * kLlcAddLinkV2RkeyBytes, 0);
    ByteWriter out(std::span<uint8_t>(bytes).subspan(start));
    out.u8(ext.direct ? 0x80 : 0x00);
    out.zeros(1);
    out.bytes(ext.clientTargetGid);
    out.zeros(8);
    out.u8(static_cast<uint8_t>(count & 0xFF));  // little-endian, as the length
    out.u8(static_cast<uint8_t>(count >> 8));
    for (size_t i = 0; i < count; ++i) {
        out.u32(ext.rkeys[i].rkeyCurrent);
        out.u32(ext.rkeys[i].rkeyNew);
        out.u64(ext.rkeys[i].vaddrNew);
    }
}

void writeV2Header(std::span<uint8_t> bytes, LlcType type) {
    bytes[0] = static_cast<uint8_t>(static_cast<uint8_t>(type) | kV2TypeBit);
    bytes[1] = static_cast<uint8_t>(bytes.size() & 0xFF);
    bytes[2] = static_cast<uint8_t>(bytes.size() >> 8);  // overwrites the v1 reject reason: v2 has none
}

}  // namespace

std::vector<uint8_t> encodeLlcV2(const LlcMessage& msg) {
    const LlcBytes v1 = encodeLlc(msg);
    std::vector<uint8_t> bytes(v1.begin(), v1.end());
    const LlcType type = llcTypeOf(msg);
    if (!hasV2Form(type)) return bytes;
    const auto* add = std::get_if<LlcAddLink>(&msg);
    // The extension belongs to the request; a response is the 44-byte body.
    if (add != nullptr && !add->response && add->v2Ext) appendAddLinkV2Ext(bytes, *add->v2Ext);
    writeV2Header(bytes, type);
    return bytes;
}

LlcBytes asLlcV2(const LlcBytes& v1) {
    LlcBytes bytes = v1;
    const auto type = static_cast<LlcType>(v1[0]);
    if (hasV2Form(type)) writeV2Header(bytes, type);
    return bytes;
}

std::vector<uint8_t> encodeLlc(const LlcMessage& msg, LlcVersion version) {
    if (version == LlcVersion::v2) return encodeLlcV2(msg);
    const LlcBytes v1 = encodeLlc(msg);
    return {v1.begin(), v1.end()};
}

}  // namespace smcr::wire
