// Report tables built from seed 000's published numbers, shared by the
// report and store tests.
#pragma once

#include <QFile>
#include <QString>

#include "seed000.h"
#include "smclab/report/comparison_table.h"

namespace fixtures {

template <typename Rows>
smclab::report::ComparisonTable seedTable(const Rows& rows, const QString& metric) {
    const smclab::report::MetricInfo info = smclab::report::metricInfo(metric);
    smclab::report::ComparisonTable table;
    table.title = info.title;
    table.metric = metric;
    table.unit = info.unit;
    table.lowerIsBetter = info.lowerIsBetter;
    table.workload = metric == QLatin1String("bw_mbps") ? QStringLiteral("tcp_bw") : QStringLiteral("tcp_lat");
    table.columns = {QStringLiteral("Origin SMC"), QStringLiteral("TCP"), QStringLiteral("SMC with patches")};
    for (const auto& r : rows) {
        smclab::report::Row row;
        row.msgSize = r.msgSize;
        for (double v : r.values) row.cells.append({v, 0.0, 1});
        table.rows.append(row);
    }
    return table;
}

inline smclab::report::ComparisonTable bandwidth() {
    return seedTable(seed000::kBandwidth, QStringLiteral("bw_mbps"));
}
inline smclab::report::ComparisonTable latency() {
    return seedTable(seed000::kLatency, QStringLiteral("latency_us"));
}

inline QString goldenPath(const QString& name) {
    return QStringLiteral(SMCLAB_GOLDEN_DIR "/") + name;
}

inline QString readGolden(const QString& name) {
    QFile file(goldenPath(name));
    if (!file.open(QIODevice::ReadOnly)) return QString();
    return QString::fromUtf8(file.readAll());
}

}  // namespace fixtures
