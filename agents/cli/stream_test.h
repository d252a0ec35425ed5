// The qperf-style stream tests of `smclab bench stream` on one connection.
//
// The client sends a 16-byte request {test, msg_size, duration_ms}, then:
//   tcp_bw:  streams msg_size messages for the duration and shuts down
//            writing; the server counts bytes from the first byte to EOF:
//            bandwidth at the receiver, as qperf measures it.
//   tcp_lat: ping-pong of msg_size messages for the duration, then shuts
//            down writing; one-way latency = round trip / 2 (mean, p50, p99),
//            as qperf reports it.
// After EOF the server answers {bytes, nanoseconds, counter text length}
// and the change of its engine's counters over the test as "name value"
// lines, so a benchmark sees both ends' counters without another channel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bench_local.h"

namespace smclab::cli {

enum class StreamTest : uint32_t { invalid = 0, bw = 1, lat = 2 };

const char* streamTestName(StreamTest test);  // "tcp_bw", "tcp_lat"

struct StreamResult {
    bool ok = false;
    double bwMBs = 0;      // 10^6 bytes/s at the receiver (tcp_bw)
    double latMeanUs = 0;  // one-way (tcp_lat)
    double latP50Us = 0;
    double latP99Us = 0;
    uint64_t messages = 0;  // application messages the server received
    CounterMap serverCounters;  // server engine, change over the test (smcr only)
    CounterMap clientCounters;  // client engine, change over the test (smcr only)
};

// Server side of one connection; `engine` may be null (tcp).
void serveStreamConnection(BenchConn& conn, const smcr::Engine* engine);

// Client side: runs one test on `conn` (already connected). `engine` (the
// connection's, may be null) gives the client's counters.
StreamResult runStreamTest(BenchConn& conn, const smcr::Engine* engine, StreamTest test, uint32_t msgSize,
                           uint64_t durationMs);

}  // namespace smclab::cli
