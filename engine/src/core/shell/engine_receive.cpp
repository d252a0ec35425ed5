// One receive path for every link of a group: the link the connections use
// (the primary), the link ADD_LINK added, and the retired link whose QP is
// in ERR (engine_retired_link.cpp). What differs between them is data
// (RxRules, rx_flow.h), not a second copy of the dispatcher: each message
// is refilled, decoded once and handed to its connection (onCdcLocked,
// engine_rx.cpp) or to the LLC handling below. Refill order and the RX
// backlog: engine_credits.cpp.
#include <algorithm>
#include <cstring>

#include <smcr/wire/cdc.h>

#include "core/link/rkey_table.h"
#include "core/shell/engine_impl.h"
#include "core/shell/wr_id.h"

namespace smcr::core {

void EngineImpl::onRecvCompletionLocked(const fabric::WorkCompletion& wc) {
    auto it = m_lgrByQpn.find(wc.qpNum);
    auto lgr = it == m_lgrByQpn.end() ? nullptr : it->second.lock();
    if (!lgr) return;
    if (Link* link = lgr->linkByQpn(wc.qpNum)) {
        if (wc.status != fabric::WcStatus::success) {
            // RETRY_EXC, flush: the link is lost (engine_links.cpp).
            linkLostLocked(lgr, *link);
            return;
        }
        receiveLocked(lgr, *link, lgr->isPrimary(*link) ? RxRules::primary() : RxRules::added(), wc);
        return;
    }
    // A lost link's: its flushed receives are ignored (the loss is handled),
    // a CDC it took in before it went down is not.
    Link* retired = lgr->retiredByQpn(wc.qpNum);
    if (retired != nullptr && wc.status == fabric::WcStatus::success) {
        receiveLocked(lgr, *retired, RxRules::retired(), wc);
    }
}

void EngineImpl::receiveLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link, const RxRules& rules,
                               const fabric::WorkCompletion& wc) {
    if (lgr->terminated) return;
    const uint32_t slot = wrValue(wc.wrId);
    if (wrKind(wc.wrId) != WrKind::recv || slot >= link.recvWr || !link.recvBuffers) return;
    uint8_t bytes[kWrMessageBytes] = {};
    std::memcpy(bytes, link.recvBuffers->data() + uint64_t{slot} * kWrBufferBytes, kWrMessageBytes);
    const bool isCdc = bytes[0] == wire::kCdcType;
    // The slow part of the kernel's rx tasklet is CDC handling (socket state,
    // wake-ups); LLC messages are only queued for the LLC worker, so the lab
    // knobs delay CDCs. A CDC waits behind any still queued in the group's
    // backlog (the primary's: a failover moves it to the survivor).
    const bool backlog = rules.labSlowPath && m_settings.get(SettingId::rxBacklog) != 0;
    const uint64_t delayUs = rules.labSlowPath ? m_settings.get(SettingId::rxRepostDelayUs) : 0;
    LinkRxFlow& order = lgr->primary().flow;
    const bool queued = isCdc && (backlog || delayUs > 0 || (rules.inGroupOrder && !order.backlog.empty()));
    const bool refillNow = rules.live && (!queued || backlog);
    if (refillNow && !refillRecvLocked(lgr, link, slot)) return;
    if (rules.live) link.core->onRxActivity(monotonicMs());
    if (wc.byteLen < kWrMessageBytes) {
        if (rules.malformedEndsGroup)
            terminateLinkGroupLocked(lgr, wire::DeleteLinkReason::protocolViolation, PeerNotice::deleteLink);
        return;
    }
    if (!isCdc) {
        if (rules.live) onLlcLocked(lgr, link, rules, bytes);  // a dead link's LLC: dropped (smc_llc_rx_handler)
        return;
    }
    if (rules.countRetired) ++m_stats.retiredLinkCdcs;
    // Decoded once, here; a wrong length byte drops it like the kernel
    // (its receive WQE goes back now if it was held for the delay).
    const std::optional<ReceivedCdc> cdc = decodeReceivedCdc(bytes);
    if (!cdc) {
        if (rules.live && !refillNow) (void)refillRecvLocked(lgr, link, slot);
        return;
    }
    if (queued) {
        RxPending p;
        p.dueNs = monotonicNs() + delayUs * 1000;
        if (!order.backlog.empty()) p.dueNs = std::max(p.dueNs, order.backlog.back().dueNs);
        p.qpn = link.qp->qpn();
        p.slot = refillNow || !rules.live ? RxPending::kRefilled : slot;  // a dead link's slot is never refilled
        // A dead link's RQ credits (byte 26) grant nothing on the survivor.
        p.cdc = rules.live ? *cdc : ReceivedCdc{cdc->info, 0};
        order.backlog.push_back(p);
        if (backlog) order.backlogMax = std::max(order.backlogMax, order.backlog.size());
        return;
    }
    const bool granted = rules.live && takeCdcCreditsLocked(link, cdc->credits);
    if (granted && !rules.serviceAfterEach) serviceSlotWaitersLocked(*lgr, link);
    onCdcLocked(*lgr, cdc->info);
    if (rules.serviceAfterEach && lgr->holds(&link)) serviceSlotWaitersLocked(*lgr, link);
}

void EngineImpl::onLlcLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link, const RxRules& rules,
                             const uint8_t* bytes) {
    auto msg = wire::decodeLlc(std::span<const uint8_t>(bytes, kWrMessageBytes));
    if (!msg) {
        if (rules.malformedEndsGroup) {
            LinkActions a = link.core->onUnknownLlc();
            terminateLinkGroupLocked(lgr, a.reason, PeerNotice::deleteLink);
        }
        return;
    }
    const uint64_t nowMs = monotonicMs();
    if (const auto* credits = std::get_if<wire::LlcAnnounceCredits>(&msg.value())) {
        onAnnounceCreditsLocked(lgr, link, *credits);  // serves the link's waiters itself
        return;
    }
    if (const auto* confirm = std::get_if<wire::LlcConfirmLink>(&msg.value())) {
        if (!lgr->isPrimary(link)) {
            // Over the link ADD_LINK is adding: the flow's last step.
            if (lgr->multi.flow) applyAddLinkLocked(*lgr, lgr->multi.flow->onConfirmLink(*confirm, nowMs));
        } else if (confirm->response) {
            lgr->confirmLinkRespSeen = true;
            startAddLinkLocked(lgr);  // server: a second link (engine_links.cpp)
        } else {
            lgr->confirmLinkSeen = true;
        }
    } else if (std::holds_alternative<wire::LlcTestLink>(msg.value())) {
        // The link's own keepalive, answered over it.
        LinkActions a = link.core->onLlc(msg.value(), nowMs);
        // Only a request has an answer; a failed post surfaces as a lost link.
        if (a.send && postLlcLocked(*lgr, link, wire::encodeLlc(*a.send)).ok()) ++m_stats.testLinksAnswered;
    } else if (!onMultiLinkLlcLocked(lgr, msg.value())) {  // ADD_LINK, DELETE_LINK, rkeys (engine_links.cpp)
        // Anything else concerns the group, whichever link carried it.
        LinkActions a = lgr->primary().core->onLlc(msg.value(), nowMs);
        if (a.addLinkRejected) ++m_stats.addLinkRejected;
        const bool answered = a.send && postLlcLocked(*lgr, wire::encodeLlc(*a.send)).ok();
        countPeerRkeyRequest(msg.value(), answered, m_stats);
        if (a.terminateLinkGroup || a.linkDown) terminateLinkGroupLocked(lgr, a.reason, PeerNotice::none);
    }
    // `link` may be gone by now (a DELETE_LINK dropped it): compared, not used.
    if (rules.serviceAfterEach && lgr->holds(&link)) serviceSlotWaitersLocked(*lgr, link);
}

}  // namespace smcr::core
