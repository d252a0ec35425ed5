// The fast-fallback comparison's three columns, the one definition behind
// the `fallback` preset (the lab's own http workload) and `seed003-shortconn`
// (the real nginx and wrk): a plain TCP listener, libsmcr's listener with
// every connection through its handshake worker (lab.fast_fallback off, the
// original path), and with plain TCP clients queued at once (on). Clients
// are plain TCP in all three: the cost a libsmcr listener adds for peers
// that never speak SMC.
#pragma once

#include <vector>

#include <QString>

#include "campaign_spec.h"

namespace smclab::orchestrator {

struct FallbackColumnLabels {
    QString tcp;
    QString fastFallbackOff;
    QString fastFallbackOn;
};

std::vector<ColumnSpec> fallbackColumns(const FallbackColumnLabels& labels);

}  // namespace smclab::orchestrator
