// libsmcr's flat counter names ("smcr.cdc_sent", "smcr.fallback.client.PEERNOSMC",
// EngineStats::flatten) as Prometheus metrics with kernel-like names: the
// words of the kernel's smc_stats and smc-tools where one exists
// (smcr_rmb_tx_peer_full_total is SMC_NLA_STATS_RMB_TX_PEER_FULL_CNT),
// fallbacks and declines by reason as a label. Pure; no I/O.
#pragma once

#include <string_view>

#include "prometheus_text.h"

namespace smclab::daemon {

struct EngineMetric {
    QString name;  // Prometheus family name
    MetricType type = MetricType::counter;
    QString help;
    MetricLabels labels;  // e.g. {"side","client"},{"reason","PEERNOSMC"}
};

// Every engine counter maps to a metric: the ones without a table entry
// (added to the engine later) become "smcr_<name>_total" counters, so a new
// counter is exported before anyone names it here. Empty name: not an
// engine counter (no "smcr." prefix).
EngineMetric engineMetric(std::string_view flatName);

}  // namespace smclab::daemon
