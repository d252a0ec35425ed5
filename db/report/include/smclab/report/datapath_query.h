// A stored campaign as the datapath shapes read it (datapath_shapes.h):
// its tcp_bw and tcp_lat runs as grids (stream_grid.h), its columns in the
// order of its tables (ResultStore::columns) named by the preset's keys
// through `known`, its sizes, and the link model its SMC runs were given.
#pragma once

#include <vector>

#include <smcr/result.h>

#include "smclab/db/result_store.h"
#include "smclab/report/datapath_shapes.h"

namespace smclab::db {

// A column whose label `known` lacks keeps its label as its key, so no
// shape reads it.
smcr::Result<report::DatapathRun> storedDatapathRun(ResultStore& store, qint64 campaignId,
                                                    const std::vector<report::ShapeColumn>& known);

}  // namespace smclab::db
