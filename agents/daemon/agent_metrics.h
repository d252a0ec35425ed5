// The agent's /metrics page: the agent itself (up, version, sessions, runs
// by state) and, for every active run over libsmcr, its engine's counters
// labelled with the run (engine_metric_names.h), and the programs running
// under smcr_run on this host (preload_metrics.h). Read on the event loop
// thread that owns the agent; transports' counters are thread-safe.
#pragma once

#include "prometheus_text.h"

namespace smclab::daemon {

class Agent;

MetricsPage agentMetrics(const Agent& agent);

}  // namespace smclab::daemon
