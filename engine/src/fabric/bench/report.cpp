// perftest-like tables, the host's physical limits and the ratios against
// the targets the sim is held to (ideal link, busy polling: write latency
// <= 3x the cache-line one-way; 64 KiB write bandwidth >= 50% of memcpy;
// send latency <= 5x; cx4-25g: about 1.5 us and 3 GB/s).
#include <algorithm>
#include <cstdio>

#include "bench_pair.h"

namespace smcr::fabric::bench {

const char* testName(Test test) {
    switch (test) {
        case Test::writeLat:
            return "write_lat";
        case Test::writeBw:
            return "write_bw";
        case Test::sendLat:
            return "send_lat";
        case Test::invalid:
            break;
    }
    return "?";
}

namespace {

constexpr const char* kRule =
    "---------------------------------------------------------------------------------------------------------\n";

void printLatency(FILE* out, const char* title, const std::vector<LatencyRow>& rows) {
    std::fprintf(out, "%s%s\n%s", kRule, title, kRule);
    std::fprintf(out, " %-8s %-12s %-12s %-12s %-16s %-12s %-14s %-12s %-12s\n", "#bytes", "#iterations", "t_min[usec]",
                 "t_max[usec]", "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99%[usec]", "99.9%[usec]");
    for (const LatencyRow& r : rows) {
        std::fprintf(out, " %-8u %-12u %-12.2f %-12.2f %-16.2f %-12.2f %-14.2f %-12.2f %-12.2f\n", r.bytes,
                     r.iterations, r.minUs, r.maxUs, r.typicalUs, r.avgUs, r.stdevUs, r.p99Us, r.p999Us);
    }
}

void printBandwidth(FILE* out, const char* title, const std::vector<BandwidthRow>& rows) {
    std::fprintf(out, "%s%s\n%s", kRule, title, kRule);
    std::fprintf(out, " %-8s %-12s %-16s %-19s %-19s %-14s\n", "#bytes", "#iterations", "BW peak[GB/sec]",
                 "BW average[GB/sec]", "BW typical[GB/sec]", "MsgRate[Mpps]");
    for (const BandwidthRow& r : rows) {
        std::fprintf(out, " %-8u %-12u %-16.2f %-19.2f %-19.2f %-14.3f\n", r.bytes, r.iterations, r.peakGBps, r.avgGBps,
                     r.typicalGBps, r.msgRateMpps);
    }
}

const LatencyRow* smallest(const std::vector<LatencyRow>& rows) {
    return rows.empty() ? nullptr : &rows.front();
}

const BandwidthRow* rowFor(const std::vector<BandwidthRow>& rows, uint32_t bytes) {
    for (const BandwidthRow& r : rows) {
        if (r.bytes == bytes) return &r;
    }
    return nullptr;
}

void verdict(FILE* out, const char* what, double value, const char* unit, double ratio, const char* target, bool ok) {
    std::fprintf(out, "  %-34s %8.2f %-5s %7.2fx  target %-22s %s\n", what, value, unit, ratio, target,
                 ok ? "PASS" : "MISS");
}

}  // namespace

bool runAndReport(const Options& options, FILE* out, FILE* err) {
    const auto link = options.open.count("link") != 0 ? options.open.at("link") : std::string("ideal");
    const char* poll = options.eventPoll ? "event" : "busy";
    std::vector<LatencyRow> writeLat, sendLat;
    std::vector<BandwidthRow> writeBw;
    char title[160];
    for (Test test : options.tests) {
        if (test == Test::writeBw) {
            auto rows = runBandwidth(options);
            if (!rows) {
                std::fprintf(err, "write_bw: %s\n", rows.error().toString().c_str());
                return false;
            }
            writeBw = rows.value();
            std::snprintf(title, sizeof title,
                          "                    RDMA_Write BW Test (%s, link %s, poll %s, tx depth %u)",
                          options.backend.c_str(), link.c_str(), poll, kTxDepth);
            printBandwidth(out, title, writeBw);
        } else {
            auto rows = runLatency(options, test);
            if (!rows) {
                std::fprintf(err, "%s: %s\n", testName(test), rows.error().toString().c_str());
                return false;
            }
            const bool write = test == Test::writeLat;
            (write ? writeLat : sendLat) = rows.value();
            std::snprintf(title, sizeof title, "                    %s Latency Test (%s, link %s, poll %s)",
                          write ? "RDMA_Write" : "Send", options.backend.c_str(), link.c_str(),
                          write ? "busy (memory)" : poll);
            printLatency(out, title, rows.value());
        }
        std::fflush(out);
    }

    // Short runs (smoke tests) get a proportionally short floor measurement.
    const uint32_t rounds = std::clamp<uint32_t>(options.latIterations * 100, 2000, 100000);
    const Limits limits = measureLimits(options.pinCpus, rounds);
    std::fprintf(out, "%sPhysical limits of this host (two processes)\n%s", kRule, kRule);
    std::fprintf(out, "  cache-line ping-pong one-way       %8.3f us typical, %.3f us min\n", limits.pingPongOneWayUs,
                 limits.pingPongMinUs);
    std::fprintf(out, "  sleep + wake-up one-way, futex     %8.3f us typical, %.3f us min\n", limits.wakeFutexOneWayUs,
                 limits.wakeFutexMinUs);
    std::fprintf(out, "  sleep + wake-up one-way, pipe      %8.3f us typical, %.3f us min\n", limits.wakePipeOneWayUs,
                 limits.wakePipeMinUs);
    std::fprintf(out, "  memcpy bandwidth                   %8.2f GB/s (64 KiB, cache-resident), %.2f GB/s (64 MiB)\n",
                 limits.memcpyHotGBps, limits.memcpyColdGBps);

    std::fprintf(out, "%sRatios (link %s, poll %s)\n%s", kRule, link.c_str(), poll, kRule);
    const double pp = limits.pingPongOneWayUs > 0 ? limits.pingPongOneWayUs : 1e-9;
    if (link == "ideal") {
        if (const LatencyRow* r = smallest(writeLat)) {
            const double ratio = r->typicalUs / pp;
            verdict(out, ("write_lat " + std::to_string(r->bytes) + " B t_typical").c_str(), r->typicalUs, "us", ratio,
                    "<= 3x ping-pong", ratio <= 3.0);
        }
        if (const BandwidthRow* r = rowFor(writeBw, 65536)) {
            // Judged on the typical rate, like the latencies; the average
            // (every scheduler stall of the run included) is shown beside it.
            const double ratio = r->typicalGBps / limits.memcpyHotGBps;
            verdict(out, "write_bw 65536 B typical", r->typicalGBps, "GB/s", ratio, ">= 0.5x memcpy 64 KiB",
                    ratio >= 0.5);
            std::fprintf(out, "  %-34s %8.2f GB/s  %7.2fx\n", "write_bw 65536 B average", r->avgGBps,
                         r->avgGBps / limits.memcpyHotGBps);
        }
        if (const LatencyRow* r = smallest(sendLat)) {
            const double ratio = r->typicalUs / pp;
            verdict(out, ("send_lat " + std::to_string(r->bytes) + " B t_typical").c_str(), r->typicalUs, "us", ratio,
                    "<= 5x ping-pong", ratio <= 5.0);
        }
        if (options.eventPoll) {
            std::fprintf(out, "  (targets assume --poll busy; event mode pays a cross-CPU wake-up per message)\n");
        }
    } else if (link == "cx4-25g") {
        if (const LatencyRow* r = smallest(writeLat)) {
            const double ratio = r->typicalUs / 1.5;
            verdict(out, ("write_lat " + std::to_string(r->bytes) + " B t_typical").c_str(), r->typicalUs, "us", ratio,
                    "~1.5 us (0.8x..1.5x)", ratio >= 0.8 && ratio <= 1.5);
        }
        if (const BandwidthRow* r = rowFor(writeBw, 65536)) {
            const double ratio = r->typicalGBps / 3.0;
            verdict(out, "write_bw 65536 B typical", r->typicalGBps, "GB/s", ratio, "~3 GB/s (0.8x..1.1x)",
                    ratio >= 0.8 && ratio <= 1.1);
            std::fprintf(out, "  %-34s %8.2f GB/s  %7.2fx\n", "write_bw 65536 B average", r->avgGBps, r->avgGBps / 3.0);
        }
        if (const LatencyRow* r = smallest(sendLat)) {
            std::fprintf(out, "  %-34s %8.2f us     (model: ~1.5 us + software)\n",
                         ("send_lat " + std::to_string(r->bytes) + " B t_typical").c_str(), r->typicalUs);
        }
    } else {
        std::fprintf(out, "  no targets for link '%s'\n", link.c_str());
    }
    return true;
}

}  // namespace smcr::fabric::bench
