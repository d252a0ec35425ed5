// What a stored campaign shows beside its headline tables: the analysis the
// bench commands print, for any campaign whatever ran it, so that the GUI's
// Results page and its exports show it too.
//  - tcp_bw runs: both engines' counters per 1000 messages (db/report
//    datapath_tables.h, `smclab bench stream --counters`);
//  - workloads that store latency percentiles (http, kv, tcp_lat): p50 and
//    p99 tables ("SET p50 latency", as `smclab bench kv` prints them;
//    "Latency p50" for tcp_lat);
//  - a campaign of the datapath preset: its Shapes (datapath_verdicts.h).
#pragma once

#include <optional>

#include <smcr/result.h>

#include <QList>

#include "datapath_verdicts.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_table.h"
#include "smclab/report/report_document.h"

namespace smclab::orchestrator {

struct CampaignAnalysis {
    QList<report::ComparisonTable> tables;  // counter tables, then percentile tables
    std::optional<DatapathVerdicts> verdicts;
};

smcr::Result<CampaignAnalysis> campaignAnalysis(db::ResultStore& store, qint64 campaignId);

// Appends the analysis to `document`: its tables after the headline ones,
// the Shapes to its details.
smcr::Result<CampaignAnalysis> addCampaignAnalysis(db::ResultStore& store, qint64 campaignId,
                                                   report::ReportDocument& document);

}  // namespace smclab::orchestrator
