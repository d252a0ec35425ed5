// Completions: send completions return send slots and sndbuf space; receive
// completions carry CDC and LLC messages (smc-protocol.md sections 2-4),
// each decoded once; received data is copied out to the application here.
#include <algorithm>
#include <cstring>

#include <smcr/wire/cdc.h>

#include "core/shell/engine_impl.h"
#include "core/shell/wr_id.h"

namespace smcr::core {

std::optional<ReceivedCdc> decodeReceivedCdc(const uint8_t* bytes) {
    auto msg = wire::decodeCdc(std::span<const uint8_t>(bytes, kWrMessageBytes));
    if (!msg) return std::nullopt;
    return ReceivedCdc{msg.value(), msg.value().credits};
}

void EngineImpl::onSendCompletionLocked(const fabric::WorkCompletion& wc) {
    auto it = m_lgrByQpn.find(wc.qpNum);
    auto lgr = it == m_lgrByQpn.end() ? nullptr : it->second.lock();
    if (!lgr) return;                                    // a terminated group's flushed WRs
    if (lgr->retiredByQpn(wc.qpNum) != nullptr) return;  // a lost link's: ignored (engine_retired_link.cpp)
    Link* link = lgr->linkByQpn(wc.qpNum);
    if (link == nullptr) return;
    if (wc.status != fabric::WcStatus::success) {
        // RETRY_EXC (peer gone), RNR_RETRY_EXC, FLUSH: the link is lost;
        // with a second link the connections move over (engine_links.cpp).
        linkLostLocked(lgr, *link);
        return;
    }
    const WrKind kind = wrKind(wc.wrId);
    if (kind != WrKind::cdc && kind != WrKind::llc) return;
    link->onSendCompleted();  // a slot back, the link is alive (engine_watchdog.cpp)
    if (kind == WrKind::cdc) {
        auto c = lgr->conns.find(wrValue(wc.wrId));
        if (c != lgr->conns.end() && c->second->core) {
            std::shared_ptr<Connection> conn = c->second;
            // The last outstanding CDC's completion pushes autocorked data.
            if (conn->core->onCdcSendComplete()) pushLocked(*conn, PushOrigin::completion);
            maybeReleaseLocked(*conn);
        }
    }
    if (lgr->holds(link)) serviceSlotWaitersLocked(*lgr, *link);
}

void EngineImpl::serviceSlotWaitersLocked(LinkGroup& lgr, Link& link) {
    // Every round re-checks that the link is still the group's: a flush may
    // fail it over or drop it (the survivor is serviced by the failover).
    auto usable = [&] { return !lgr.terminated && lgr.holds(&link) && link.canSend(); };
    while (usable() && !link.pendingLlc.empty()) {
        const wire::LlcBytes bytes = link.pendingLlc.front();
        link.pendingLlc.pop_front();
        (void)postLlcLocked(lgr, link, bytes);  // failures surface as a lost link
    }
    // Failover validation CDCs go before the data of the link that carries
    // the connections (engine_links.cpp).
    if (lgr.holds(&link) && lgr.isPrimary(link)) serviceValidationsLocked(lgr);
    while (usable() && !link.slotWaiters.empty()) {
        auto conn = link.slotWaiters.front().lock();
        link.slotWaiters.pop_front();
        if (!conn) continue;
        conn->queuedForSlot = false;
        flushLocked(*conn);
    }
    // Owed RQ credits last: the CDCs that just left carried them (byte 26);
    // an ANNOUNCE_CREDITS goes only for what is still owed, now that no CDC
    // is leaving (also the one that found no free slot before).
    if (lgr.holds(&link)) announceCreditsLocked(lgr, link);
}

void EngineImpl::onCdcLocked(LinkGroup& lgr, const CdcInfo& cdc) {
    auto it = lgr.conns.find(cdc.alertToken);
    if (it == lgr.conns.end()) {
        ++m_stats.unknownTokenDropped;
        return;
    }
    if (!it->second->core) {
        it->second->earlyCdcs.push_back(cdc);
        return;
    }
    std::shared_ptr<Connection> conn = it->second;
    const CdcRxResult r =
        conn->core->onCdc(cdc, static_cast<WindowUpdateLimit>(m_settings.get(SettingId::wndUpdateLimit)));
    switch (r.verdict) {
        case CdcVerdict::accepted:
            break;
        case CdcVerdict::staleSeqno:
            ++conn->stats.staleCdcDropped;
            return;
        case CdcVerdict::wrongToken:
            ++m_stats.unknownTokenDropped;
            return;
        case CdcVerdict::protocolViolation: {
            CloseActions a = conn->core->closer().on(CloseEvent::appAbort);
            conn->error = Errc::protocolViolation;
            applyCloseLocked(*conn, a);
            return;
        }
        case CdcVerdict::failoverChecked:
            return;
        case CdcVerdict::failoverLost: {
            // CDCs went missing in the failover: the stream cannot be trusted.
            CloseActions a = conn->core->closer().on(CloseEvent::appAbort);
            conn->error = Errc::connectionAborted;
            ++m_stats.connectionsAborted;
            applyCloseLocked(*conn, a);
            return;
        }
    }
    ++conn->stats.cdcReceived;
    if (r.close.error != Errc::invalid) {
        conn->error = r.close.error;
        ++m_stats.connectionsAborted;
    }
    if (r.push) pushLocked(*conn, PushOrigin::cdcReceived);  // or left to the thread inside the socket
    maybeReleaseLocked(*conn);
}

void EngineImpl::replayEarlyCdcsLocked(LinkGroup& lgr, Connection& conn) {
    std::vector<CdcInfo> early;
    early.swap(conn.earlyCdcs);
    for (const CdcInfo& cdc : early) onCdcLocked(lgr, cdc);
}

namespace {

// The sender runs this engine's settings: the lab starts both ends alike.
ConnRx::SenderWaits senderWaits(const Settings& settings) {
    if (settings.get(SettingId::busyPollUs) > 0) return ConnRx::SenderWaits::busyPolls;
    if (settings.get(SettingId::windowSpinUs) > 0) return ConnRx::SenderWaits::pollsForWindow;
    return ConnRx::SenderWaits::sleeps;
}

}  // namespace

// The copy to the application: recv() and peek read the RMB here; the
// window update the read makes due goes out at once (flushLocked).
uint32_t EngineImpl::readLocked(Connection& conn, uint8_t* out, uint32_t len, bool peek) {
    const ConnRx& rx = conn.core->rx();
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(len, rx.availableBytes()));
    if (n == 0) return 0;
    // Pieces with the window rule checked after each (window_policy.h,
    // readPieceBytes) while the sender is awake to refill what each frees;
    // a sleeping sender would wake for every announcement, so then once per
    // read, as the kernel's recvmsg announces (engine/README.md, "Progress
    // and waiting").
    const uint32_t piece = peek ? n : std::min(n, rx.readPieceBytes(senderWaits(m_settings)));
    const auto limit = static_cast<WindowUpdateLimit>(m_settings.get(SettingId::wndUpdateLimit));
    uint32_t done = 0;
    while (done < n) {
        const uint32_t step = std::min(n - done, piece);
        const RingSpans spans = rx.readSpans(peek ? done : 0, step);
        for (uint8_t i = 0; i < spans.count; ++i) {
            std::memcpy(out + done, conn.rmb->data() + spans.spans[i].offset, spans.spans[i].lengthBytes);
            done += spans.spans[i].lengthBytes;
        }
        if (peek) continue;
        conn.stats.rxBytes += step;
        if (conn.core->onAppRead(step, limit)) {
            flushLocked(conn);
            // A failed post may have ended the group: the rest stays unread.
            if (done < n && (conn.released || !conn.lgr || conn.lgr->terminated)) return done;
        }
    }
    return n;
}

}  // namespace smcr::core
