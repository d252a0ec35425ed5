// Metrics of the programs running under smcr_run on this host: the ones the
// agent's tool workloads started and any other it finds. Each registers a
// control endpoint (engine/src/preload/control_path.h, what `smclab stat`
// reads); the page asks each one for its counters and exports its engine's
// under the same kernel-like names as a libsmcr run's
// (engine_metric_names.h), labelled with pid and program, plus the
// preload's own counts (connections over SMC-R and TCP, TCP by reason,
// application bytes by path).
#pragma once

#include "prometheus_text.h"

namespace smclab::daemon {

// Blocks up to `timeoutMs` per process that does not answer (a stopped or
// wedged one; a gone one refuses at once). Adds nothing when none runs.
void addPreloadFamilies(MetricsPage* page, int timeoutMs = 300);

// One process's counters JSON (the answer to "stat") as samples: pure, for tests.
void addPreloadProcess(const QByteArray& statJson, MetricsPage* page);

}  // namespace smclab::daemon
