#include "core/link/add_link_flow.h"

#include <algorithm>

namespace smcr::core {

namespace {
constexpr size_t kRkeysPerCont = 2;  // SMC_LLC_RKEYS_PER_CONT_MSG
constexpr uint8_t kMaxLinksAnnounced = 2;
}  // namespace

const char* addLinkStateName(AddLinkState state) {
    switch (state) {
        case AddLinkState::idle:
            return "idle";
        case AddLinkState::awaitAddLinkResp:
            return "awaitAddLinkResp";
        case AddLinkState::rkeyExchange:
            return "rkeyExchange";
        case AddLinkState::awaitConfirmLink:
            return "awaitConfirmLink";
        case AddLinkState::awaitConfirmLinkResp:
            return "awaitConfirmLinkResp";
        case AddLinkState::active:
            return "active";
        case AddLinkState::failed:
            return "failed";
    }
    return "?";
}

AddLinkActions AddLinkFlow::fail() {
    AddLinkActions out;
    out.abandon = true;
    m_state = AddLinkState::failed;
    return out;
}

wire::LlcAddLink AddLinkFlow::addLinkMessage(bool response) const {
    wire::LlcAddLink m;
    m.response = response;
    m.senderMac = m_local.mac;
    m.senderGid = m_local.gid;
    m.qpn = m_local.qpn;
    m.linkNumber = m_newLinkId;
    m.qpMtu = m_local.mtu;
    m.initialPsn = m_local.psn;
    m.initCredits = m_creditOffer;
    return m;
}

wire::LlcConfirmLink AddLinkFlow::confirmLinkMessage(bool response) const {
    wire::LlcConfirmLink m;
    m.response = response;
    m.noRmbeEyecatcher = true;
    m.senderMac = m_local.mac;
    m.senderGid = m_local.gid;
    m.qpn = m_local.qpn;
    m.linkNumber = m_newLinkId;
    m.linkUid = m_linkUid;
    m.maxLinks = kMaxLinksAnnounced;
    return m;
}

wire::LlcAddLinkCont AddLinkFlow::nextCont() {
    wire::LlcAddLinkCont c;
    c.linkNumber = m_newLinkId;
    const size_t remaining = m_localRkeys.size() - m_sendNext;
    // The count includes the entries of this message (kernel smc_llc_add_link_cont).
    c.numRkeys = static_cast<uint8_t>(std::min<size_t>(remaining, 255));
    const size_t n = std::min(remaining, kRkeysPerCont);
    for (size_t i = 0; i < n; ++i) c.rkeys[i] = m_localRkeys[m_sendNext + i];
    m_sendNext += n;
    return c;
}

void AddLinkFlow::learn(const wire::LlcAddLinkCont& cont, AddLinkActions& out) {
    const size_t n = std::min<size_t>(cont.numRkeys, kRkeysPerCont);
    for (size_t i = 0; i < n; ++i) out.learnedRkeys.push_back(cont.rkeys[i]);
    m_recvRemaining = static_cast<uint32_t>(cont.numRkeys - n);
}

AddLinkActions AddLinkFlow::start(const LinkEndpoint& local, uint8_t newLinkId, uint32_t linkUid,
                                  std::vector<wire::RkeyPair> localRkeys, uint64_t nowMs) {
    AddLinkActions out;
    if (m_role != Side::server || m_state != AddLinkState::idle) return out;
    m_local = local;
    m_newLinkId = newLinkId;
    m_linkUid = linkUid;
    m_localRkeys = std::move(localRkeys);
    m_sendNext = 0;
    out.sendOnCurrent.push_back(addLinkMessage(false));
    m_state = AddLinkState::awaitAddLinkResp;
    m_deadlineMs = nowMs + m_llcWaitMs;
    return out;
}

AddLinkActions AddLinkFlow::onRequest(const wire::LlcAddLink& request, const LinkEndpoint& local, uint32_t linkUid,
                                      std::vector<wire::RkeyPair> localRkeys, uint64_t nowMs) {
    AddLinkActions out;
    if (m_role != Side::client || running() || request.response) return out;
    m_local = local;
    m_newLinkId = request.linkNumber;
    m_linkUid = linkUid;
    m_localRkeys = std::move(localRkeys);
    m_sendNext = 0;
    // Credits only when both ends offer (like CLC Accept/Confirm byte 51).
    if (request.initCredits == 0) m_creditOffer = 0;
    out.peerInitCredits = m_creditOffer > 0 ? request.initCredits : uint8_t{0};
    // Our QP must accept the server's traffic before it hears from us.
    out.bringUp = LinkEndpoint{request.senderMac, request.senderGid, request.qpn, request.initialPsn, request.qpMtu};
    out.sendOnCurrent.push_back(addLinkMessage(true));
    m_state = AddLinkState::rkeyExchange;
    m_deadlineMs = nowMs + m_llcWaitMs;
    return out;
}

AddLinkActions AddLinkFlow::onResponse(const wire::LlcAddLink& response, uint64_t nowMs) {
    AddLinkActions out;
    if (m_role != Side::server || m_state != AddLinkState::awaitAddLinkResp || !response.response) {
        return out;
    }
    if (response.rejected) {
        out = fail();
        out.rejectedByPeer = true;
        return out;
    }
    out.bringUp =
        LinkEndpoint{response.senderMac, response.senderGid, response.qpn, response.initialPsn, response.qpMtu};
    out.peerInitCredits = m_creditOffer > 0 ? response.initCredits : uint8_t{0};
    out.sendOnCurrent.push_back(nextCont());
    m_state = AddLinkState::rkeyExchange;
    m_deadlineMs = nowMs + m_llcWaitMs;
    return out;
}

AddLinkActions AddLinkFlow::onCont(const wire::LlcAddLinkCont& cont, uint64_t nowMs) {
    AddLinkActions out;
    if (m_state != AddLinkState::rkeyExchange) return out;
    if (cont.linkNumber != m_newLinkId) return fail();
    learn(cont, out);
    const auto sendLeft = [&] { return m_sendNext < m_localRkeys.size(); };
    if (m_role == Side::server) {
        // Server: send, then receive; done when neither side has rkeys left.
        if (sendLeft() || m_recvRemaining > 0) {
            out.sendOnCurrent.push_back(nextCont());
        } else {
            out.sendOnNew = confirmLinkMessage(false);
            m_state = AddLinkState::awaitConfirmLinkResp;
        }
    } else {
        // Client: receive, then send (an empty one too); then check.
        out.sendOnCurrent.push_back(nextCont());
        if (!sendLeft() && m_recvRemaining == 0) m_state = AddLinkState::awaitConfirmLink;
    }
    m_deadlineMs = nowMs + m_llcWaitMs;
    return out;
}

AddLinkActions AddLinkFlow::onConfirmLink(const wire::LlcConfirmLink& confirm, uint64_t nowMs) {
    AddLinkActions out;
    (void)nowMs;
    if (confirm.linkNumber != m_newLinkId) return out;
    if (m_role == Side::client && m_state == AddLinkState::awaitConfirmLink && !confirm.response) {
        out.sendOnNew = confirmLinkMessage(true);
        out.linkActive = true;
        m_state = AddLinkState::active;
    } else if (m_role == Side::server && m_state == AddLinkState::awaitConfirmLinkResp && confirm.response) {
        out.linkActive = true;
        m_state = AddLinkState::active;
    }
    return out;
}

AddLinkActions AddLinkFlow::poll(uint64_t nowMs) {
    if (running() && nowMs >= m_deadlineMs) return fail();
    return {};
}

}  // namespace smcr::core
