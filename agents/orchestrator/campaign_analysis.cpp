#include "campaign_analysis.h"

#include <algorithm>

#include "campaign_json.h"
#include "run_record.h"
#include "smclab/report/datapath_query.h"
#include "smclab/report/datapath_tables.h"
#include "smclab/report/stored_counters.h"

namespace smclab::orchestrator {

namespace {

// The campaign's workloads as stored and labelled: from its spec, else (a
// campaign stored without one) by the names its runs carry.
QList<db::StoredWorkload> workloadsOf(const db::Campaign& campaign, const QList<db::Run>& runs) {
    if (auto spec = campaignFromJson(campaign.spec); spec && !spec->workloads.empty()) return storedWorkloads(*spec);
    QList<db::StoredWorkload> out;
    for (const db::Run& run : runs) {
        const QString& stored = run.cell.workload;
        const bool known =
            std::any_of(out.begin(), out.end(), [&](const db::StoredWorkload& w) { return w.stored == stored; });
        if (known) continue;
        const qsizetype colon = stored.indexOf(QLatin1Char(':'));
        out.append({stored, colon > 0 ? stored.mid(colon + 1) : stored});
    }
    return out;
}

bool hasValue(const report::ComparisonTable& table) {
    return std::any_of(table.rows.begin(), table.rows.end(), [](const report::Row& row) {
        return std::any_of(row.cells.begin(), row.cells.end(),
                           [](const report::Cell& c) { return c.value.has_value(); });
    });
}

}  // namespace

smcr::Result<CampaignAnalysis> campaignAnalysis(db::ResultStore& store, qint64 campaignId) {
    auto campaign = store.campaign(campaignId);
    if (!campaign) return smcr::fail(campaign.error());
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    CampaignAnalysis out;
    const bool streams = std::any_of(runs->begin(), runs->end(), [](const db::Run& r) {
        return r.status == db::RunStatus::done && r.cell.workload == QLatin1String("tcp_bw");
    });
    if (streams) {
        auto run = db::storedDatapathRun(store, campaignId, datapathShapeColumns());
        if (!run) return smcr::fail(run.error());
        out.tables = report::perMessageCounterTables(*run);
    }
    for (const db::StoredWorkload& workload : workloadsOf(*campaign, *runs)) {
        // "SET p50 latency", but "Latency p50" for a workload named for it.
        const bool named = workload.label.contains(QLatin1String("latency"), Qt::CaseInsensitive);
        const QString title = named ? QStringLiteral("%1 %2") : QStringLiteral("%1 %2 latency");
        // A workload that does not store a percentile gives a table without values.
        for (const report::ComparisonTable& table : db::percentileTables(store, campaignId, {workload}, title)) {
            if (hasValue(table)) out.tables.append(table);
        }
    }
    auto verdicts = datapathVerdicts(store, campaignId);
    if (!verdicts) return smcr::fail(verdicts.error());
    out.verdicts = std::move(*verdicts);
    return out;
}

smcr::Result<CampaignAnalysis> addCampaignAnalysis(db::ResultStore& store, qint64 campaignId,
                                                   report::ReportDocument& document) {
    auto analysis = campaignAnalysis(store, campaignId);
    if (!analysis) return analysis;
    document.tables += analysis->tables;
    if (analysis->verdicts) document.details.append(report::shapesTable(analysis->verdicts->shapes));
    return analysis;
}

}  // namespace smclab::orchestrator
