// Analyser view of LLC and CDC messages; names follow the kernel's
// smc_llc.c / smc_cdc.h fields.
#include <string>
#include <type_traits>

#include "describe_util.h"

namespace smcr::wire {

namespace {

std::string llcTitle(uint8_t wireType, bool response, size_t lengthBytes) {
    std::string text = "SMC-R LLC ";
    const char* name = llcTypeName(wireType);
    text += name != nullptr ? name : "?";
    text += response ? " response" : " request";
    if (wireType == static_cast<uint8_t>(LlcType::announceCredits)) text += " [experimental]";
    text += " (" + formatHex(wireType, 2) + ", " + std::to_string(lengthBytes) + " bytes)";
    return text;
}

void linkRkey(FieldList& f, const std::string& name, const LinkRkey& entry, const char* idName) {
    f.group(name);
    f.enter();
    f.add(idName, entry.linkId);
    f.add("rkey", formatHex(entry.rkey, 8));
    f.add("vaddr", formatHex(entry.vaddr, 16));
    f.leave();
}

void fields(FieldList& f, const LlcConfirmLink& m) {
    f.flag("no_rmbe_eyecatcher", m.noRmbeEyecatcher);
    f.add("sender_mac", formatMac(m.senderMac));
    f.add("sender_gid", formatGid(m.senderGid));
    f.add("sender_qp_num", formatHex(m.qpn, 6) + " (" + std::to_string(m.qpn) + ")");
    f.add("link_num", m.linkNumber);
    f.add("link_uid", formatHex(m.linkUid, 8));
    f.add("max_links", m.maxLinks);
    f.add("max_conns", m.maxConns);
}

void fields(FieldList& f, const LlcAddLink& m) {
    f.flag("rejected", m.rejected);
    f.add("reject_reason",
          std::to_string(m.rejectReason) + (m.rejectReason == kAddLinkRejectNoAltPath ? " (no alternate path)" : ""));
    f.add("sender_mac", formatMac(m.senderMac));
    f.add("sender_gid", formatGid(m.senderGid));
    f.add("sender_qp_num", formatHex(m.qpn, 6) + " (" + std::to_string(m.qpn) + ")");
    f.add("link_num", m.linkNumber);
    f.add("qp_mtu", formatIbMtu(m.qpMtu));
    f.add("initial_psn", formatHex(m.initialPsn, 6) + " (" + std::to_string(m.initialPsn) + ")");
    f.add("init_credits", std::to_string(m.initCredits) + (m.initCredits == 0 ? "" : " (experimental)"));
    if (!m.v2Ext) return;
    f.group("v2_ext");
    f.enter();
    f.flag("v2_direct", m.v2Ext->direct);
    f.add("client_target_gid", formatGid(m.v2Ext->clientTargetGid));
    f.add("num_rkeys", m.v2Ext->rkeys.size());
    for (size_t i = 0; i < m.v2Ext->rkeys.size(); ++i) {
        f.group("rt[" + std::to_string(i) + "]");
        f.enter();
        f.add("rmb_key", formatHex(m.v2Ext->rkeys[i].rkeyCurrent, 8));
        f.add("rmb_key_new", formatHex(m.v2Ext->rkeys[i].rkeyNew, 8));
        f.add("rmb_vaddr_new", formatHex(m.v2Ext->rkeys[i].vaddrNew, 16));
        f.leave();
    }
    f.leave();
}

void fields(FieldList& f, const LlcAddLinkCont& m) {
    f.add("link_num", m.linkNumber);
    f.add("num_rkeys", m.numRkeys);
    for (size_t i = 0; i < m.rkeys.size(); ++i) {
        f.group("rt[" + std::to_string(i) + "]");
        f.enter();
        f.add("rmb_key", formatHex(m.rkeys[i].rkeyCurrent, 8));
        f.add("rmb_key_new", formatHex(m.rkeys[i].rkeyNew, 8));
        f.add("rmb_vaddr_new", formatHex(m.rkeys[i].vaddrNew, 16));
        f.leave();
    }
}

void fields(FieldList& f, const LlcDeleteLink& m) {
    f.flag("all_links", m.allLinks);
    f.flag("orderly", m.orderly);
    f.add("link_num", m.linkNumber);
    const char* name = deleteLinkReasonName(m.reason);
    f.add("reason", std::string(name != nullptr ? name : "unknown") + " (" + formatHex(m.reason, 8) + ")");
}

void fields(FieldList& f, const LlcConfirmRkey& m) {
    f.flag("negative", m.negative);
    f.flag("retry", m.retry);
    for (size_t i = 0; i < m.entries.size(); ++i) {
        linkRkey(f, "rtoken[" + std::to_string(i) + "]", m.entries[i], i == 0 ? "num_rkeys" : "link_id");
    }
}

void fields(FieldList& f, const LlcConfirmRkeyCont& m) {
    f.flag("negative", m.negative);
    f.flag("retry", m.retry);
    f.add("num_rkeys", m.numRkeys);
    for (size_t i = 0; i < m.entries.size(); ++i)
        linkRkey(f, "rtoken[" + std::to_string(i) + "]", m.entries[i], "link_id");
}

void fields(FieldList& f, const LlcTestLink& m) {
    f.add("user_data", hexBytes(m.userData.data(), m.userData.size(), ':'));
}

void fields(FieldList& f, const LlcDeleteRkey& m) {
    f.add("num_rkeys", m.numRkeys);
    f.add("err_mask", formatHex(m.errorMask, 2));
    for (size_t i = 0; i < m.rkeys.size() && i < m.numRkeys; ++i) {
        f.add("rkey[" + std::to_string(i) + "]", formatHex(m.rkeys[i], 8));
    }
}

void fields(FieldList& f, const LlcAnnounceCredits& m) {
    f.add("credits", m.credits);
}

}  // namespace

Description describe(const LlcMessage& msg) {
    return describe(msg, LlcVersion::v1);
}

Description describe(const LlcMessage& msg, LlcVersion version) {
    // The type and length as they go on the wire in this form.
    const std::vector<uint8_t> bytes = encodeLlc(msg, version);
    const uint8_t wireType = bytes[0];
    return std::visit(
        [&](auto m) {
            // The v1 form has no ADD_LINK extension: show only what is sent.
            if constexpr (std::is_same_v<decltype(m), LlcAddLink>) {
                if (version == LlcVersion::v1) m.v2Ext.reset();
            }
            FieldList f;
            const char* name = llcTypeName(wireType);
            f.add("type", formatHex(wireType, 2) + " (" + (name != nullptr ? name : "?") + ")");
            f.add("length", bytes.size());
            f.flag("response", m.response);
            fields(f, m);
            return Description{llcTitle(wireType, m.response, bytes.size()), f.take()};
        },
        msg);
}

Description describe(const CdcMessage& msg) {
    FieldList f;
    auto cursor = [&f](const char* name, const Cursor& c) {
        f.group(name);
        f.enter();
        f.add("wrap", c.wrap);
        f.add("count", c.count);
        f.leave();
    };
    f.add("type", "0xfe (CDC)");
    f.add("length", kCdcMessageBytes);
    f.add("seqno", msg.seqno);
    f.add("token", formatHex(msg.alertToken, 8));
    cursor("prod", msg.producer);
    cursor("cons", msg.consumer);
    const CdcProducerFlags& p = msg.prodFlags;
    f.group("prod_flags");
    f.enter();
    f.flag("write_blocked", p.writeBlocked);
    f.flag("urg_data_pending", p.urgentPending);
    f.flag("urg_data_present", p.urgentPresent);
    f.flag("cons_curs_upd_req", p.consumerUpdateRequested);
    f.flag("failover_validation", p.failoverValidation);
    f.leave();
    const CdcConnStateFlags& c = msg.connFlags;
    f.group("conn_state_flags");
    f.enter();
    f.flag("peer_done_writing", c.peerDoneWriting);
    f.flag("peer_conn_closed", c.peerConnClosed);
    f.flag("peer_conn_abort", c.peerAbnormalClose);
    f.leave();
    f.add("credits", std::to_string(msg.credits) + (msg.credits == 0 ? "" : " (experimental)"));
    return {"SMC-R CDC (0xfe, 44 bytes)", f.take()};
}

}  // namespace smcr::wire
