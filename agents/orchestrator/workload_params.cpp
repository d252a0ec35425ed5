#include "workload_params.h"

namespace smclab::orchestrator {

namespace {

QJsonObject merged(QJsonObject base, const QJsonObject& overrides) {
    for (auto it = overrides.begin(); it != overrides.end(); ++it) base.insert(it.key(), it.value());
    return base;
}

}  // namespace

SizeParam sizeParamFor(const QString& workload) {
    if (workload == QLatin1String("tcp_bw") || workload == QLatin1String("tcp_lat"))
        return {ParamSide::client, "msg_size"};
    if (workload == QLatin1String("http")) return {ParamSide::server, "page_size"};
    if (workload == QLatin1String("kv")) return {ParamSide::client, "data_size"};
    // The tool workloads: qperf -m, the file nginx serves, redis-benchmark
    // -d, iperf3 -l.
    if (workload == QLatin1String("qperf")) return {ParamSide::client, "msg_size"};
    if (workload == QLatin1String("nginx-wrk")) return {ParamSide::server, "file_size"};
    if (workload == QLatin1String("redis")) return {ParamSide::client, "data_size"};
    if (workload == QLatin1String("iperf3")) return {ParamSide::client, "length"};
    return {};
}

QJsonObject clientParams(const WorkloadSpec& workload, const ColumnSpec& column, uint64_t sizeBytes) {
    QJsonObject params = merged(workload.params, column.params);
    const SizeParam size = sizeParamFor(workload.workload);
    if (size.side == ParamSide::client) params.insert(QLatin1String(size.name), static_cast<qint64>(sizeBytes));
    return params;
}

QJsonObject serverParams(const WorkloadSpec& workload, const ColumnSpec& column, uint64_t sizeBytes) {
    QJsonObject params = merged(workload.serverParams, column.serverParams);
    const SizeParam size = sizeParamFor(workload.workload);
    if (size.side == ParamSide::server) params.insert(QLatin1String(size.name), static_cast<qint64>(sizeBytes));
    return params;
}

}  // namespace smclab::orchestrator
