// redis-benchmark's three output forms for a kv client result (redis 7):
//  - quiet (-q):  "SET: 81234.77 requests per second, p50=0.303 msec"
//  - csv (--csv): the 8-column header, then one quoted row per test
//  - full: "====== SET ======", the run facts, "Latency by percentile
//    distribution:" (percentiles halving the remainder: 0, 50, 75, 87.5 ...
//    up to 100), "Cumulative distribution of latencies:" (0.1 ms steps up to
//    2 ms, then 1 ms steps, lines where the count grows), and "Summary:".
// Percentiles follow the HDR rule of hdr_histogram.h, as redis-benchmark's.
#pragma once

#include <string>

#include "workload.h"

namespace smclab::workloads {

enum class RedisOutput { invalid = 0, full, quiet, csv };

std::string formatRedisBenchmark(const RunResult& clientResult, RedisOutput form);

}  // namespace smclab::workloads
