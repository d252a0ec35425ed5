// The cover-letter lines of a campaign's tool workloads
// (smclab/report/letter_lines.h), from its stored medians: redis ->
// redis-benchmark -q lines from TEST_rps and TEST_p50_latency_ms;
// nginx-wrk -> the QPS rows for the seed002-nginx preset, wrk's
// Requests/sec and Transfer/sec lines (rps, transfer_bytes_per_sec)
// otherwise. Sections in plan order, each after a blank line (they follow
// the comparison tables); empty when the campaign has none of these.
#pragma once

#include <smcr/result.h>

#include <QString>

#include "smclab/db/result_store.h"

namespace smclab::db {

smcr::Result<QString> letterLines(ResultStore& store, qint64 campaignId);

}  // namespace smclab::db
