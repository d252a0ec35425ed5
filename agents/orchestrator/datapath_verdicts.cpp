#include "datapath_verdicts.h"

#include "datapath_columns.h"
#include "smclab/report/datapath_query.h"

namespace smclab::orchestrator {

std::vector<report::ShapeColumn> datapathShapeColumns() {
    const QStringList isolated = isolationColumnKeys();
    std::vector<report::ShapeColumn> out;
    for (const DatapathColumn& c : datapathColumns()) {
        out.push_back({c.key.toStdString(), c.label.toStdString(), isolated.contains(c.key)});
    }
    return out;
}

smcr::Result<std::optional<DatapathVerdicts>> datapathVerdicts(db::ResultStore& store, qint64 campaignId) {
    auto campaign = store.campaign(campaignId);
    if (!campaign) return smcr::fail(campaign.error());
    if (campaign->preset != QLatin1String(kDatapathPreset)) return std::optional<DatapathVerdicts>{};
    auto run = db::storedDatapathRun(store, campaignId, datapathShapeColumns());
    if (!run) return smcr::fail(run.error());
    return std::optional<DatapathVerdicts>{DatapathVerdicts{report::evaluateShapes(*run), run->link}};
}

}  // namespace smclab::orchestrator
