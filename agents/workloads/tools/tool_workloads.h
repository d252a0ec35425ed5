// The tool workloads: the users' own programs run by the agent (qperf,
// nginx + wrk, redis-server + redis-benchmark, iperf3), registered with the
// built-in ones in registry.cpp.
#pragma once

#include "workload.h"

namespace smclab::workloads {

const Workload& qperfToolWorkload();     // "qperf"
const Workload& nginxWrkToolWorkload();  // "nginx-wrk"
const Workload& redisToolWorkload();     // "redis"
const Workload& iperf3ToolWorkload();    // "iperf3"

}  // namespace smclab::workloads
