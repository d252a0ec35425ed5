// The tool presets' results as their cover letters print them, after the
// comparison tables of `smclab report` (text format). Each column's medians
// in the tool's own words:
//
//   redis (seed004-redis, redis-benchmark -q), a block per column:
//     ==== redis-benchmark ====
//     Before:
//     SET: 205833.30 requests per second, p50=0.799 msec
//     GET: 228385.40 requests per second, p50=0.687 msec
//
//   nginx-wrk (seed002-nginx), the letter's QPS rows, a row per column:
//     ==== QPS ====
//     Items                      QPS
//     sendfile off          13493.74
//
//   nginx-wrk (seed003-shortconn and other campaigns), wrk's own two lines
//   per column (wrk.c: "Requests/sec: %9.2f", "Transfer/sec: %10sB" with
//   2^10 units and two decimals):
//     TCP:
//     Requests/sec: 145438.65
//     Transfer/sec:     20.94MB
//
// Blocks are separated by a blank line. A table with several message sizes adds the size to each block's label
// ("Before (10 B):"); a missing cell prints "-" for its number. qperf's
// letter (seed000-qperf) is the Bandwidth / Latency layout of
// format_text.h itself.
#pragma once

#include <QList>
#include <QString>

#include "smclab/report/comparison_table.h"

namespace smclab::report {

// One redis-benchmark test ("SET") of a campaign: its requests/s and p50
// (milliseconds) tables, same columns and sizes.
struct RedisTestTables {
    QString test;
    ComparisonTable rps;
    ComparisonTable p50Ms;
};

QString formatRedisQuietLines(const QList<RedisTestTables>& tests);
QString formatQpsRows(const ComparisonTable& rps);
// `transferBytesPerSec`: wrk's Transfer/sec in bytes per second.
QString formatWrkRateLines(const ComparisonTable& rps, const ComparisonTable& transferBytesPerSec);
// wrk's format_binary: 20.94M (2^10 steps, two decimals, no unit under 1024).
QString wrkBinaryUnits(double value);

}  // namespace smclab::report
