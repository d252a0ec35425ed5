// Which differences between two campaigns are outside the noise (`smclab
// compare A B`): every cell that both campaigns measured (same table, size
// and column label), B's median against A's with the distribution-free
// interval of the change (statistics.h). A difference is outside the noise
// when that interval excludes 0 %; cells with one repetition on a side have
// no interval and are counted apart.
#pragma once

#include <optional>

#include <QList>
#include <QString>

#include "smclab/report/comparison_table.h"
#include "smclab/report/report_document.h"
#include "smclab/report/statistics.h"

namespace smclab::report {

struct CampaignDifference {
    QString table;  // table title: "Bandwidth"
    QString unit;   // "MB/s"
    qint64 msgSize = 0;
    QString column;                // the label without the campaign prefix: "TCP"
    Cell a;                        // campaign A's cell
    Cell b;                        // campaign B's cell
    std::optional<Change> change;  // B against A; nullopt when a side has no value

    bool outsideNoise() const { return change && (change->noise == Noise::higher || change->noise == Noise::lower); }
};

// From tables whose columns are labelled `prefixA` + label and `prefixB` +
// label (db::comparisonTables(store, a, b) labels them "#<id> "): one entry
// per (table, size, label) that both have, in table, size, column order.
QList<CampaignDifference> campaignDifferences(const QList<ComparisonTable>& tables, const QString& prefixA,
                                              const QString& prefixB);

// The "==== Differences: B against A ====" text section, a table per
// comparison table, and a count of what is outside the noise.
QString formatDifferences(const QList<CampaignDifference>& differences, const QString& nameA, const QString& nameB);

// The same as a detail table (markdown, HTML and JSON carry it).
DetailTable differencesDetail(const QList<CampaignDifference>& differences, const QString& nameA, const QString& nameB);

}  // namespace smclab::report
