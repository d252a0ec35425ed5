// The headline metrics of each workload: which stored metrics get a
// comparison table, in table order ("tcp_bw" -> bw_mbps). The workloads
// declare them (agents/workloads Workload::headlineMetrics(), all of them
// by name in workloads::headlineMetricsByWorkload()); whoever builds a
// report passes the table in, so neither the report nor the store knows a
// workload.
#pragma once

#include <smcr/result.h>

#include <QMap>
#include <QString>
#include <QStringList>

namespace smclab::report {

// Workload name as registered ("kv", "nginx-wrk") -> its headline metrics as
// stored ("bw_mbps", "latency_us", "rps"), in table order.
using HeadlineMetrics = QMap<QString, QStringList>;

// "kv" for "kv:SET": a campaign with two entries of one workload stores
// them as WORKLOAD:LABEL (see orchestrator run_record.h).
QString baseWorkload(const QString& storedName);

// The declared headline metrics of a stored workload name ("tcp_bw",
// "kv:GET"). Errc::notFound, naming the workload, when it declares none:
// its runs would be in no table, and a report must not drop them unseen.
smcr::Result<QStringList> headlineMetrics(const HeadlineMetrics& declared, const QString& storedName);

}  // namespace smclab::report
