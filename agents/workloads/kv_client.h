// The kv workload's client, after redis-benchmark: for each test (set, get,
// ping_inline, ping_mbulk) `clients` connections share `requests` commands,
// each sending `pipeline` commands per batch and waiting for their replies.
// As in redis-benchmark, the clock of a batch starts when it is written and
// stops at the first readable event; that value is recorded for every reply
// of the batch (so with -P it is per-batch latency). Throughput = replies /
// wall time of the test, connections made before the clock starts. Keys are
// "key:__rand_int__" literally unless keyspace > 0, then "key:" + 12 random
// digits below keyspace; values are `data_size` bytes of 'x'.
#pragma once

#include "workload.h"

namespace smclab::workloads {

ParamSchema kvClientSchema();
Result<RunResult> runKvClient(const RunContext& ctx);

}  // namespace smclab::workloads
