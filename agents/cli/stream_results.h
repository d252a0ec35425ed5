// What `smclab bench stream` reads back from the store after its campaign
// ran: per test, message size and column, the median of the repetitions
// (the figures its tables print) and every repetition's value (the
// intervals of the shapes), with both engines' counters summed over the
// repetitions. The campaign's runs are ordinary tcp_bw / tcp_lat runs of
// the agents' workloads: one measuring pipeline with `smclab run` and the
// demo.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <smcr/result.h>

#include <QStringList>

#include "bench_settings.h"

namespace smclab::db {
class ResultStore;
}

namespace smclab::cli {

enum class StreamTest : uint32_t { invalid = 0, bw = 1, lat = 2 };

const char* streamTestName(StreamTest test);  // "tcp_bw", "tcp_lat"

struct StreamResult {
    bool ok = false;       // at least one repetition finished
    double bwMBs = 0;      // 10^6 bytes/s at the receiver (tcp_bw), median
    double latMeanUs = 0;  // one-way (tcp_lat), medians of the repetitions' mean, p50, p99
    double latP50Us = 0;
    double latP99Us = 0;
    int repetitions = 0;        // finished runs behind the figures
    uint64_t messages = 0;      // application messages the server received, all repetitions
    CounterMap serverCounters;  // server engine, change over the runs (smcr only)
    CounterMap clientCounters;  // client engine, change over the runs (smcr only)
    // Some repetition moved its data over TCP, not SMC-R (db/report
    // connection_use.h): the Shapes leave the cell out.
    bool overTcp = false;
};

// [size][column] grids, sizes and columns in the caller's order.
struct StreamGrid {
    std::vector<std::vector<StreamResult>> bw;
    std::vector<std::vector<StreamResult>> lat;
    std::vector<std::vector<std::vector<double>>> bwSamples;   // every repetition's MB/s
    std::vector<std::vector<std::vector<double>>> latSamples;  // every repetition's mean latency, us
};

// The done runs of `campaignId` whose column label is in `columns` and
// size in `sizes`; a test that did not run leaves its grid empty.
smcr::Result<StreamGrid> readStreamGrid(db::ResultStore& store, qint64 campaignId, const std::vector<uint64_t>& sizes,
                                        const QStringList& columns, const std::vector<StreamTest>& tests);

}  // namespace smclab::cli
