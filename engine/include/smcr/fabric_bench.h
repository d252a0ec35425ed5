// perftest-style microbenchmarks of a fabric backend (ib_write_lat,
// ib_write_bw, ib_send_lat) with client and server as two processes on this
// host, plus the physical limits of the host they should be read against: a
// shared cache-line ping-pong between two processes and memcpy bandwidth.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <smcr/fabric.h>
#include <smcr/result.h>

namespace smcr::fabric::bench {

enum class Test : uint8_t { invalid = 0, writeLat, writeBw, sendLat };
const char* testName(Test test);  // "write_lat" ...

struct Options {
    std::string backend = "sim";
    OpenOptions open;        // e.g. {"link", "cx4-25g"}
    bool eventPoll = false;  // wait on the completion channel instead of spinning
    uint32_t latIterations = 1000;
    uint32_t bwIterations = 5000;
    std::vector<uint32_t> sizes;  // empty = 2 B .. 64 KiB, powers of two
    std::vector<Test> tests{Test::writeLat, Test::writeBw, Test::sendLat};
    bool pinCpus = true;
};

struct LatencyRow {
    uint32_t bytes = 0;
    uint32_t iterations = 0;
    double minUs = 0, maxUs = 0, typicalUs = 0, avgUs = 0, stdevUs = 0, p99Us = 0, p999Us = 0;
};

struct BandwidthRow {
    uint32_t bytes = 0;
    uint32_t iterations = 0;
    // avg: bytes over the whole run, as perftest reports it. typical: the
    // median of the rates between successive send-CQ polls that returned
    // completions (every 100th WR is signaled), which a scheduler stall on
    // a shared host moves far less than the average. peak: the best such
    // interval.
    double peakGBps = 0, avgGBps = 0, typicalGBps = 0, msgRateMpps = 0;
};

struct Limits {
    double pingPongOneWayUs = 0;  // typical: median round trip / 2
    double pingPongMinUs = 0;
    // A sleep and a wake-up between the two processes, one way: futex, and
    // a pipe's read and write (typical and min, as the ping-pong).
    double wakeFutexOneWayUs = 0, wakeFutexMinUs = 0;
    double wakePipeOneWayUs = 0, wakePipeMinUs = 0;
    double memcpyHotGBps = 0;   // 64 KiB, cache-resident (median of 200 batches)
    double memcpyColdGBps = 0;  // 64 MiB (median of 5 copies)
};

Result<std::vector<LatencyRow>> runLatency(const Options& options, Test test);
Result<std::vector<BandwidthRow>> runBandwidth(const Options& options);
// `rounds` cache-line round trips, each timed (the typical figure is the
// median, like t_typical).
Limits measureLimits(bool pinCpus, uint32_t rounds = 100000);

// Runs everything in `options` and prints perftest-like tables, the limits
// and the ratios against the targets to `out`. Returns false on an error
// (printed to `err`).
bool runAndReport(const Options& options, FILE* out, FILE* err);

}  // namespace smcr::fabric::bench
