// The datapath shapes (PASS, MISS, INCONCLUSIVE; db/report datapath_shapes.h)
// of a stored campaign of the datapath preset, with the preset's columns
// named for them: what `smclab report`, `smclab run --html`, the demo and
// the GUI's Results page and exports show beside the tables (through
// campaign_analysis.h), the same verdicts `smclab bench stream --preset
// datapath` prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <smcr/result.h>

#include "smclab/db/result_store.h"
#include "smclab/report/datapath_shapes.h"

namespace smclab::orchestrator {

// Every column of the datapath preset as the shapes know it (key, label,
// whether it isolates one change).
std::vector<report::ShapeColumn> datapathShapeColumns();

struct DatapathVerdicts {
    std::vector<report::ShapeResult> shapes;
    std::string link;  // the link model of its SMC runs; the shapes name theirs where it differs
};

// nullopt for a campaign of another preset.
smcr::Result<std::optional<DatapathVerdicts>> datapathVerdicts(db::ResultStore& store, qint64 campaignId);

}  // namespace smclab::orchestrator
