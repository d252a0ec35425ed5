// CLC Proposal, smc-protocol.md 1.3. The message is a fixed 40-byte base
// followed by areas located through offset fields: the SMC-D/v2 area at 40,
// the IP prefix area at 40 + ip_area_offset, the v2 extension at
// 52 + v2_ext_offset and the SMC-D v2 extension at v2ext + 8 + its offset.
// Which areas exist follows from the header (version, typev1, typev2), the
// same rule for the decoder and the encoder.
#include <algorithm>
#include <string>

#include "clc_frame.h"

namespace smcr::wire {

namespace {

constexpr size_t kBaseBytes = 40;
constexpr size_t kSmcdAreaBytes = 40;
constexpr size_t kIpPrefixFixedBytes = 8;
constexpr size_t kIpv6PrefixBytes = 17;
constexpr size_t kV2ExtFixedBytes = 40;
constexpr size_t kEidBytes = 32;
constexpr size_t kSmcdV2ExtFixedBytes = 48;
constexpr size_t kIsmGidChidBytes = 10;
constexpr size_t kV2ExtAnchor = 52;  // v2_ext_offset counts from here

bool offersD(SmcType type) {
    return type == SmcType::d || type == SmcType::both;
}

// Presence rules shared by decode and encode.
bool hasSmcdArea(uint8_t version, uint16_t ipAreaOffset) {
    return version >= 2 || ipAreaOffset >= kSmcdAreaBytes;
}
bool hasIpPrefix(SmcType typeV1) {
    return typeV1 != SmcType::none;
}
bool hasV2Ext(uint8_t version, SmcType typeV2) {
    return version >= 2 && typeV2 != SmcType::none;
}
bool hasSmcdV2Ext(uint8_t version, SmcType typeV2) {
    return version >= 2 && offersD(typeV2);
}

// The decoder's areas, in message order. Each reads at its offset field,
// fails `in` on an offset that points back into an earlier area, and
// returns where it ended.
size_t readSmcdArea(ByteReader& in, ClcProposal& msg) {
    ClcProposalSmcdArea area;
    area.ismGid = in.u64("ism_gid");
    area.ismChid = in.u16("ism_chid");
    area.v2ExtOffset = in.u16("v2_ext_offset");
    area.vendorOui = in.array<3>("vendor_oui");
    area.vendorOptions = in.array<5>("vendor_options");
    in.skip("smcd_area.reserved", 20);
    msg.smcdArea = area;
    return kBaseBytes + kSmcdAreaBytes;
}

size_t readIpPrefix(ByteReader& in, ClcProposal& msg, size_t areaEnd, size_t messageBytes) {
    const size_t start = kBaseBytes + msg.ipAreaOffset;
    if (start < areaEnd) in.fail("ip_area_offset", std::to_string(msg.ipAreaOffset) + " points into the SMC-D/v2 area");
    in.seek("ip_area_offset", start);
    ClcProposalIpPrefix prefix;
    prefix.ipv4Subnet = in.u32("ipv4_subnet");
    prefix.ipv4PrefixLength = in.u8("ipv4_prefix_length");
    in.skip("ip_prefix.reserved", 2);
    const uint8_t count = in.u8("ipv6_prefix_count");
    if (prefix.ipv4PrefixLength > 32) in.fail("ipv4_prefix_length", std::to_string(prefix.ipv4PrefixLength) + " > 32");
    if (count > kClcMaxIpv6Prefixes) {
        in.fail("ipv6_prefix_count", std::to_string(count) + " > " + std::to_string(kClcMaxIpv6Prefixes));
    }
    for (size_t i = 0; in.ok() && i < count; ++i) {
        Ipv6Prefix p;
        p.prefix = in.array<16>("ipv6_prefix");
        p.prefixLength = in.u8("ipv6_prefix_length");
        if (p.prefixLength > 128) in.fail("ipv6_prefix_length", std::to_string(p.prefixLength) + " > 128");
        prefix.ipv6Prefixes.push_back(p);
    }
    msg.ipPrefix = prefix;
    const size_t end = in.offset();
    // The kernel requires the exact v1 length: 40 + offset + 8 + 17n + 4.
    if (in.ok() && msg.version == 1 && in.remaining() != 0) {
        in.fail("length", std::to_string(messageBytes) + " bytes, a v1 proposal with these areas has " +
                              std::to_string(end + kClcTrailerBytes));
    }
    return end;
}

void readSmcdV2Ext(ByteReader& in, ClcProposal& msg, size_t v2Start, size_t ueidsEnd, uint8_t ismGidCount) {
    const size_t start = v2Start + 8 + msg.v2Ext->smcdV2ExtOffset;
    if (start < ueidsEnd) {
        in.fail("v2_ext.smcd_v2_ext_offset",
                std::to_string(msg.v2Ext->smcdV2ExtOffset) + " points into the v2 extension");
    }
    in.seek("v2_ext.smcd_v2_ext_offset", start);
    ClcProposalSmcdV2Ext dext;
    dext.seid = in.array<kEidBytes>("smcd_v2_ext.seid");
    in.skip("smcd_v2_ext.reserved", 16);
    if (ismGidCount > kClcMaxIsmV2Gids) {
        in.fail("v2_ext.ism_gid_count", std::to_string(ismGidCount) + " > " + std::to_string(kClcMaxIsmV2Gids));
    }
    for (size_t i = 0; in.ok() && i < ismGidCount; ++i) {
        IsmGidChid entry;
        entry.gid = in.u64("smcd_v2_ext.ism_gid");
        entry.chid = in.u16("smcd_v2_ext.ism_chid");
        dext.ismGids.push_back(entry);
    }
    msg.smcdV2Ext = dext;
}

void readV2Ext(ByteReader& in, ClcProposal& msg, size_t areaEnd) {
    const size_t start = kV2ExtAnchor + msg.smcdArea->v2ExtOffset;
    if (start < areaEnd) {
        in.fail("v2_ext_offset", std::to_string(msg.smcdArea->v2ExtOffset) + " points into an earlier area");
    }
    in.seek("v2_ext_offset", start);
    ClcProposalV2Ext ext;
    const uint8_t ueidCount = in.u8("v2_ext.eid_count");
    const uint8_t ismGidCount = in.u8("v2_ext.ism_gid_count");
    in.skip("v2_ext.reserved", 1);
    const uint8_t flags = in.u8("v2_ext.release");
    ext.release = static_cast<uint8_t>(flags >> 4);
    ext.seidIndicated = (flags & 0x01) != 0;
    in.skip("v2_ext.reserved", 2);
    ext.smcdV2ExtOffset = in.u16("v2_ext.smcd_v2_ext_offset");
    ext.roceV2Gid = in.array<16>("v2_ext.roce_v2_gid");
    ext.maxConns = in.u8("v2_ext.max_conns");
    ext.maxLinks = in.u8("v2_ext.max_links");
    ext.featureMask = in.u16("v2_ext.feature_mask");
    in.skip("v2_ext.reserved", 12);
    if (ueidCount > kClcMaxUeids) {
        in.fail("v2_ext.eid_count", std::to_string(ueidCount) + " > " + std::to_string(kClcMaxUeids));
    }
    for (size_t i = 0; in.ok() && i < ueidCount; ++i) ext.ueids.push_back(in.array<kEidBytes>("v2_ext.ueid"));
    const size_t ueidsEnd = in.offset();
    msg.v2Ext = ext;
    if (in.ok() && hasSmcdV2Ext(msg.version, msg.typeV2)) readSmcdV2Ext(in, msg, start, ueidsEnd, ismGidCount);
}

}  // namespace

Result<ClcProposal> decodeClcProposal(std::span<const uint8_t> bytes) {
    auto header = checkClcFrame(bytes, ClcType::proposal, "clc.proposal");
    if (!header) return fail(header.error());

    ClcProposal msg;
    msg.eyecatcher = header->eyecatcher;
    msg.version = header->version;
    msg.typeV1 = static_cast<SmcType>(header->typeV1);
    msg.typeV2 = static_cast<SmcType>(header->typeV2);

    // Areas may not reach into the trailer: read the body only.
    ByteReader in(bytes.first(bytes.size() - kClcTrailerBytes), "clc.proposal");
    in.seek("peer_id", kClcHeaderBytes);
    msg.peerId = in.array<8>("peer_id");
    msg.gid = in.array<16>("gid");
    msg.mac = in.array<6>("mac");
    msg.ipAreaOffset = in.u16("ip_area_offset");

    if (msg.version == 1 && msg.typeV1 == SmcType::none) {
        in.fail("typev1", "a v1 proposal must offer SMC-R or SMC-D");
    }
    if (msg.version >= 2 && msg.typeV1 == SmcType::none && msg.typeV2 == SmcType::none) {
        in.fail("typev2", "the proposal offers no SMC type");
    }

    size_t areaEnd = kBaseBytes;
    if (in.ok() && hasSmcdArea(msg.version, msg.ipAreaOffset)) areaEnd = readSmcdArea(in, msg);
    if (in.ok() && hasIpPrefix(msg.typeV1)) areaEnd = readIpPrefix(in, msg, areaEnd, bytes.size());
    if (in.ok() && hasV2Ext(msg.version, msg.typeV2)) readV2Ext(in, msg, areaEnd);

    if (!in.ok()) return in.takeError();
    return msg;
}

std::vector<uint8_t> encode(const ClcProposal& msg) {
    // Lay the areas out first: each starts at its offset field or right after
    // the previous area, whichever is later (so offsets below the minimum are raised).
    const ClcProposalSmcdArea smcdArea = msg.smcdArea.value_or(ClcProposalSmcdArea{});
    const ClcProposalIpPrefix ipPrefix = msg.ipPrefix.value_or(ClcProposalIpPrefix{});
    const ClcProposalV2Ext v2Ext = msg.v2Ext.value_or(ClcProposalV2Ext{});
    const ClcProposalSmcdV2Ext smcdV2Ext = msg.smcdV2Ext.value_or(ClcProposalSmcdV2Ext{});
    const size_t ipv6Count = std::min(ipPrefix.ipv6Prefixes.size(), kClcMaxIpv6Prefixes);
    const size_t ueidCount = std::min(v2Ext.ueids.size(), kClcMaxUeids);
    const size_t ismCount = std::min(smcdV2Ext.ismGids.size(), kClcMaxIsmV2Gids);

    const bool withSmcdArea = msg.smcdArea.has_value() || hasSmcdArea(msg.version, msg.ipAreaOffset);
    const bool withIpPrefix = hasIpPrefix(msg.typeV1);
    const bool withV2Ext = withSmcdArea && hasV2Ext(msg.version, msg.typeV2);
    const bool withSmcdV2Ext = withV2Ext && hasSmcdV2Ext(msg.version, msg.typeV2);

    size_t end = kBaseBytes + (withSmcdArea ? kSmcdAreaBytes : 0);
    uint16_t ipAreaOffset = msg.ipAreaOffset;
    size_t ipStart = 0;
    if (withIpPrefix) {
        ipStart = std::max<size_t>(kBaseBytes + msg.ipAreaOffset, end);
        ipAreaOffset = static_cast<uint16_t>(ipStart - kBaseBytes);
        end = ipStart + kIpPrefixFixedBytes + kIpv6PrefixBytes * ipv6Count;
    }
    uint16_t v2ExtOffset = smcdArea.v2ExtOffset;
    size_t v2Start = 0;
    uint16_t smcdV2ExtOffset = v2Ext.smcdV2ExtOffset;
    size_t dStart = 0;
    if (withV2Ext) {
        v2Start = std::max<size_t>(kV2ExtAnchor + smcdArea.v2ExtOffset, end);
        v2ExtOffset = static_cast<uint16_t>(v2Start - kV2ExtAnchor);
        end = v2Start + kV2ExtFixedBytes + kEidBytes * ueidCount;
        if (withSmcdV2Ext) {
            dStart = std::max<size_t>(v2Start + 8 + v2Ext.smcdV2ExtOffset, end);
            smcdV2ExtOffset = static_cast<uint16_t>(dStart - v2Start - 8);
            end = dStart + kSmcdV2ExtFixedBytes + kIsmGidChidBytes * ismCount;
        }
    }
    const size_t length = end + kClcTrailerBytes;

    std::vector<uint8_t> bytes(length, 0);
    ByteWriter out(bytes);
    ClcHeader header;
    header.eyecatcher = msg.eyecatcher;
    header.type = ClcType::proposal;
    header.lengthBytes = static_cast<uint16_t>(length);
    header.version = msg.version;
    header.typeV2 = static_cast<uint8_t>(msg.typeV2);
    header.typeV1 = static_cast<uint8_t>(msg.typeV1);
    writeClcHeader(out, header);
    out.bytes(msg.peerId);
    out.bytes(msg.gid);
    out.bytes(msg.mac);
    out.u16(ipAreaOffset);
    if (withSmcdArea) {
        out.u64(smcdArea.ismGid);
        out.u16(smcdArea.ismChid);
        out.u16(v2ExtOffset);
        out.bytes(smcdArea.vendorOui);
        out.bytes(smcdArea.vendorOptions);
    }
    if (withIpPrefix) {
        out.seek(ipStart);
        out.u32(ipPrefix.ipv4Subnet);
        out.u8(ipPrefix.ipv4PrefixLength);
        out.zeros(2);
        out.u8(static_cast<uint8_t>(ipv6Count));
        for (size_t i = 0; i < ipv6Count; ++i) {
            out.bytes(ipPrefix.ipv6Prefixes[i].prefix);
            out.u8(ipPrefix.ipv6Prefixes[i].prefixLength);
        }
    }
    if (withV2Ext) {
        out.seek(v2Start);
        out.u8(static_cast<uint8_t>(ueidCount));
        out.u8(static_cast<uint8_t>(withSmcdV2Ext ? ismCount : 0));
        out.zeros(1);
        out.u8(static_cast<uint8_t>(((v2Ext.release & 0x0F) << 4) | (v2Ext.seidIndicated ? 0x01 : 0x00)));
        out.zeros(2);
        out.u16(smcdV2ExtOffset);
        out.bytes(v2Ext.roceV2Gid);
        out.u8(v2Ext.maxConns);
        out.u8(v2Ext.maxLinks);
        out.u16(v2Ext.featureMask);
        out.zeros(12);
        for (size_t i = 0; i < ueidCount; ++i) out.bytes(v2Ext.ueids[i]);
        if (withSmcdV2Ext) {
            out.seek(dStart);
            out.bytes(smcdV2Ext.seid);
            out.zeros(16);
            for (size_t i = 0; i < ismCount; ++i) {
                out.u64(smcdV2Ext.ismGids[i].gid);
                out.u16(smcdV2Ext.ismGids[i].chid);
            }
        }
    }
    out.seek(end);
    writeClcTrailer(out, msg.eyecatcher);
    return bytes;
}

}  // namespace smcr::wire
