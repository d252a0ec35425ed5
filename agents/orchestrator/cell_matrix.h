// Matrix expansion: a campaign becomes an ordered list of cells, one run
// each (a server run plus a client run on one agent pair). Order: rounds
// (one per repetition), then workload, then size, then column. A round runs
// every cell of the matrix once, so the whole campaign has a first value
// before any repetition, and the repetitions of one cell are a round apart:
// slow drift of the machine and a neighbour's burst show up as spread in
// every column instead of as a difference between columns. Within a row the
// columns run back to back, and their order rotates by one each round
// (round r starts with column r mod columns), so no column always runs
// first after a change of size or always follows the same neighbour.
#pragma once

#include <cstdint>
#include <vector>

#include <QString>

#include "campaign_spec.h"

namespace smclab::orchestrator {

struct Cell {
    int index = 0;  // position in the campaign's cell list
    int workloadIndex = 0;
    int columnIndex = 0;
    uint64_t sizeBytes = 0;
    int repetition = 0;  // 0-based

    // Stable identity of a cell across resumes: "Bandwidth|TCP|4096|0".
    QString key(const CampaignSpec& spec) const;
};

std::vector<Cell> expandCells(const CampaignSpec& spec);

// The column that runs at position `slot` of a row in round `round`.
size_t roundColumn(size_t slot, int round, size_t columns);

// Time a cell costs beyond its measured duration and warm-up (connecting,
// run setup, the server's stop, the result round trip); the orchestrator
// replaces it by the overhead it measures once cells have run. The local lab
// measured 50-70 ms (agents/README.md: the demo's 216 cells of 0.5 s took
// 2 m 24 s); agents on other hosts add their network's round trips.
inline constexpr int kEstimatedCellOverheadMs = 150;

int64_t estimateCellMs(const CampaignSpec& spec, int64_t overheadMs = kEstimatedCellOverheadMs);
// All cells run one after another per pair; pairs run in parallel.
int64_t estimateCampaignMs(const CampaignSpec& spec, int cellCount, int64_t overheadMs = kEstimatedCellOverheadMs);

// "2h 05m", "3m 07s", "12s".
QString formatDurationMs(int64_t ms);
// A stored duration as it was stored, in the unit that keeps it exact:
// "500 ms", "1.5 s", "2 s", "0 s" (warm-ups and cell times in notes, where
// formatDurationMs' whole seconds would read 500 ms as "1s").
QString formatExactDurationMs(int64_t ms);

}  // namespace smclab::orchestrator
