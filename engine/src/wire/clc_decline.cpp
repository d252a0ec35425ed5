// CLC Decline, smc-protocol.md 1.5: 28 bytes in v1, 44 in v2 (four more
// diagnosis codes). A Decline may arrive at any step of the handshake.
#include <string>

#include "clc_frame.h"

namespace smcr::wire {

namespace {

constexpr uint8_t kOutOfSyncBit = 0x02;  // within typev2 (header byte 7 bit 3)

}  // namespace

Result<ClcDecline> decodeClcDecline(std::span<const uint8_t> bytes) {
    auto header = checkClcFrame(bytes, ClcType::decline, "clc.decline");
    if (!header) return fail(header.error());
    const size_t expected = header->version == 1 ? kClcDeclineV1Bytes : kClcDeclineV2Bytes;
    if (header->lengthBytes != expected) {
        return fail(Errc::malformed, "clc.decline.length: " + std::to_string(header->lengthBytes) + ", a v" +
                                         std::to_string(header->version) + " decline is exactly " +
                                         std::to_string(expected) + " bytes");
    }
    ClcDecline msg;
    msg.eyecatcher = header->eyecatcher;
    msg.version = header->version;
    msg.outOfSync = (header->typeV2 & kOutOfSyncBit) != 0;
    ByteReader in(bytes, "clc.decline");
    in.seek("peer_id", kClcHeaderBytes);
    msg.peerId = in.array<8>("peer_id");
    msg.reasonCode = in.u32("peer_diagnosis");
    msg.osType = static_cast<uint8_t>(in.u8("os_type") >> 4);
    in.skip("reserved", 3);
    if (msg.version >= 2) {
        for (uint32_t& code : msg.additionalReasons) code = in.u32("peer_diagnosis_ext");
    }
    if (!in.ok()) return in.takeError();
    return msg;
}

std::vector<uint8_t> encode(const ClcDecline& msg) {
    const size_t length = msg.version == 1 ? kClcDeclineV1Bytes : kClcDeclineV2Bytes;
    std::vector<uint8_t> bytes(length, 0);
    ByteWriter out(bytes);
    ClcHeader header;
    header.eyecatcher = msg.eyecatcher;
    header.type = ClcType::decline;
    header.lengthBytes = static_cast<uint16_t>(length);
    header.version = msg.version;
    header.typeV2 = msg.outOfSync ? kOutOfSyncBit : 0;
    header.typeV1 = 0;
    writeClcHeader(out, header);
    out.bytes(msg.peerId);
    out.u32(msg.reasonCode);
    out.u8(static_cast<uint8_t>((msg.osType & 0x0F) << 4));
    out.zeros(3);
    if (length == kClcDeclineV2Bytes) {
        for (uint32_t code : msg.additionalReasons) out.u32(code);
    }
    writeClcTrailer(out, msg.eyecatcher);
    return bytes;
}

}  // namespace smcr::wire
