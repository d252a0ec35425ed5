#include <cstdio>

#include <smcr/stats.h>
#include <smcr/wire/decline_reasons.h>

namespace smcr {

namespace {
std::string reasonLabel(uint32_t code) {
    if (const char* name = wire::declineReasonName(code)) return name;
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%08x", code);
    return buffer;
}
}  // namespace

ConnectionStats& ConnectionStats::operator+=(const ConnectionStats& o) {
    cdcSent += o.cdcSent;
    cdcReceived += o.cdcReceived;
    rdmaWrites += o.rdmaWrites;
    txBytes += o.txBytes;
    rxBytes += o.rxBytes;
    txCalls += o.txCalls;
    rxCalls += o.rxCalls;
    windowUpdates += o.windowUpdates;
    bufFullPeer += o.bufFullPeer;
    bufFull += o.bufFull;
    corkedCalls += o.corkedCalls;
    nodelayCalls += o.nodelayCalls;
    sendfileCalls += o.sendfileCalls;
    staleCdcDropped += o.staleCdcDropped;
    autocorkedSends += o.autocorkedSends;
    autocorkPushes += o.autocorkPushes;
    userCorkedSends += o.userCorkedSends;
    corkPushes += o.corkPushes;
    corkTimerPushes += o.corkTimerPushes;
    nodelayPushes += o.nodelayPushes;
    pushesApp += o.pushesApp;
    pushesCompletion += o.pushesCompletion;
    pushesDeferred += o.pushesDeferred;
    return *this;
}

std::vector<std::pair<std::string, uint64_t>> EngineStats::flatten() const {
    std::vector<std::pair<std::string, uint64_t>> out = {
        {"smcr.cdc_sent", total.cdcSent},
        {"smcr.cdc_received", total.cdcReceived},
        {"smcr.rdma_writes", total.rdmaWrites},
        {"smcr.tx_bytes", total.txBytes},
        {"smcr.rx_bytes", total.rxBytes},
        {"smcr.tx_calls", total.txCalls},
        {"smcr.rx_calls", total.rxCalls},
        {"smcr.window_updates", total.windowUpdates},
        {"smcr.buf_full_peer", total.bufFullPeer},
        {"smcr.buf_full", total.bufFull},
        {"smcr.cork_calls", total.corkedCalls},
        {"smcr.nodelay_calls", total.nodelayCalls},
        {"smcr.sendfile_calls", total.sendfileCalls},
        {"smcr.stale_cdc_dropped", total.staleCdcDropped},
        {"smcr.tx_bytes_per_write", total.rdmaWrites == 0 ? 0 : total.txBytes / total.rdmaWrites},
        {"smcr.autocorked_sends", total.autocorkedSends},
        {"smcr.autocork_pushes", total.autocorkPushes},
        {"smcr.user_corked_sends", total.userCorkedSends},
        {"smcr.cork_pushes", total.corkPushes},
        {"smcr.cork_timer_pushes", total.corkTimerPushes},
        {"smcr.nodelay_pushes", total.nodelayPushes},
        {"smcr.push_app", total.pushesApp},
        {"smcr.push_completion", total.pushesCompletion},
        {"smcr.push_deferred", total.pushesDeferred},
        {"smcr.clnt_success", clientSuccess},
        {"smcr.srv_success", serverSuccess},
        {"smcr.clnt_fallbacks", clientFallbacks},
        {"smcr.srv_fallbacks", serverFallbacks},
        {"smcr.hs_errors", handshakeErrors},
        {"smcr.lgr_created", linkGroupsCreated},
        {"smcr.lgr_freed", linkGroupsFreed},
        {"smcr.lgr_reuses", linkGroupReuses},
        {"smcr.links_down", linksDown},
        {"smcr.conns_aborted", connectionsAborted},
        {"smcr.unknown_token_dropped", unknownTokenDropped},
        {"smcr.test_links_sent", testLinksSent},
        {"smcr.test_links_answered", testLinksAnswered},
        {"smcr.add_link_rejected", addLinkRejected},
        {"smcr.rmb_alloc", rmbAllocs},
        {"smcr.rmb_reuse", rmbReuses},
        {"smcr.sndbuf_alloc", sndbufAllocs},
        {"smcr.sndbuf_reuse", sndbufReuses},
        {"smcr.cq_polls", cqPolls},
        {"smcr.cq_events", cqEvents},
        {"smcr.busy_poll_hits", busyPollHits},
        {"smcr.blocking_waits", blockingWaits},
        {"smcr.word_sleeps", wordSleeps},
        {"smcr.bg_wakeups", backgroundWakeups},
        {"smcr.send_slot_waits", sendSlotWaits},
        {"smcr.conns_active", connectionsActive},
        {"smcr.links_added", linksAdded},
        {"smcr.add_link_failed", addLinkFailed},
        {"smcr.link_failovers", linkFailovers},
        {"smcr.failover_conns", failoverConns},
        {"smcr.retired_link_cdcs", retiredLinkCdcs},
        {"smcr.rkeys_confirmed", rkeysConfirmed},
        {"smcr.rkeys_deleted", rkeysDeleted},
        {"smcr.confirm_rkey_rcvd", peerConfirmRkeys},
        {"smcr.confirm_rkey_answered", peerConfirmRkeysAnswered},
        {"smcr.delete_rkey_rcvd", peerDeleteRkeys},
        {"smcr.delete_rkey_answered", peerDeleteRkeysAnswered},
        {"smcr.links_active", linksActive},
        {"smcr.tx_completion_timeouts", txCompletionTimeouts},
        {"smcr.conns_second_link", connsSecondLink},
        {"smcr.cdc_second_link", cdcSecondLink},
        {"smcr.cq_arms", cqArms},
        {"smcr.cq_send_arms", cqSendArms},
        {"smcr.cq_missed_events", cqMissedEvents},
        {"smcr.rnr_naks_sent", rnrNaksSent},
        {"smcr.rnr_naks_received", rnrNaksReceived},
        {"smcr.rnr_retries", rnrRetries},
        {"smcr.credit_links", creditLinks},
        {"smcr.credit_waits", creditWaits},
        {"smcr.credits_low", creditsLowEvents},
        {"smcr.credits_received", creditsReceived},
        {"smcr.credits_announced_cdc", creditsAnnouncedCdc},
        {"smcr.credits_announced_llc", creditsAnnouncedLlc},
        {"smcr.credit_announce_llcs", creditAnnounceLlcs},
        {"smcr.rx_backlog_max", rxBacklogMax},
        {"smcr.cdc_reserved_nonzero", cdcReservedNonzero},
        {"smcr.fast_fallback_accepts", fastFallbackAccepts},
        {"smcr.syn_option_accepts", synOptionAccepts},
        {"smcr.hs_queue_depth_max", hsQueueDepthMax},
        {"smcr.limit_hs_fallbacks", limitHsFallbacks},
    };
    for (const auto& [code, count] : clientFallbackReasons) {
        out.emplace_back("smcr.fallback.client." + reasonLabel(code), count);
    }
    for (const auto& [code, count] : serverFallbackReasons) {
        out.emplace_back("smcr.fallback.server." + reasonLabel(code), count);
    }
    for (const auto& [code, count] : peerDeclineReasons) {
        out.emplace_back("smcr.peer_decline." + reasonLabel(code), count);
    }
    return out;
}

}  // namespace smcr
