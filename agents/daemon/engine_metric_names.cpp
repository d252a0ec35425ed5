#include "engine_metric_names.h"

namespace smclab::daemon {

namespace {

struct Entry {
    const char* engineName;  // without the "smcr." prefix
    const char* metricName;
    MetricType type;
    const char* help;
};

// Gauges are levels (now, or a high-water mark); everything else only grows.
constexpr Entry kTable[] = {
    {"cdc_sent", "smcr_cdc_msgs_sent_total", MetricType::counter, "CDC messages sent (data and window updates)"},
    {"cdc_received", "smcr_cdc_msgs_received_total", MetricType::counter, "CDC messages received"},
    {"rdma_writes", "smcr_rdma_writes_total", MetricType::counter, "RDMA WRITEs posted into peer RMBs"},
    {"tx_bytes", "smcr_tx_bytes_total", MetricType::counter,
     "bytes written to peer RMBs (kernel SMC_NLA_STATS_T_TX_BYTES)"},
    {"rx_bytes", "smcr_rx_bytes_total", MetricType::counter,
     "bytes copied out to applications (kernel SMC_NLA_STATS_T_RX_BYTES)"},
    {"tx_calls", "smcr_tx_calls_total", MetricType::counter, "send calls (kernel SMC_NLA_STATS_T_TX_CNT)"},
    {"rx_calls", "smcr_rx_calls_total", MetricType::counter, "receive calls (kernel SMC_NLA_STATS_T_RX_CNT)"},
    {"window_updates", "smcr_cdc_window_updates_total", MetricType::counter,
     "CDC messages without data, sent for the consumer cursor"},
    {"buf_full_peer", "smcr_rmb_tx_peer_full_total", MetricType::counter,
     "pushes that found the peer RMB full (kernel SMC_NLA_STATS_RMB_TX_PEER_FULL_CNT)"},
    {"buf_full", "smcr_rmb_tx_full_total", MetricType::counter,
     "sends that found the local send buffer full (kernel SMC_NLA_STATS_RMB_TX_FULL_CNT)"},
    {"cork_calls", "smcr_corked_calls_total", MetricType::counter, "send calls with MSG_MORE or TCP_CORK set"},
    {"nodelay_calls", "smcr_nodelay_calls_total", MetricType::counter, "send calls with TCP_NODELAY set"},
    {"sendfile_calls", "smcr_sendfile_calls_total", MetricType::counter,
     "sendfile calls (kernel SMC_NLA_STATS_T_SENDPAGE_CNT)"},
    {"cork_pushes", "smcr_cork_pushes_total", MetricType::counter,
     "corked data pushed by clearing TCP_CORK or the cork timer (kernel cork_cnt)"},
    {"nodelay_pushes", "smcr_ndly_pushes_total", MetricType::counter,
     "pending data pushed by setting TCP_NODELAY (kernel ndly_cnt)"},
    {"tx_bytes_per_write", "smcr_tx_bytes_per_rdma_write", MetricType::gauge, "mean bytes per RDMA WRITE so far"},
    {"clnt_success", "smcr_clnt_success_total", MetricType::counter,
     "SMC-R connections made as client (kernel SMC_NLA_STATS_T_CLNT_V1_SUCC)"},
    {"srv_success", "smcr_srv_success_total", MetricType::counter,
     "SMC-R connections accepted (kernel SMC_NLA_STATS_T_SRV_V1_SUCC)"},
    {"clnt_fallbacks", "smcr_clnt_fallbacks_total", MetricType::counter,
     "client connections that fell back to TCP, all reasons"},
    {"srv_fallbacks", "smcr_srv_fallbacks_total", MetricType::counter,
     "accepted connections that fell back to TCP, all reasons"},
    {"hs_errors", "smcr_hshake_errors_total", MetricType::counter,
     "fallbacks that were handshake failures (kernel SMC_NLA_STATS_CLNT_HS_ERR_CNT + SRV_HS_ERR_CNT)"},
    {"lgr_created", "smcr_lgr_created_total", MetricType::counter, "link groups created"},
    {"lgr_freed", "smcr_lgr_freed_total", MetricType::counter, "link groups freed"},
    {"conns_active", "smcr_conns_active", MetricType::gauge, "SMC-R connections holding an RMB now"},
    {"links_active", "smcr_links_active", MetricType::gauge, "links carrying or standing by now"},
    {"conns_second_link", "smcr_conns_second_link", MetricType::gauge,
     "connections sending on an added second link now"},
    {"credit_links", "smcr_credit_links", MetricType::gauge, "links that negotiated receive-queue credits"},
    {"rx_backlog_max", "smcr_rx_backlog_max", MetricType::gauge, "most CDCs waiting in a link's RX backlog"},
    {"hs_queue_depth_max", "smcr_hs_queue_depth_max", MetricType::gauge,
     "most connections waiting for a listener's handshake worker"},
    {"rmb_alloc", "smcr_rmb_alloc_total", MetricType::counter, "RMBs allocated (kernel SMC_NLA_STATS_RMB_ALLOC_CNT)"},
    {"rmb_reuse", "smcr_rmb_reuse_total", MetricType::counter, "RMBs reused (kernel SMC_NLA_STATS_RMB_REUSE_CNT)"},
    {"sndbuf_alloc", "smcr_sndbuf_alloc_total", MetricType::counter, "send buffers allocated"},
    {"sndbuf_reuse", "smcr_sndbuf_reuse_total", MetricType::counter, "send buffers reused"},
    {"cq_events", "smcr_cq_events_total", MetricType::counter, "completion-channel wake-ups"},
    {"rnr_retries", "smcr_rnr_retries_total", MetricType::counter, "SENDs retried after an RNR NAK"},
};

// "PEERNOSMC" from "fallback.client.PEERNOSMC" after the given prefix.
bool splitReason(std::string_view rest, std::string_view prefix, std::string_view* reason) {
    if (!rest.starts_with(prefix)) return false;
    *reason = rest.substr(prefix.size());
    return !reason->empty();
}

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

EngineMetric engineMetric(std::string_view flatName) {
    constexpr std::string_view kPrefix = "smcr.";
    if (!flatName.starts_with(kPrefix)) return {};
    const std::string_view rest = flatName.substr(kPrefix.size());
    std::string_view reason;
    for (const char* side : {"client", "server"}) {
        if (splitReason(rest, std::string("fallback.") + side + ".", &reason)) {
            return {QStringLiteral("smcr_fallbacks_total"),
                    MetricType::counter,
                    QStringLiteral("connections that fell back to TCP, by side and CLC decline reason"),
                    {{QStringLiteral("side"), QString::fromLatin1(side)}, {QStringLiteral("reason"), text(reason)}}};
        }
    }
    if (splitReason(rest, "peer_decline.", &reason)) {
        return {QStringLiteral("smcr_peer_declines_total"),
                MetricType::counter,
                QStringLiteral("CLC declines received from peers, by reason"),
                {{QStringLiteral("reason"), text(reason)}}};
    }
    for (const Entry& entry : kTable) {
        if (rest == entry.engineName) {
            return {QString::fromLatin1(entry.metricName), entry.type, QString::fromLatin1(entry.help), {}};
        }
    }
    // Unnamed engine counters keep their engine name; dots and other
    // characters outside [a-zA-Z0-9_] become '_' (the format's name rule).
    QString name = QStringLiteral("smcr_") + text(rest);
    for (QChar& c : name) {
        if (!c.isLetterOrNumber() || c.unicode() > 127) c = QLatin1Char('_');
    }
    return {name + QStringLiteral("_total"),
            MetricType::counter,
            QStringLiteral("libsmcr counter smcr.%1").arg(text(rest)),
            {}};
}

}  // namespace smclab::daemon
