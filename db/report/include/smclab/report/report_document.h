// Everything one report shows: the comparison tables, engine counters and
// settings as labelled matrices, and the provenance of the runs (hosts,
// kernel, link model, dates). Built by db/ (reportDocument()) or by hand.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include "smclab/report/comparison_table.h"

namespace smclab::report {

struct DetailRow {
    QString name;
    QStringList values;  // one per DetailTable::columns entry; empty = missing

    bool operator==(const DetailRow&) const = default;
};

// A labelled matrix of already formatted values: engine counters per
// column, the settings snapshot per column.
struct DetailTable {
    QString title;        // "Engine counters (sum over runs)", "Settings"
    QStringList columns;  // same labels as the comparison columns
    QList<DetailRow> rows;

    bool operator==(const DetailTable&) const = default;
};

struct KeyValue {
    QString key;
    QString value;

    bool operator==(const KeyValue&) const = default;
};

// One block of provenance: "Campaign", "Client host", "Server host", ...
struct ProvenanceSection {
    QString title;
    QList<KeyValue> entries;

    bool operator==(const ProvenanceSection&) const = default;
};

struct ReportDocument {
    QString title;        // "smclab campaign 3: datapath"
    QString generatedAt;  // ISO 8601 UTC, set by the caller (keeps formatters pure)
    QList<ComparisonTable> tables;
    QList<DetailTable> details;
    QList<ProvenanceSection> provenance;

    bool operator==(const ReportDocument&) const = default;
};

}  // namespace smclab::report
