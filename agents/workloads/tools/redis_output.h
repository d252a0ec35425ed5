// Parser of redis-benchmark's two short forms (redis 6.2 / 7):
//  - quiet (-q): "SET: 26490.07 requests per second, p50=0.303 msec", one
//    line per test; the "\r"-overwritten progress lines before each are
//    dropped (only the text after a line's last "\r" counts);
//  - csv (--csv): the header "test","rps","avg_latency_ms",
//    "min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",
//    "max_latency_ms" and one quoted row per test.
// Into the kv workload's summary form: {"tests": [{"test":"SET","rps":...,
// "p50_latency_ms":...}, ...]}. "WARNING: ..." lines are kept as
// "warnings". A progress line with no final line (cut off), any other line,
// or no test at all is an error naming the line.
#pragma once

#include <string_view>

#include <smcr/result.h>

#include <QJsonObject>

namespace smclab::workloads {

enum class RedisBenchmarkForm { invalid = 0, quiet, csv };

smcr::Result<QJsonObject> parseRedisBenchmarkOutput(std::string_view text, RedisBenchmarkForm form);

}  // namespace smclab::workloads
