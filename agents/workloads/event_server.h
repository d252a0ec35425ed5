// The event-driven server skeleton of the http and kv workloads, over any
// transport: the run's own thread listens, accepts and reports samples;
// `threads` I/O threads each own a transport Poller and the connections
// handed to them round-robin. Readiness is level-triggered, so a handler
// may stop early (e.g. after a full pipeline batch) without losing events.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "workload.h"

namespace smclab::workloads {

class Connection {
public:
    virtual ~Connection() = default;
    // Handles readiness; returns the interest to wait for next, or
    // Interest::none to close the connection.
    virtual transports::Interest onReady(transports::Interest ready) = 0;
};

// Per I/O thread counters, written by that thread only (no shared cache line).
struct alignas(64) WorkerStats {
    std::atomic<uint64_t> ops{0};  // requests / commands answered
    std::atomic<uint64_t> bytesIn{0};
    std::atomic<uint64_t> bytesOut{0};
    std::atomic<uint64_t> connections{0};
    std::atomic<uint64_t> errors{0};
};

struct EventServerConfig {
    int threads = 1;
    // Makes the handler for a new connection on I/O thread `worker`. The
    // stream (already non-blocking) outlives the handler.
    std::function<std::unique_ptr<Connection>(transports::Stream& stream, WorkerStats& stats, int worker)> accept;
};

struct EventServerTotals {
    uint64_t ops = 0, bytesIn = 0, bytesOut = 0, connections = 0, errors = 0;
    double wallSec = 0;
    CpuTimes cpu;
};

// Runs until ctx.stop. Samples carry ops and bytes out (the response bytes).
Result<EventServerTotals> runEventServer(const RunContext& ctx, const EventServerConfig& config);

}  // namespace smclab::workloads
