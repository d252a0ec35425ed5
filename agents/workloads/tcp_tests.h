// The tcp_bw / tcp_lat server and clients (qperf semantics; see
// tcp_test_protocol.h for the exchange and the measurement window).
#pragma once

#include "workload.h"

namespace smclab::workloads {

// Pattern for verify mode: stream byte k is kPattern[k % kPatternPeriod];
// a prime period exposes lost, repeated or reordered chunks.
inline constexpr size_t kPatternPeriod = 251;
uint8_t patternByte(uint64_t streamOffset);

ParamSchema tcpServerSchema();
ParamSchema tcpClientSchema(bool latency);

// One server answers both tests, each connection on its own thread.
Result<RunResult> runTcpServer(const RunContext& ctx, const std::string& workload);
Result<RunResult> runTcpBwClient(const RunContext& ctx);
Result<RunResult> runTcpLatClient(const RunContext& ctx);

}  // namespace smclab::workloads
