// The http workload's client: wrk's closed loop. `threads` threads share
// `connections` connections evenly; each connection keeps one request in
// flight and sends the next as soon as the response is complete. Latency is
// timed from the start of writing a request to its last response byte;
// Req/Sec is sampled per thread every 100 ms (wrk's RECORD_INTERVAL_MS).
#pragma once

#include "workload.h"

namespace smclab::workloads {

ParamSchema httpClientSchema();
Result<RunResult> runHttpClient(const RunContext& ctx);

}  // namespace smclab::workloads
