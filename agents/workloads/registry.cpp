#include "tool_workloads.h"
#include "workload.h"
#include "workload_list.h"

namespace smclab::workloads {

std::span<const Workload* const> workloadRegistry() {
    static const std::vector<const Workload*> kWorkloads = {
        &tcpBwWorkload(),     &tcpLatWorkload(),       &httpWorkload(),      &kvWorkload(),
        &qperfToolWorkload(), &nginxWrkToolWorkload(), &redisToolWorkload(), &iperf3ToolWorkload()};
    return kWorkloads;
}

QMap<QString, QStringList> headlineMetricsByWorkload() {
    QMap<QString, QStringList> out;
    for (const Workload* w : workloadRegistry()) {
        QStringList metrics;
        for (const std::string& metric : w->headlineMetrics()) metrics << QString::fromStdString(metric);
        out.insert(QString::fromStdString(w->name()), metrics);
    }
    return out;
}

const Workload* findWorkload(std::string_view name) {
    for (const Workload* w : workloadRegistry()) {
        if (w->name() == name) return w;
    }
    return nullptr;
}

bool reportsOnlyAtEnd(std::string_view workload) {
    for (const Workload* w : {&qperfToolWorkload(), &nginxWrkToolWorkload(), &redisToolWorkload()}) {
        if (w->name() == workload) return true;
    }
    return false;
}

}  // namespace smclab::workloads
