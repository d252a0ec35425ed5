// CLC Accept / Confirm for SMC-R, smc-protocol.md 1.4: 68 bytes in v1; in v2
// at least 108 (EID), plus the 52-byte first-contact extension and, in a
// first-contact Confirm, the GID list. SMC-D Accept/Confirm use another
// layout and are reported as not supported.
#include <algorithm>
#include <string>

#include "clc_frame.h"

namespace smcr::wire {

namespace {

constexpr uint8_t kFirstContactBit = 0x02;  // within typev2 (header byte 7 bit 3)

}  // namespace

Result<ClcAcceptConfirm> decodeClcAcceptConfirm(std::span<const uint8_t> bytes) {
    auto peeked = peekClcHeader(bytes);
    if (!peeked) return fail(peeked.error());
    if (peeked->type != ClcType::accept && peeked->type != ClcType::confirm) {
        return fail(Errc::malformed,
                    std::string("clc.accept.type: expected Accept or Confirm, got ") + clcTypeName(peeked->type));
    }
    const std::string ctx = peeked->type == ClcType::accept ? "clc.accept" : "clc.confirm";
    auto header = checkClcFrame(bytes, peeked->type, ctx);
    if (!header) return fail(header.error());

    if (header->eyecatcher == Eyecatcher::smcd || header->typeV1 == static_cast<uint8_t>(SmcType::d)) {
        return fail(Errc::notSupported, ctx + ": SMC-D " + clcTypeName(header->type) + " is not supported");
    }
    if (header->typeV1 != static_cast<uint8_t>(SmcType::r)) {
        return fail(Errc::malformed, ctx + ".typev1: " + std::to_string(header->typeV1) +
                                         " is not a chosen SMC type (0 = SMC-R, 1 = SMC-D)");
    }
    if (header->version == 1 && header->lengthBytes != kClcAcceptConfirmV1Bytes) {
        return fail(Errc::malformed, ctx + ".length: " + std::to_string(header->lengthBytes) +
                                         ", a v1 SMC-R message is exactly 68 bytes");
    }
    if (header->version >= 2 && header->lengthBytes < kClcAcceptConfirmV2MinBytes) {
        return fail(Errc::malformed, ctx + ".length: " + std::to_string(header->lengthBytes) +
                                         ", a v2 SMC-R message is at least 108 bytes");
    }

    ClcAcceptConfirm msg;
    msg.type = header->type;
    msg.version = header->version;
    msg.firstContact = (header->typeV2 & kFirstContactBit) != 0;

    ByteReader in(bytes.first(bytes.size() - kClcTrailerBytes), ctx);
    in.seek("peer_id", kClcHeaderBytes);
    msg.peerId = in.array<8>("peer_id");
    msg.gid = in.array<16>("gid");
    msg.mac = in.array<6>("mac");
    msg.qpn = in.u24("qpn");
    msg.rmbRkey = in.u32("rmb_rkey");
    msg.rmbeIndex = in.u8("rmbe_idx");
    msg.rmbeAlertToken = in.u32("rmbe_alert_token");
    const uint8_t sizeMtu = in.u8("rmbe_size");
    msg.rmbeSizeCode = static_cast<uint8_t>(sizeMtu >> 4);
    msg.qpMtu = static_cast<IbMtu>(sizeMtu & 0x0F);
    msg.initCredits = in.u8("init_credits");
    msg.rmbVaddr = in.u64("rmb_dma_addr");
    in.skip("reserved", 1);
    msg.initialPsn = in.u24("psn");
    if (msg.rmbeSizeCode > kRmbeSizeCodeMaxSmcr) {
        in.fail("rmbe_size", "reserved code " + std::to_string(msg.rmbeSizeCode) + " (SMC-R allows 0..5)");
    }

    if (in.ok() && msg.version >= 2) {
        msg.eid = in.array<32>("eid");
        in.skip("reserved", 8);
        if (in.ok() && in.remaining() > 0) {
            ClcFirstContactExt fce;
            fce.v2Direct = (in.u8("fce.v2_direct") & 0x80) != 0;
            const uint8_t osRelease = in.u8("fce.os_type");
            fce.osType = static_cast<uint8_t>(osRelease >> 4);
            fce.release = static_cast<uint8_t>(osRelease & 0x0F);
            in.skip("fce.reserved", 2);
            fce.hostname = in.array<32>("fce.hostname");
            fce.maxConns = in.u8("fce.max_conns");
            fce.maxLinks = in.u8("fce.max_links");
            fce.featureMask = in.u16("fce.feature_mask");
            fce.vendorOptions = in.array<4>("fce.vendor_options");
            in.skip("fce.reserved", 8);
            msg.firstContactExt = fce;
        }
        if (in.ok() && in.remaining() > 0) {
            const uint8_t count = in.u8("gid_list.count");
            in.skip("gid_list.reserved", 3);
            if (count > kClcMaxGidListEntries) {
                in.fail("gid_list.count", std::to_string(count) + " > " + std::to_string(kClcMaxGidListEntries));
            }
            std::vector<Gid> gids;
            for (size_t i = 0; in.ok() && i < count; ++i) gids.push_back(in.array<16>("gid_list.gid"));
            msg.gidList = std::move(gids);
            if (in.ok() && in.remaining() != 0) {
                in.fail("length", std::to_string(in.remaining()) + " unexpected bytes after the GID list");
            }
        }
    }
    if (!in.ok()) return in.takeError();
    return msg;
}

std::vector<uint8_t> encode(const ClcAcceptConfirm& msg) {
    const bool v2 = msg.version >= 2;
    const bool withFce = v2 && msg.firstContactExt.has_value();
    const bool withGids = withFce && msg.gidList.has_value();
    const size_t gidCount = withGids ? std::min(msg.gidList->size(), kClcMaxGidListEntries) : 0;
    size_t length = kClcAcceptConfirmV1Bytes;
    if (v2) {
        length =
            kClcAcceptConfirmV2MinBytes + (withFce ? kClcFirstContactExtBytes : 0) + (withGids ? 4 + 16 * gidCount : 0);
    }

    std::vector<uint8_t> bytes(length, 0);
    ByteWriter out(bytes);
    ClcHeader header;
    header.eyecatcher = Eyecatcher::smcr;
    header.type = msg.type == ClcType::confirm ? ClcType::confirm : ClcType::accept;
    header.lengthBytes = static_cast<uint16_t>(length);
    header.version = msg.version;
    header.typeV2 = msg.firstContact ? kFirstContactBit : 0;
    header.typeV1 = static_cast<uint8_t>(SmcType::r);
    writeClcHeader(out, header);
    out.bytes(msg.peerId);
    out.bytes(msg.gid);
    out.bytes(msg.mac);
    out.u24(msg.qpn);
    out.u32(msg.rmbRkey);
    out.u8(msg.rmbeIndex);
    out.u32(msg.rmbeAlertToken);
    out.u8(static_cast<uint8_t>(((msg.rmbeSizeCode & 0x0F) << 4) | (static_cast<uint8_t>(msg.qpMtu) & 0x0F)));
    out.u8(msg.initCredits);
    out.u64(msg.rmbVaddr);
    out.zeros(1);
    out.u24(msg.initialPsn);
    if (v2) {
        out.bytes(msg.eid);
        out.zeros(8);
        if (withFce) {
            const ClcFirstContactExt& fce = *msg.firstContactExt;
            out.u8(fce.v2Direct ? 0x80 : 0x00);
            out.u8(static_cast<uint8_t>(((fce.osType & 0x0F) << 4) | (fce.release & 0x0F)));
            out.zeros(2);
            out.bytes(fce.hostname);
            out.u8(fce.maxConns);
            out.u8(fce.maxLinks);
            out.u16(fce.featureMask);
            out.bytes(fce.vendorOptions);
            out.zeros(8);
        }
        if (withGids) {
            out.u8(static_cast<uint8_t>(gidCount));
            out.zeros(3);
            for (size_t i = 0; i < gidCount; ++i) out.bytes((*msg.gidList)[i]);
        }
    }
    writeClcTrailer(out, Eyecatcher::smcr);
    return bytes;
}

}  // namespace smcr::wire
