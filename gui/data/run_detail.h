// Everything stored about one run, as the single-run view shows it: the
// cell and its outcome (error of a failed run), its samples over time, live
// setting changes, settings snapshot, engine counters (non-zero ones first)
// results, the wire it ran over and the host's load. Loaded through the store's public read API.
#pragma once

#include <smcr/result.h>

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include "smclab/db/types.h"

namespace smclab::db {
class ResultStore;
}

namespace smclab::gui {

struct RunDetail {
    db::Run run;
    QList<db::Sample> samples;  // by time
    QList<db::SettingChange> changes;
    QString acknowledgedBy;  // the client agent, which acknowledged the live changes
    QMap<QString, QString> settings;
    QList<db::Counter> counters;  // non-zero first, then by side and name
    QMap<QString, double> results;
    db::HostFacts clientFacts;  // the wire ("wire.*") and host load ("host_state.*") among them

    static smcr::Result<RunDetail> load(db::ResultStore& store, qint64 runId);

    // The sample metrics in a stable order (throughput first, then latency, CPU, the rest).
    QStringList sampleMetrics() const;
    // Wide CSV: "t_ms,<metric>,..." one row per sample time; empty cells where
    // a metric has no value at that time. Throughput columns are named
    // *_MBps (10^6 bytes/s); with live changes a last column "live_change"
    // holds "name=value" at the time each applied (a row of its own).
    QString samplesCsv() const;
    int nonZeroCounterCount() const;
};

}  // namespace smclab::gui
