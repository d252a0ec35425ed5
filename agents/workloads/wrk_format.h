// wrk's report for an http client result (src/wrk.c layout):
//
//   Running 10s test @ http://127.0.0.1:8080/4k.html
//     2 threads and 10 connections
//     Thread Stats   Avg      Stdev     Max   +/- Stdev
//       Latency   109.05us   47.30us   3.09ms   92.55%
//       Req/Sec    43.28k     2.49k   48.74k    70.30%
//     Latency Distribution
//        50%  102.00us
//        ...
//     867966 requests in 10.10s, 3.84GB read
//   Requests/sec:  85936.05
//   Transfer/sec:    389.32MB
//
// Percentiles follow the HDR rule of hdr_histogram.h (wrk itself uses 1 us bins).
#pragma once

#include <string>

#include "workload.h"

namespace smclab::workloads {

std::string formatWrkReport(const RunResult& clientResult, bool latencyDistribution);

}  // namespace smclab::workloads
