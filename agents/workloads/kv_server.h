// The kv workload's server: RESP over any transport with `threads` I/O
// threads and a sharded store. Commands: PING [msg], ECHO, SET key value
// [options ignored], GET, DEL key..., EXISTS key..., DBSIZE, FLUSHALL,
// FLUSHDB, SELECT (db 0 only), CONFIG GET name (what redis-benchmark asks
// first: "save" is "" and "appendonly" is "no"), COMMAND (an empty list),
// QUIT (+OK, then close). Anything else gets "-ERR unknown command".
// Pipelined commands are answered in one write.
#pragma once

#include "workload.h"

namespace smclab::workloads {

ParamSchema kvServerSchema();
Result<RunResult> runKvServer(const RunContext& ctx);

}  // namespace smclab::workloads
