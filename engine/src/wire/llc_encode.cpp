// LLC v1 encoders: every message is 44 bytes, header
// {type, length 44, reserved/reject reason, flags}, smc-protocol.md 2.
#include <type_traits>

#include <smcr/wire/llc.h>

#include "common/byte_writer.h"

namespace smcr::wire {

namespace {

// Zeroed 44-byte message with its header written; the writer sits at byte 4.
struct LlcOut {
    LlcBytes bytes{};
    ByteWriter out{bytes};
    LlcOut(LlcType type, uint8_t flags, uint8_t byte2 = 0) {
        out.u8(static_cast<uint8_t>(type));
        out.u8(static_cast<uint8_t>(kLlcMessageBytes));
        out.u8(byte2);
        out.u8(flags);
    }
    LlcOut(const LlcOut&) = delete;
    LlcOut& operator=(const LlcOut&) = delete;
};

uint8_t flag(bool on, uint8_t bit) {
    return on ? bit : uint8_t{0};
}

void writeLinkRkey(ByteWriter& out, const LinkRkey& entry) {
    out.u8(entry.linkId);
    out.u32(entry.rkey);
    out.u64(entry.vaddr);
}

}  // namespace

LlcBytes encode(const LlcConfirmLink& msg) {
    LlcOut m(LlcType::confirmLink,
             flag(msg.response, kLlcFlagResponse) | flag(msg.noRmbeEyecatcher, kLlcFlagNoRmbeEyecatcher));
    m.out.bytes(msg.senderMac);
    m.out.bytes(msg.senderGid);
    m.out.u24(msg.qpn);
    m.out.u8(msg.linkNumber);
    m.out.u32(msg.linkUid);
    m.out.u8(msg.maxLinks);
    m.out.u8(msg.maxConns);
    return m.bytes;
}

LlcBytes encode(const LlcAddLink& msg) {
    LlcOut m(LlcType::addLink, flag(msg.response, kLlcFlagResponse) | flag(msg.rejected, kLlcFlagAddLinkRejected),
             static_cast<uint8_t>(msg.rejectReason & 0x0F));
    m.out.bytes(msg.senderMac);
    m.out.zeros(2);
    m.out.bytes(msg.senderGid);
    m.out.u24(msg.qpn);
    m.out.u8(msg.linkNumber);
    m.out.u8(static_cast<uint8_t>(static_cast<uint8_t>(msg.qpMtu) & 0x0F));
    m.out.u24(msg.initialPsn);
    m.out.u8(msg.initCredits);
    return m.bytes;
}

LlcBytes encode(const LlcAddLinkCont& msg) {
    LlcOut m(LlcType::addLinkCont, flag(msg.response, kLlcFlagResponse));
    m.out.u8(msg.linkNumber);
    m.out.u8(msg.numRkeys);
    m.out.zeros(2);
    for (const RkeyPair& pair : msg.rkeys) {
        m.out.u32(pair.rkeyCurrent);
        m.out.u32(pair.rkeyNew);
        m.out.u64(pair.vaddrNew);
    }
    return m.bytes;
}

LlcBytes encode(const LlcDeleteLink& msg) {
    LlcOut m(LlcType::deleteLink, flag(msg.response, kLlcFlagResponse) | flag(msg.allLinks, kLlcFlagDeleteLinkAll) |
                                      flag(msg.orderly, kLlcFlagDeleteLinkOrderly));
    m.out.u8(msg.linkNumber);
    m.out.u32(msg.reason);
    return m.bytes;
}

LlcBytes encode(const LlcConfirmRkey& msg) {
    LlcOut m(LlcType::confirmRkey, flag(msg.response, kLlcFlagResponse) |
                                       flag(msg.negative, kLlcFlagConfirmRkeyNegative) |
                                       flag(msg.retry, kLlcFlagConfirmRkeyRetry));
    for (const LinkRkey& entry : msg.entries) writeLinkRkey(m.out, entry);
    return m.bytes;
}

LlcBytes encode(const LlcConfirmRkeyCont& msg) {
    LlcOut m(LlcType::confirmRkeyCont, flag(msg.response, kLlcFlagResponse) |
                                           flag(msg.negative, kLlcFlagConfirmRkeyNegative) |
                                           flag(msg.retry, kLlcFlagConfirmRkeyRetry));
    m.out.u8(msg.numRkeys);
    for (const LinkRkey& entry : msg.entries) writeLinkRkey(m.out, entry);
    return m.bytes;
}

LlcBytes encode(const LlcTestLink& msg) {
    LlcOut m(LlcType::testLink, flag(msg.response, kLlcFlagResponse));
    m.out.bytes(msg.userData);
    return m.bytes;
}

LlcBytes encode(const LlcDeleteRkey& msg) {
    LlcOut m(LlcType::deleteRkey, flag(msg.response, kLlcFlagResponse));
    m.out.u8(msg.numRkeys);
    m.out.u8(msg.errorMask);
    m.out.zeros(2);
    for (uint32_t rkey : msg.rkeys) m.out.u32(rkey);
    return m.bytes;
}

LlcBytes encode(const LlcAnnounceCredits& msg) {
    LlcOut m(LlcType::announceCredits, flag(msg.response, kLlcFlagResponse));
    m.out.u8(msg.credits);
    return m.bytes;
}

LlcBytes encodeLlc(const LlcMessage& msg) {
    return std::visit([](const auto& m) { return encode(m); }, msg);
}

LlcType llcTypeOf(const LlcMessage& msg) {
    return std::visit(
        [](const auto& m) -> LlcType {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, LlcConfirmLink>) return LlcType::confirmLink;
            if constexpr (std::is_same_v<T, LlcAddLink>) return LlcType::addLink;
            if constexpr (std::is_same_v<T, LlcAddLinkCont>) return LlcType::addLinkCont;
            if constexpr (std::is_same_v<T, LlcDeleteLink>) return LlcType::deleteLink;
            if constexpr (std::is_same_v<T, LlcConfirmRkey>) return LlcType::confirmRkey;
            if constexpr (std::is_same_v<T, LlcConfirmRkeyCont>) return LlcType::confirmRkeyCont;
            if constexpr (std::is_same_v<T, LlcTestLink>) return LlcType::testLink;
            if constexpr (std::is_same_v<T, LlcDeleteRkey>) return LlcType::deleteRkey;
            if constexpr (std::is_same_v<T, LlcAnnounceCredits>) return LlcType::announceCredits;
            return LlcType::invalid;
        },
        msg);
}

}  // namespace smcr::wire
