// A stored tcp_bw / tcp_lat campaign as grids: per test, message size and
// column, the median of the repetitions (the figures `smclab bench stream`
// prints) and every repetition's value (the intervals of the datapath
// shapes, datapath_shapes.h), with both engines' counters summed over the
// repetitions. The runs are ordinary tcp_bw / tcp_lat runs of the agents'
// workloads, whether `smclab bench stream`, `smclab run` or the GUI ran them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <smcr/result.h>

#include <QStringList>

namespace smclab::db {
class ResultStore;
}

namespace smclab::report {

// Engine counters by their flat smc_stats-like names ("smcr.cq_events").
using CounterMap = std::map<std::string, uint64_t>;

enum class StreamTest : uint32_t { invalid = 0, bw = 1, lat = 2 };

const char* streamTestName(StreamTest test);  // "tcp_bw", "tcp_lat"

struct StreamResult {
    bool ok = false;       // at least one repetition finished
    double bwMBs = 0;      // 10^6 bytes/s at the receiver (tcp_bw), median
    double latMeanUs = 0;  // one-way (tcp_lat), medians of the repetitions' mean, p50, p99
    double latP50Us = 0;
    double latP99Us = 0;
    int repetitions = 0;    // finished runs behind the figures
    uint64_t messages = 0;  // application messages the server received, all repetitions
    // tcp_bw: CPU time of both processes per message, us, median (qperf's
    // send_cost + recv_cost); -1 when the runs did not report it.
    double cpuUsPerMessage = -1;
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

}  // namespace smclab::report

namespace smclab::db {

// The done runs of `campaignId` whose column label is in `columns` and
// size in `sizes`; a test that did not run leaves its grid empty.
smcr::Result<report::StreamGrid> readStreamGrid(db::ResultStore& store, qint64 campaignId,
                                                const std::vector<uint64_t>& sizes, const QStringList& columns,
                                                const std::vector<report::StreamTest>& tests);

}  // namespace smclab::db
