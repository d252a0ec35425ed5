// The shell around LinkCredits (credits.h) and the RX backlog: receive
// refill order, credits in and out of CDCs and ANNOUNCE_CREDITS, the
// receive-side lab knobs, and the RNR counters of the fabric.
//
// Receive order (seed 004): the kernel's rx tasklet handles a message and
// then refills its receive WQE, so a slow receive path leaves the queue dry
// and the peer's SENDs meet RNR NAKs. lab.rx_repost_delay_us models that
// slow path (a per-message cost paid before the refill). lab.rx_backlog
// refills first and hands CDC processing to a backlog drained after the
// completion batch (the cost is still paid there, after the refill).
#include <smcr/fabric_sim.h>
#include <smcr/wire/cdc.h>

#include <cstring>

#include "engine_impl.h"
#include "wr_id.h"

namespace smcr::core {

namespace {

// The lab's slow receive path: burns the time like a busy rx tasklet would.
void spinForUs(uint64_t us) {
    if (us == 0) return;
    const uint64_t until = monotonicNs() + us * 1000;
    while (monotonicNs() < until) {
    }
}

}  // namespace

uint8_t EngineImpl::creditOfferLocked(const LinkGroup& lgr) const {
    if (m_settings.get(SettingId::rqCredits) == 0) return 0;
    return LinkCredits::offerFor(lgr.recvWr);
}

void EngineImpl::enableCreditsLocked(LinkGroup& lgr, uint8_t peerInitCredits) {
    lgr.flow.credits.enable(lgr.recvWr, peerInitCredits);
}

bool EngineImpl::creditsBlockedLocked(const LinkGroup& lgr) const {
    return !lgr.flow.credits.canSend(CreditSendKind::message);
}

void EngineImpl::attachCdcCreditsLocked(LinkRxFlow& flow, wire::CdcMessage& msg) {
    LinkCredits& credits = flow.credits;
    if (!credits.enabled()) return;
    (void)credits.take(CreditSendKind::message);  // flushLocked checked the link's credits
    msg.credits = credits.takeForCdc();
    flow.announcedByCdc += msg.credits;
}

bool EngineImpl::refillRecvLocked(const std::shared_ptr<LinkGroup>& lgr, uint32_t slot) {
    if (lgr->terminated) return false;
    if (Status s = postRecvLocked(*lgr, slot); !s) {
        // The link cannot take work. Its QP goes to ERR: the flushed WRs come
        // back as error completions behind everything that already completed
        // (so no received CDC is skipped), and those fail the link over to a
        // second link or end the group (engine_rx.cpp). This message arrived
        // intact and is still handled.
        if (lgr->qp->setError()) return true;
        if (!primaryLinkLostLocked(lgr, wire::kDeleteLinkLostPath)) {
            terminateLinkGroupLocked(lgr, wire::kDeleteLinkLostPath, false);
        }
        return false;
    }
    lgr->flow.credits.onRecvReposted();
    return true;
}

void EngineImpl::receiveMessageLocked(const std::shared_ptr<LinkGroup>& lgr, uint32_t slot, uint32_t byteLen,
                                      const uint8_t* bytes) {
    const bool backlog = m_settings.get(SettingId::rxBacklog) != 0;
    const uint64_t delayUs = m_settings.get(SettingId::rxRepostDelayUs);
    // The slow part of the kernel's rx tasklet is CDC handling (socket state,
    // wake-ups); LLC messages are only queued for the LLC worker, so the lab
    // cost applies to CDCs.
    const bool isCdc = bytes[0] == wire::kCdcType;
    const bool refillFirst = backlog || delayUs == 0 || !isCdc;
    if (refillFirst && !refillRecvLocked(lgr, slot)) return;
    lgr->link->onRxActivity(monotonicMs());
    if (byteLen < kWrMessageBytes) {
        terminateLinkGroupLocked(lgr, wire::kDeleteLinkProtocolViolation, true);
        return;
    }
    if (isCdc) {
        takeCdcCreditsLocked(*lgr, bytes);
        if (backlog) {
            std::array<uint8_t, kWrMessageBytes> copy{};
            std::memcpy(copy.data(), bytes, kWrMessageBytes);
            lgr->flow.backlog.push_back(copy);
            lgr->flow.backlogMax = std::max(lgr->flow.backlogMax, lgr->flow.backlog.size());
        } else {
            onCdcLocked(*lgr, bytes);
        }
    } else {
        onLlcLocked(lgr, bytes);
    }
    if (!refillFirst) {
        spinForUs(delayUs);
        (void)refillRecvLocked(lgr, slot);  // a failure terminated the group
    }
}

void EngineImpl::takeCdcCreditsLocked(LinkGroup& lgr, const uint8_t* bytes) {
    auto msg = wire::decodeCdc(std::span<const uint8_t>(bytes, kWrMessageBytes));
    if (!msg || msg.value().credits == 0) return;
    if (!lgr.flow.credits.enabled()) {
        // Byte 26 is reserved without the extension: count, never act on it.
        ++m_stats.cdcReservedNonzero;
        return;
    }
    lgr.flow.credits.onPeerCredits(msg.value().credits);
    lgr.flow.creditsReceived += msg.value().credits;
    serviceSlotWaitersLocked(lgr);
}

void EngineImpl::onAnnounceCreditsLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcAnnounceCredits& msg) {
    if (!lgr->flow.credits.enabled()) {
        // Not negotiated: 0x0A is an unknown LLC type here, as in the kernel.
        terminateLinkGroupLocked(lgr, wire::kDeleteLinkProtocolViolation, true);
        return;
    }
    lgr->flow.credits.onPeerCredits(msg.credits);
    lgr->flow.creditsReceived += msg.credits;
    serviceSlotWaitersLocked(*lgr);
}

void EngineImpl::announceCreditsLocked(LinkGroup& lgr) {
    // Only when no CDC took the owed credits along (callers run after the
    // completion batch and its pushes) and a send slot is free; a slot that
    // frees later brings us back here.
    if (lgr.terminated || !lgr.flow.credits.announceDue() || lgr.sendSlotsUsed >= lgr.sendSlots) return;
    wire::LlcAnnounceCredits msg;
    msg.response = true;  // the RFC patch sends it as a response: nobody answers it
    msg.credits = lgr.flow.credits.takeForAnnounce();
    if (msg.credits == 0) return;
    lgr.flow.announcedByLlc += msg.credits;
    ++lgr.flow.announceLlcs;
    (void)postLlcLocked(lgr, wire::encode(msg), CreditSendKind::announce);  // failures surface as a lost link
}

void EngineImpl::afterRecvBatchLocked() {
    const uint64_t delayUs = m_settings.get(SettingId::rxRepostDelayUs);
    std::vector<std::shared_ptr<LinkGroup>> groups = m_linkGroups;
    for (auto& lgr : groups) {
        while (!lgr->flow.backlog.empty() && !lgr->terminated) {
            const std::array<uint8_t, kWrMessageBytes> bytes = lgr->flow.backlog.front();
            lgr->flow.backlog.pop_front();
            spinForUs(delayUs);
            onCdcLocked(*lgr, bytes.data());
        }
        lgr->flow.backlog.clear();
        announceCreditsLocked(*lgr);
    }
}

void EngineImpl::addFlowStatsLocked(EngineStats& out) {
    if (fabric::sim::SimControl* sim = m_device ? fabric::sim::simControl(*m_device) : nullptr) {
        const fabric::sim::SimCounters c = sim->counters();
        out.rnrNaksSent = c.rnrNaksSent;
        out.rnrNaksReceived = c.rnrNaksReceived;
        // rnr_retry 7 retries forever: every NAK taken is followed by a retry.
        out.rnrRetries = c.rnrNaksReceived;
    }
    auto add = [&out](const LinkRxFlow& f) {
        if (f.credits.enabled()) ++out.creditLinks;
        out.creditsReceived += f.creditsReceived;
        out.creditsAnnouncedCdc += f.announcedByCdc;
        out.creditsAnnouncedLlc += f.announcedByLlc;
        out.creditAnnounceLlcs += f.announceLlcs;
        out.creditsLowEvents += f.credits.lowEvents();
        out.rxBacklogMax = std::max<uint64_t>(out.rxBacklogMax, f.backlogMax);
    };
    for (const auto& lgr : m_linkGroups) {
        add(lgr->flow);
        if (lgr->multi.standby) add(lgr->multi.standby->flow);  // credits of an added link (ADD_LINK byte 36)
    }
}

}  // namespace smcr::core
