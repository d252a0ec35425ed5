// A workload's declared headline metrics (see headline_metrics.h).
#include "smclab/report/headline_metrics.h"

namespace smclab::report {

QString baseWorkload(const QString& storedName) {
    const qsizetype colon = storedName.indexOf(QLatin1Char(':'));
    return colon > 0 ? storedName.left(colon) : storedName;
}

smcr::Result<QStringList> headlineMetrics(const HeadlineMetrics& declared, const QString& storedName) {
    // "kv:SET" is the kv workload under the label SET (orchestrator's
    // storedWorkloadName): same headline as plain "kv".
    const QString workload = baseWorkload(storedName);
    const QStringList metrics = declared.value(workload);
    if (metrics.isEmpty()) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("workload %1 declares no headline metric, so no comparison table would show "
                                         "its runs (agents/workloads: Workload::headlineMetrics)")
                              .arg(storedName)
                              .toStdString());
    }
    return metrics;
}

}  // namespace smclab::report
