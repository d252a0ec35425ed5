#include "smclab/report/stored_counters.h"

#include <map>
#include <set>
#include <utility>

#include "smclab/report/comparison_query.h"

namespace smclab::db {

QList<report::ComparisonTable> percentileTables(ResultStore& store, qint64 campaignId,
                                                const QList<StoredWorkload>& workloads, const QString& titleFormat) {
    QList<report::ComparisonTable> out;
    for (const StoredWorkload& workload : workloads) {
        for (const char* percentile : {"p50", "p99"}) {
            auto table =
                metricTable(store, campaignId, workload.stored, QLatin1String(percentile) + QStringLiteral("_us"));
            if (!table) continue;
            // Either placeholder may be absent, so no QString::arg.
            table->title = QString(titleFormat)
                               .replace(QStringLiteral("%1"), workload.label)
                               .replace(QStringLiteral("%2"), QLatin1String(percentile));
            out.append(*table);
        }
    }
    return out;
}

smcr::Result<report::ComparisonTable> counterPerOpTable(ResultStore& store, qint64 campaignId,
                                                        const QStringList& columns, const CounterPerOp& what) {
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    struct Sum {
        double counter = 0;
        double ops = 0;
        bool seen = false;  // the counter exists on this cell's runs
    };
    std::map<std::pair<qint64, int>, Sum> sums;  // (size, column) -> sums
    std::set<qint64> sizes;
    for (const Run& run : *runs) {
        const int column = static_cast<int>(columns.indexOf(run.cell.column));
        if (run.status != RunStatus::done || column < 0 || run.cell.workload != what.workload) continue;
        auto results = store.results(run.id);
        if (!results) return smcr::fail(results.error());
        auto counters = store.counters(run.id);
        if (!counters) return smcr::fail(counters.error());
        Sum& sum = sums[{run.cell.msgSize, column}];
        sizes.insert(run.cell.msgSize);
        sum.ops += results->value(what.opsMetric);
        for (const Counter& c : *counters) {
            if (c.side != what.side || c.name != what.counter) continue;
            sum.counter += static_cast<double>(c.value);
            sum.seen = true;
        }
    }
    report::ComparisonTable t;
    t.title = what.title;
    t.metric = what.counter;
    t.lowerIsBetter = true;
    t.workload = what.workload;
    t.columns = columns;
    for (qint64 size : sizes) {
        report::Row row;
        row.msgSize = size;
        for (int column = 0; column < static_cast<int>(columns.size()); ++column) {
            report::Cell cell;
            const auto it = sums.find({size, column});
            if (it != sums.end() && it->second.seen && it->second.ops > 0) {
                cell.value = it->second.counter / it->second.ops;
                cell.repetitions = 1;
            }
            row.cells.append(cell);
        }
        t.rows.append(row);
    }
    return t;
}

}  // namespace smclab::db
