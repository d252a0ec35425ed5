// Parser of wrk's report (wrk 4.x, src/wrk.c), with or without --latency:
//
//   Running 1s test @ http://127.0.0.1:19766/4k.html
//     2 threads and 10 connections
//     Thread Stats   Avg      Stdev     Max   +/- Stdev
//       Latency   362.86us  245.09us   4.53ms   98.65%
//       Req/Sec    14.40k     3.04k   27.19k    95.24%
//     Latency Distribution
//        50%  338.00us
//        ...
//     30068 requests in 1.10s, 124.34MB read
//     Socket errors: connect 0, read 5, write 0, timeout 0
//     Non-2xx or 3xx responses: 12
//   Requests/sec:  27331.02
//   Transfer/sec:    113.02MB
//
// Into the http workload's summary names: requests_per_sec,
// transfer_bytes_per_sec (wrk's MB is 2^20), requests, duration_sec,
// bytes_read, threads, connections, latency_avg_us / latency_stdev_us /
// latency_max_us, p50_us / p75_us / p90_us / p99_us (with --latency),
// errors {connect, read, write, timeout, status} and errors_total. A report
// cut off before Transfer/sec, a line it does not know, or a latency
// distribution missing when `latencyExpected` is an error naming the line.
#pragma once

#include <string_view>

#include <smcr/result.h>

#include <QJsonObject>

namespace smclab::workloads {

smcr::Result<QJsonObject> parseWrkOutput(std::string_view text, bool latencyExpected);

}  // namespace smclab::workloads
