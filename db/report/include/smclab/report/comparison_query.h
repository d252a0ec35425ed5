// From stored runs to the report model (smclab/report): the comparison
// tables of a campaign, or of two campaigns side by side, and a whole
// ReportDocument with counters, settings and provenance.
//
// Tables: one per (workload, headline metric) in plan order, the headline
// metrics as the workloads declare them (headline_metrics.h: tcp_bw ->
// bw_mbps, "Bandwidth", MB/s; tcp_lat -> latency_us, "Latency", us; http
// and kv -> rps), passed in by the caller; a workload that declares none
// makes the query fail (Errc::notFound, naming it). Rows are
// message sizes, columns the campaign's column labels in plan order (the
// first is the baseline); a cell is the median of the done repetitions with
// their sample standard deviation, their values and the median's interval
// (report/statistics.h), and how many of them ran on a busy host (the
// client-side fact host_state.busy = yes).
//
// Two campaigns: the same tables with A's columns then B's, labelled
// "#<id> <label>" (e.g. "#3 TCP"); A's first column is the baseline.
#pragma once

#include <smcr/result.h>

#include <QDateTime>
#include <QList>

#include "smclab/db/result_store.h"
#include "smclab/report/headline_metrics.h"
#include "smclab/report/report_document.h"

namespace smclab::db {

smcr::Result<QList<report::ComparisonTable>> comparisonTables(ResultStore& store, qint64 campaignId,
                                                              const report::HeadlineMetrics& headlines);
smcr::Result<QList<report::ComparisonTable>> comparisonTables(ResultStore& store, qint64 campaignA, qint64 campaignB,
                                                              const report::HeadlineMetrics& headlines);

// One table of any stored metric of one workload ("kv:SET", "p99_us"), built
// like the headline tables (titles and units from report::metricInfo).
smcr::Result<report::ComparisonTable> metricTable(ResultStore& store, qint64 campaignId, const QString& workload,
                                                  const QString& metric);

// The full report of one campaign: tables, engine counters per column,
// settings per column, provenance (campaign, hosts of both ends, dates).
// `generatedAt` is printed as the report date.
smcr::Result<report::ReportDocument> campaignReport(ResultStore& store, qint64 campaignId,
                                                    const report::HeadlineMetrics& headlines,
                                                    const QDateTime& generatedAt);
smcr::Result<report::ReportDocument> compareReport(ResultStore& store, qint64 campaignA, qint64 campaignB,
                                                   const report::HeadlineMetrics& headlines,
                                                   const QDateTime& generatedAt);

}  // namespace smclab::db
