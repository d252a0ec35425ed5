// Analyser view of CLC messages; names follow the kernel's smc_clc.h fields.
#include <string>

#include <arpa/inet.h>

#include <smcr/wire/decline_reasons.h>

#include "describe_util.h"

namespace smcr::wire {

std::string formatPaddedText(const uint8_t* data, size_t size) {
    size_t end = size;
    while (end > 0 && (data[end - 1] == ' ' || data[end - 1] == '\0')) --end;
    for (size_t i = 0; i < end; ++i) {
        if (data[i] < 0x20 || data[i] > 0x7E) return hexBytes(data, size, '\0');
    }
    return "\"" + std::string(reinterpret_cast<const char*>(data), end) + "\"";
}

std::string formatIpv4(uint32_t address) {
    return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xFF) + "." +
           std::to_string((address >> 8) & 0xFF) + "." + std::to_string(address & 0xFF);
}

std::string formatIpv6(const uint8_t* address16) {
    char text[INET6_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET6, address16, text, sizeof(text)) == nullptr) return hexBytes(address16, 16, ':');
    return text;
}

namespace {

std::string eyecatcherText(Eyecatcher eyecatcher) {
    return eyecatcher == Eyecatcher::smcd ? "SMCD (0xe2d4c3c4)" : "SMCR (0xe2d4c3d9)";
}

std::string smcTypeText(SmcType type) {
    return std::to_string(static_cast<unsigned>(type)) + " (" + smcTypeName(type) + ")";
}

std::string variant(Eyecatcher eyecatcher) {
    return eyecatcher == Eyecatcher::smcd ? "SMC-D" : "SMC-R";
}

std::string title(const std::string& prefix, const char* typeName, unsigned version, size_t bytes) {
    return prefix + " CLC " + typeName + " (v" + std::to_string(version) + ", " + std::to_string(bytes) + " bytes)";
}

Description describeProposal(const ClcProposal& msg) {
    FieldList f;
    const size_t length = encode(msg).size();
    f.add("eyecatcher", eyecatcherText(msg.eyecatcher));
    f.add("type", "1 (Proposal)");
    f.add("length", length);
    f.add("version", msg.version);
    f.add("typev1", smcTypeText(msg.typeV1));
    f.add("typev2", smcTypeText(msg.typeV2));
    f.add("peer_id", hexBytes(msg.peerId.data(), msg.peerId.size(), ':'));
    f.add("gid", formatGid(msg.gid));
    f.add("mac", formatMac(msg.mac));
    f.add("iparea_offset", msg.ipAreaOffset);
    if (msg.smcdArea) {
        const ClcProposalSmcdArea& a = *msg.smcdArea;
        f.group("smcd_area");
        f.enter();
        f.add("ism_gid", formatHex(a.ismGid, 16));
        f.add("ism_chid", formatHex(a.ismChid, 4));
        f.add("v2_ext_offset", a.v2ExtOffset);
        f.add("vendor_oui", hexBytes(a.vendorOui.data(), a.vendorOui.size(), ':'));
        f.add("vendor_options", hexBytes(a.vendorOptions.data(), a.vendorOptions.size(), ':'));
        f.leave();
    }
    if (msg.ipPrefix) {
        const ClcProposalIpPrefix& p = *msg.ipPrefix;
        f.group("ip_prefix");
        f.enter();
        f.add("outgoing_subnet", formatIpv4(p.ipv4Subnet));
        f.add("prefix_len", p.ipv4PrefixLength);
        f.add("ipv6_prefixes_cnt", p.ipv6Prefixes.size());
        for (size_t i = 0; i < p.ipv6Prefixes.size(); ++i) {
            f.add("ipv6_prefix[" + std::to_string(i) + "]",
                  formatIpv6(p.ipv6Prefixes[i].prefix.data()) + "/" + std::to_string(p.ipv6Prefixes[i].prefixLength));
        }
        f.leave();
    }
    if (msg.v2Ext) {
        const ClcProposalV2Ext& e = *msg.v2Ext;
        f.group("v2_ext");
        f.enter();
        f.add("eid_cnt", e.ueids.size());
        f.add("ism_gid_cnt", msg.smcdV2Ext ? msg.smcdV2Ext->ismGids.size() : 0);
        f.add("release", std::to_string(e.release) + (e.release == 0 ? " (v2.0)" : e.release == 1 ? " (v2.1)" : ""));
        f.flag("seid", e.seidIndicated);
        f.add("smcd_v2_ext_offset", e.smcdV2ExtOffset);
        f.add("roce_v2_gid", formatGid(e.roceV2Gid));
        f.add("max_conns", e.maxConns);
        f.add("max_links", e.maxLinks);
        f.add("feature_mask", formatHex(e.featureMask, 4));
        for (size_t i = 0; i < e.ueids.size(); ++i) {
            f.add("ueid[" + std::to_string(i) + "]", formatPaddedText(e.ueids[i].data(), e.ueids[i].size()));
        }
        f.leave();
    }
    if (msg.smcdV2Ext) {
        const ClcProposalSmcdV2Ext& d = *msg.smcdV2Ext;
        f.group("smcd_v2_ext");
        f.enter();
        f.add("seid", formatPaddedText(d.seid.data(), d.seid.size()));
        for (size_t i = 0; i < d.ismGids.size(); ++i) {
            f.add("ism_gid[" + std::to_string(i) + "]",
                  formatHex(d.ismGids[i].gid, 16) + " chid " + formatHex(d.ismGids[i].chid, 4));
        }
        f.leave();
    }
    return {title(variant(msg.eyecatcher), "Proposal", msg.version, length), f.take()};
}

Description describeAcceptConfirm(const ClcAcceptConfirm& msg) {
    FieldList f;
    const size_t length = encode(msg).size();
    const bool confirm = msg.type == ClcType::confirm;
    f.add("eyecatcher", eyecatcherText(Eyecatcher::smcr));
    f.add("type", confirm ? "3 (Confirm)" : "2 (Accept)");
    f.add("length", length);
    f.add("version", msg.version);
    f.flag("first_contact", msg.firstContact);
    f.add("peer_id", hexBytes(msg.peerId.data(), msg.peerId.size(), ':'));
    f.add("gid", formatGid(msg.gid));
    f.add("mac", formatMac(msg.mac));
    f.add("qpn", formatHex(msg.qpn, 6) + " (" + std::to_string(msg.qpn) + ")");
    f.add("rmb_rkey", formatHex(msg.rmbRkey, 8));
    f.add("rmbe_idx", msg.rmbeIndex);
    f.add("rmbe_alert_token", formatHex(msg.rmbeAlertToken, 8));
    f.add("rmbe_size", formatRmbeSize(msg.rmbeSizeCode));
    f.add("qp_mtu", formatIbMtu(msg.qpMtu));
    f.add("init_credits", std::to_string(msg.initCredits) + (msg.initCredits == 0 ? "" : " (experimental)"));
    f.add("rmb_dma_addr", formatHex(msg.rmbVaddr, 16));
    f.add("psn", formatHex(msg.initialPsn, 6) + " (" + std::to_string(msg.initialPsn) + ")");
    if (msg.version >= 2) {
        f.add("eid", formatPaddedText(msg.eid.data(), msg.eid.size()));
        if (msg.firstContactExt) {
            const ClcFirstContactExt& e = *msg.firstContactExt;
            static const char* kOs[] = {"unknown", "z/OS", "Linux", "AIX"};
            f.group("fce");
            f.enter();
            f.flag("v2_direct", e.v2Direct);
            f.add("os_type", std::to_string(e.osType) + " (" + (e.osType < 4 ? kOs[e.osType] : "unknown") + ")");
            f.add("release", e.release);
            f.add("hostname", formatPaddedText(e.hostname.data(), e.hostname.size()));
            f.add("max_conns", e.maxConns);
            f.add("max_links", e.maxLinks);
            f.add("feature_mask", formatHex(e.featureMask, 4));
            f.add("vendor_options", hexBytes(e.vendorOptions.data(), e.vendorOptions.size(), ':'));
            f.leave();
        }
        if (msg.gidList && msg.firstContactExt) {
            f.group("gid_list");
            f.enter();
            f.add("gid_cnt", msg.gidList->size());
            for (size_t i = 0; i < msg.gidList->size(); ++i) {
                f.add("gid[" + std::to_string(i) + "]", formatGid((*msg.gidList)[i]));
            }
            f.leave();
        }
    }
    return {title("SMC-R", confirm ? "Confirm" : "Accept", msg.version, length), f.take()};
}

Description describeDecline(const ClcDecline& msg) {
    FieldList f;
    const size_t length = encode(msg).size();
    f.add("eyecatcher", eyecatcherText(msg.eyecatcher));
    f.add("type", "4 (Decline)");
    f.add("length", length);
    f.add("version", msg.version);
    f.flag("out_of_sync", msg.outOfSync);
    f.add("peer_id", hexBytes(msg.peerId.data(), msg.peerId.size(), ':'));
    f.add("peer_diagnosis", formatDeclineReason(msg.reasonCode));
    if (const char* text = declineReasonDescription(msg.reasonCode)) {
        f.enter();
        f.add("meaning", text);
        f.leave();
    }
    f.add("os_type", msg.osType);
    if (length == kClcDeclineV2Bytes) {
        for (size_t i = 0; i < msg.additionalReasons.size(); ++i) {
            f.add("peer_diagnosis_ext[" + std::to_string(i) + "]", formatDeclineReason(msg.additionalReasons[i]));
        }
    }
    return {title(variant(msg.eyecatcher), "Decline", msg.version, length), f.take()};
}

}  // namespace

Description describe(const ClcMessage& msg) {
    if (const auto* p = std::get_if<ClcProposal>(&msg)) return describeProposal(*p);
    if (const auto* ac = std::get_if<ClcAcceptConfirm>(&msg)) return describeAcceptConfirm(*ac);
    return describeDecline(std::get<ClcDecline>(msg));
}

}  // namespace smcr::wire
