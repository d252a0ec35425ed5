// The shapes a run of the datapath preset must reproduce (the patch
// series' cover letter and commit messages), checked on the numbers and
// engine counters of one campaign, whether `smclab bench stream --preset
// datapath` ran it or `smclab run`, the demo or the GUI:
//   - autocorking >= 3x the no-cork bandwidth at 1..512 B (patch #2: "qperf
//     small-msg bw x3-4");
//   - autocorking latency within +-5% of no-cork at every size ("without
//     trade-off for latency");
//   - the window-update limit fix alone >= +30% bandwidth at 2, 4, 8 KiB;
//   - drain_then_arm >= 2x fewer CQ wake-ups per message under tcp_bw, with
//     bandwidth within 5% ("decrease the number of hardirq when busy");
//   - tx deferral halves the pushes done in completion context, bandwidth
//     within 5%;
//   ("within 5%" counts as met when bandwidth is at most 5% lower: the
//   claim is that the counter falls at no throughput cost);
//   - on the ideal link: SMC with patches >= 10x TCP's bandwidth at 1 B (a
//     user-space send costs no system call) and >= TCP at every size.
// Counter ratios are per application message, client and server engines
// summed, combined over sizes as a geometric mean of per-size ratios.
//
// Verdicts come from intervals, never from one number: each
// size's ratio of the two columns has the distribution-free interval of
// report/statistics.h over the repetitions (bwSamples / latSamples). A
// shape PASSes when every size's interval clears the threshold, MISSes when
// some size's interval lies wholly on the wrong side, and is INCONCLUSIVE
// otherwise, including a run with one repetition per cell (no interval).
// Counter ratios are counts, not timings, and are taken as they are; the
// "bandwidth not >5% lower" half of a counter shape uses the intervals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "smclab/report/stream_grid.h"

namespace smclab::report {

// Counter names the shapes read (EngineStats::flatten()).
inline constexpr const char* kCqWakeupsCounter = "smcr.cq_events";
inline constexpr const char* kCompletionPushesCounter = "smcr.push_completion";

// A column as the shapes know it: by the key of the datapath preset's
// column (agents/orchestrator/datapath_columns.h), which the caller maps.
struct ShapeColumn {
    std::string key;         // "nocork", "autocork", "tcp", ...
    std::string label;       // table header: "SMC-NoCork", ...
    bool isolation = false;  // one of the columns that isolate one change (--isolate)
};

struct DatapathRun {
    std::string link;                  // "ideal", "cx4-25g"
    std::vector<ShapeColumn> columns;  // table order
    // Every column the preset knows, to name one a shape needs and the run lacks.
    std::vector<ShapeColumn> known;
    std::vector<uint64_t> sizes;
    // [size][column]; empty when the test was not run.
    std::vector<std::vector<StreamResult>> bw;
    std::vector<std::vector<StreamResult>> lat;
    // [size][column] -> every repetition's bandwidth (MB/s) / mean latency
    // (us); empty, or a cell left empty, means the one StreamResult above.
    std::vector<std::vector<std::vector<double>>> bwSamples;
    std::vector<std::vector<std::vector<double>>> latSamples;
};

enum class ShapeVerdict { invalid = 0, pass, miss, inconclusive, notMeasured };
const char* shapeVerdictName(ShapeVerdict verdict);  // "PASS", "MISS", "INCONCLUSIVE", "--"

struct ShapeResult {
    std::string key;    // "autocork_bw", ...
    std::string title;  // what the issue asks
    std::string link;   // the link the issue states it for
    ShapeVerdict verdict = ShapeVerdict::invalid;
    std::string measured;  // the figures, or why it was not measured
    double ratio = 0;      // the main figure (x, or a fraction for +-%); 0 when not measured
};

std::vector<ShapeResult> evaluateShapes(const DatapathRun& run);

// Per application message, client + server; -1 when the counter is absent.
double countersPerMessage(const StreamResult& r, const std::string& counter);

}  // namespace smclab::report
