// Engine counters per operation and latency percentiles from a stored
// campaign, as comparison tables. Counters table: for each size and column of one workload, the sum of a counter
// over the done runs divided by the sum of an operation count the runs
// stored ("requests", "ops"). The bench commands print these next to the
// cover-letter tables (CDC messages per request, RDMA writes per request).
#pragma once

#include <smcr/result.h>

#include <QList>
#include <QString>
#include <QStringList>

#include "smclab/db/result_store.h"
#include "smclab/report/comparison_table.h"

namespace smclab::db {

// A workload of a campaign as its runs are stored ("kv:SET") and as its
// tables name it ("SET").
struct StoredWorkload {
    QString stored;
    QString label;
};

struct CounterPerOp {
    QString workload;  // stored name ("http", "kv:SET")
    smcr::Side side = smcr::Side::server;
    QString counter;    // "smcr.cdc_sent"
    QString opsMetric;  // "requests"
    QString title;      // the table's title
};

// The p50 and p99 latency tables (results p50_us, p99_us) of every workload
// of `workloads`, in that order, titled by `titleFormat` with %1 the
// workload's label and %2 the percentile ("%1 %2 latency": "SET p50 latency").
QList<report::ComparisonTable> percentileTables(ResultStore& store, qint64 campaignId,
                                                const QList<StoredWorkload>& workloads, const QString& titleFormat);

// Columns in the order of `columns` (the campaign's column labels); a column
// without the counter (TCP) shows '-'.
smcr::Result<report::ComparisonTable> counterPerOpTable(ResultStore& store, qint64 campaignId,
                                                        const QStringList& columns, const CounterPerOp& what);

}  // namespace smclab::db
