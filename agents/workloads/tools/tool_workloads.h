// The tool workloads: the users' own programs run by the agent (qperf,
// nginx + wrk, redis-server + redis-benchmark, iperf3), registered with the
// built-in ones in registry.cpp.
#pragma once

#include <string_view>

#include "workload.h"

namespace smclab::workloads {

const Workload& qperfToolWorkload();     // "qperf"
const Workload& nginxWrkToolWorkload();  // "nginx-wrk"
const Workload& redisToolWorkload();     // "redis"
const Workload& iperf3ToolWorkload();    // "iperf3"

// A tool workload whose program prints nothing while it runs (qperf, wrk,
// redis-benchmark -q): its live samples come only from the preload's engine
// counters under smcr (tool_sampler.h), none over tcp or ksmc. iperf3 prints
// interval lines, the built-in workloads stream samples: false.
bool reportsOnlyAtEnd(std::string_view workload);

}  // namespace smclab::workloads
