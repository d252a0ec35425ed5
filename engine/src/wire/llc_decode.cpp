// LLC decoder, smc-protocol.md 2. v1 messages are exactly 44 bytes with the
// length byte 44. v2 messages (type | 0x20) carry a 16-bit little-endian
// length and the v1 bodies, the ADD_LINK request an extension behind them;
// REQ_ADD_LINK_V2 is recognised but not decoded (Errc::notSupported). Unknown
// types are malformed (the kernel terminates the link group on them).
#include <string>

#include <smcr/wire/cdc.h>
#include <smcr/wire/llc.h>

#include "common/byte_reader.h"

namespace smcr::wire {

namespace {

constexpr uint8_t kV2TypeBit = 0x20;
constexpr uint8_t kReqAddLinkV2 = 0x25;

bool isV2Type(uint8_t type) {
    switch (type) {
        case 0x21:
        case 0x22:
        case 0x24:
        case 0x25:
        case 0x26:
        case 0x27:
        case 0x29:
            return true;
        default:
            return false;
    }
}

std::string lowerName(const char* name) {
    std::string out;
    for (const char* p = name; *p != '\0'; ++p) out += static_cast<char>(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    return out;
}

std::string hexByte(uint8_t value) {
    static const char* digits = "0123456789ABCDEF";
    return std::string("0x") + digits[value >> 4] + digits[value & 0x0F];
}

LinkRkey readLinkRkey(ByteReader& in) {
    LinkRkey entry;
    entry.linkId = in.u8("link_id");
    entry.rkey = in.u32("rkey");
    entry.vaddr = in.u64("vaddr");
    return entry;
}

LlcConfirmLink readConfirmLink(ByteReader& in, uint8_t flags) {
    LlcConfirmLink msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.noRmbeEyecatcher = (flags & kLlcFlagNoRmbeEyecatcher) == kLlcFlagNoRmbeEyecatcher;
    msg.senderMac = in.array<6>("sender_mac");
    msg.senderGid = in.array<16>("sender_gid");
    msg.qpn = in.u24("sender_qp_num");
    msg.linkNumber = in.u8("link_num");
    msg.linkUid = in.u32("link_uid");
    msg.maxLinks = in.u8("max_links");
    msg.maxConns = in.u8("max_conns");
    return msg;
}

LlcAddLink readAddLink(ByteReader& in, uint8_t flags, uint8_t byte2) {
    LlcAddLink msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.rejected = (flags & kLlcFlagAddLinkRejected) != 0;
    msg.rejectReason = static_cast<uint8_t>(byte2 & 0x0F);
    msg.senderMac = in.array<6>("sender_mac");
    in.skip("reserved", 2);
    msg.senderGid = in.array<16>("sender_gid");
    msg.qpn = in.u24("sender_qp_num");
    msg.linkNumber = in.u8("link_num");
    msg.qpMtu = static_cast<IbMtu>(in.u8("qp_mtu") & 0x0F);
    msg.initialPsn = in.u24("initial_psn");
    msg.initCredits = in.u8("init_credits");
    return msg;
}

LlcAddLinkCont readAddLinkCont(ByteReader& in, uint8_t flags) {
    LlcAddLinkCont msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.linkNumber = in.u8("link_num");
    msg.numRkeys = in.u8("num_rkeys");
    in.skip("reserved", 2);
    for (RkeyPair& pair : msg.rkeys) {
        pair.rkeyCurrent = in.u32("rkey");
        pair.rkeyNew = in.u32("rkey_new");
        pair.vaddrNew = in.u64("vaddr_new");
    }
    return msg;
}

LlcDeleteLink readDeleteLink(ByteReader& in, uint8_t flags) {
    LlcDeleteLink msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.allLinks = (flags & kLlcFlagDeleteLinkAll) != 0;
    msg.orderly = (flags & kLlcFlagDeleteLinkOrderly) != 0;
    msg.linkNumber = in.u8("link_num");
    msg.reason = in.u32("reason");
    return msg;
}

LlcConfirmRkey readConfirmRkey(ByteReader& in, uint8_t flags) {
    LlcConfirmRkey msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.negative = (flags & kLlcFlagConfirmRkeyNegative) != 0;
    msg.retry = (flags & kLlcFlagConfirmRkeyRetry) != 0;
    for (LinkRkey& entry : msg.entries) entry = readLinkRkey(in);
    return msg;
}

LlcConfirmRkeyCont readConfirmRkeyCont(ByteReader& in, uint8_t flags) {
    LlcConfirmRkeyCont msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.negative = (flags & kLlcFlagConfirmRkeyNegative) != 0;
    msg.retry = (flags & kLlcFlagConfirmRkeyRetry) != 0;
    msg.numRkeys = in.u8("num_rkeys");
    for (LinkRkey& entry : msg.entries) entry = readLinkRkey(in);
    return msg;
}

LlcTestLink readTestLink(ByteReader& in, uint8_t flags) {
    LlcTestLink msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.userData = in.array<16>("user_data");
    return msg;
}

// Behind byte 44 of a v2 ADD_LINK request: exactly the rkey entries it counts.
LlcAddLinkV2Ext readAddLinkV2Ext(ByteReader& in) {
    LlcAddLinkV2Ext ext;
    ext.direct = (in.u8("v2_ext.v2_direct") & 0x80) != 0;
    in.skip("v2_ext.reserved", 1);
    ext.clientTargetGid = in.array<16>("v2_ext.client_target_gid");
    in.skip("v2_ext.reserved", 8);
    // Host order in the kernel, like length_v2: little-endian from x86.
    const uint8_t countLow = in.u8("v2_ext.num_rkeys");
    const uint8_t countHigh = in.u8("v2_ext.num_rkeys");
    const uint16_t count = static_cast<uint16_t>(countLow | (countHigh << 8));
    if (in.ok() && in.remaining() != size_t{count} * kLlcAddLinkV2RkeyBytes) {
        in.fail("v2_ext.num_rkeys", std::to_string(count) + " entries need " +
                                        std::to_string(size_t{count} * kLlcAddLinkV2RkeyBytes) +
                                        " bytes, the message has " + std::to_string(in.remaining()));
    }
    for (size_t i = 0; in.ok() && i < count; ++i) {
        RkeyPair pair;
        pair.rkeyCurrent = in.u32("v2_ext.rmb_key");
        pair.rkeyNew = in.u32("v2_ext.rmb_key_new");
        pair.vaddrNew = in.u64("v2_ext.rmb_vaddr_new");
        ext.rkeys.push_back(pair);
    }
    return ext;
}

LlcDeleteRkey readDeleteRkey(ByteReader& in, uint8_t flags) {
    LlcDeleteRkey msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.numRkeys = in.u8("num_rkeys");
    msg.errorMask = in.u8("err_mask");
    in.skip("reserved", 2);
    for (uint32_t& rkey : msg.rkeys) rkey = in.u32("rkey");
    if (msg.numRkeys > msg.rkeys.size()) in.fail("num_rkeys", std::to_string(msg.numRkeys) + " > 8");
    return msg;
}

LlcAnnounceCredits readAnnounceCredits(ByteReader& in, uint8_t flags) {
    LlcAnnounceCredits msg;
    msg.response = (flags & kLlcFlagResponse) != 0;
    msg.credits = in.u8("credits");
    return msg;
}

}  // namespace

Result<LlcHeader> peekLlcHeader(std::span<const uint8_t> bytes) {
    ByteReader in(bytes, "llc.header");
    LlcHeader header;
    header.type = in.u8("type");
    header.v2 = isV2Type(header.type);
    if (header.v2) {
        // The kernel fills length_v2 in host order: little-endian from x86
        // (Wireshark reads it big-endian and calls these messages malformed).
        const uint8_t low = in.u8("length");
        const uint8_t high = in.u8("length");
        header.lengthBytes = static_cast<uint16_t>(low | (high << 8));
    } else {
        header.lengthBytes = in.u8("length");
        in.skip("reserved", 1);
    }
    header.flags = in.u8("flags");
    if (!in.ok()) return in.takeError();
    return header;
}

namespace {

// The size rules of each form, before any body field is read.
Status checkLlcSize(std::span<const uint8_t> bytes, const LlcHeader& header, const std::string& ctx) {
    if (!header.v2) {
        if (bytes.size() != kLlcMessageBytes) {
            return fail(Errc::malformed, ctx + ": message is " + std::to_string(bytes.size()) +
                                             " bytes, a v1 LLC message is exactly 44");
        }
        if (header.lengthBytes != kLlcMessageBytes) {
            return fail(Errc::malformed, ctx + ".length: " + std::to_string(header.lengthBytes) + ", must be 44");
        }
        return {};
    }
    if (header.lengthBytes < kLlcMessageBytes || header.lengthBytes > kLlcV2MaxBytes) {
        return fail(Errc::malformed,
                    ctx + ".length: " + std::to_string(header.lengthBytes) + " is outside 44..8192 (little-endian)");
    }
    if (bytes.size() != header.lengthBytes) {
        return fail(Errc::malformed, ctx + ".length: header says " + std::to_string(header.lengthBytes) +
                                         " bytes, have " + std::to_string(bytes.size()));
    }
    // Only the ADD_LINK request has anything behind byte 44.
    const bool extended =
        header.type == (static_cast<uint8_t>(LlcType::addLink) | kV2TypeBit) && (header.flags & kLlcFlagResponse) == 0;
    if (!extended && header.lengthBytes != kLlcMessageBytes) {
        return fail(Errc::malformed,
                    ctx + ".length: " + std::to_string(header.lengthBytes) + ", this v2 message is exactly 44 bytes");
    }
    return {};
}

}  // namespace

Result<LlcMessage> decodeLlc(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return fail(Errc::malformed, "llc.type: need 1 byte at offset 0, have 0");
    const uint8_t wireType = bytes[0];
    const char* name = llcTypeName(wireType);
    if (wireType == kCdcType) return fail(Errc::malformed, "llc.type: 0xFE is a CDC message, not LLC");
    if (name == nullptr) return fail(Errc::malformed, "llc.type: unknown LLC type " + hexByte(wireType));
    const std::string ctx = "llc." + lowerName(name);
    auto header = peekLlcHeader(bytes);
    if (!header) return fail(header.error());
    if (wireType == kReqAddLinkV2) {
        return fail(Errc::notSupported, std::string("llc: SMC-R v2 message ") + name + " (" + hexByte(wireType) + ", " +
                                            std::to_string(header->lengthBytes) + " bytes) is not supported");
    }
    if (Status sized = checkLlcSize(bytes, *header, ctx); !sized) return fail(sized.error());
    const uint8_t type = header->v2 ? static_cast<uint8_t>(wireType & ~kV2TypeBit) : wireType;
    // In v2, byte 2 is the high byte of the length: no reject reason there.
    const uint8_t byte2 = header->v2 ? uint8_t{0} : bytes[2];
    const uint8_t flags = header->flags;
    ByteReader in(bytes, ctx);
    in.seek("header", 4);
    LlcMessage msg = LlcTestLink{};
    switch (static_cast<LlcType>(type)) {
        case LlcType::confirmLink:
            msg = readConfirmLink(in, flags);
            break;
        case LlcType::addLink: {
            LlcAddLink add = readAddLink(in, flags, byte2);
            if (in.ok() && header->lengthBytes > kLlcMessageBytes) {
                in.seek("v2_ext", kLlcMessageBytes);
                add.v2Ext = readAddLinkV2Ext(in);
            }
            msg = std::move(add);
            break;
        }
        case LlcType::addLinkCont:
            msg = readAddLinkCont(in, flags);
            break;
        case LlcType::deleteLink:
            msg = readDeleteLink(in, flags);
            break;
        case LlcType::confirmRkey:
            msg = readConfirmRkey(in, flags);
            break;
        case LlcType::confirmRkeyCont:
            msg = readConfirmRkeyCont(in, flags);
            break;
        case LlcType::testLink:
            msg = readTestLink(in, flags);
            break;
        case LlcType::deleteRkey:
            msg = readDeleteRkey(in, flags);
            break;
        case LlcType::announceCredits:
            msg = readAnnounceCredits(in, flags);
            break;
        default:
            return fail(Errc::malformed, "llc.type: unknown LLC type " + hexByte(type));
    }
    if (!in.ok()) return in.takeError();
    return msg;
}

}  // namespace smcr::wire
