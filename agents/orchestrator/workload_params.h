// Where a cell's size goes and how the parameters of both sides are put
// together: the workload's own params, the column's overrides, then the
// cell's size under the workload's size parameter.
#pragma once

#include <cstdint>

#include <QJsonObject>
#include <QString>

#include "campaign_spec.h"

namespace smclab::orchestrator {

enum class ParamSide { invalid = 0, client, server };

struct SizeParam {
    ParamSide side = ParamSide::invalid;
    const char* name = nullptr;  // nullptr: the workload has no size parameter
};

// tcp_bw / tcp_lat: client msg_size (qperf -m); http: server page_size (the
// body of the page the server generates and serves); kv: client data_size
// (redis-benchmark -d); qperf: client msg_size; nginx-wrk: server file_size;
// redis: client data_size; iperf3: client length (-l).
SizeParam sizeParamFor(const QString& workload);

QJsonObject clientParams(const WorkloadSpec& workload, const ColumnSpec& column, uint64_t sizeBytes);
QJsonObject serverParams(const WorkloadSpec& workload, const ColumnSpec& column, uint64_t sizeBytes);

}  // namespace smclab::orchestrator
