// Matrix expansion: a campaign becomes an ordered list of cells, one run
// each (a server run plus a client run on one agent pair). Order: workload,
// then repetition, then size, then column, so the columns of one table row
// run back to back (slow drift of the machine hits every column alike) and
// every row of a table is filled once before repetitions add to it.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

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

// Time a cell costs beyond its measured duration and warm-up (connecting,
// run setup, the result round trip); the orchestrator replaces it by the
// overhead it measures once cells have run.
inline constexpr int kEstimatedCellOverheadMs = 400;

int64_t estimateCellMs(const CampaignSpec& spec, int64_t overheadMs = kEstimatedCellOverheadMs);
// All cells run one after another per pair; pairs run in parallel.
int64_t estimateCampaignMs(const CampaignSpec& spec, int cellCount, int64_t overheadMs = kEstimatedCellOverheadMs);

// "2h 05m", "3m 07s", "12s".
QString formatDurationMs(int64_t ms);

}  // namespace smclab::orchestrator
