#include "protocol/messages.h"

#include "protocol/json_number.h"

namespace smclab::protocol {

QJsonObject StartRun::toJson() const {
    QJsonObject object{
        {"type", type::kStartRun}, {"run_id", runId},           {"role", QLatin1String(smcr::sideName(role))},
        {"workload", workload},    {"transport", transport},    {"params", params},
        {"settings", settings},    {"duration_ms", durationMs}, {"sample_interval_ms", sampleIntervalMs}};
    if (warmupMs >= 0) object.insert("warmup_ms", warmupMs);
    if (!transportOptions.isEmpty()) object.insert("transport_options", transportOptions);
    if (role == smcr::Side::client) object.insert("peer", peer.toString());
    if (role == smcr::Side::server && !listen.address.isNull()) object.insert("listen", listen.toString());
    return object;
}

QJsonObject SetSettings::toJson() const {
    return QJsonObject{{"type", type::kSetSettings}, {"run_id", runId}, {"settings", settings}};
}

QJsonObject StopRun::toJson() const {
    return QJsonObject{{"type", type::kStopRun}, {"run_id", runId}};
}

QJsonObject RunReady::toJson() const {
    return QJsonObject{{"type", type::kRunReady}, {"run_id", runId}, {"address", address}, {"port", port}};
}

RunReady RunReady::fromJson(const QJsonObject& object) {
    return {object.value("run_id").toString(), object.value("address").toString(),
            static_cast<quint16>(object.value("port").toInt())};
}

QJsonObject LatencySummary::toJson() const {
    return QJsonObject{{"mean", meanUs}, {"p50", p50Us},   {"p90", p90Us},
                       {"p99", p99Us},   {"p999", p999Us}, {"max", maxUs}};
}

LatencySummary LatencySummary::fromJson(const QJsonValue& value) {
    if (!value.isObject()) return {};
    const QJsonObject object = value.toObject();
    return {true,
            object.value("mean").toDouble(),
            object.value("p50").toDouble(),
            object.value("p90").toDouble(),
            object.value("p99").toDouble(),
            object.value("p999").toDouble(),
            object.value("max").toDouble()};
}

QJsonObject Samples::toJson() const {
    QJsonObject object{{"type", type::kSamples},
                       {"run_id", runId},
                       {"seq", seq},
                       {"t_ms", tMs},
                       {"interval_ms", intervalMs},
                       {"warmup", warmup},
                       {"bytes", static_cast<double>(bytes)},
                       {"throughput_bps", throughputBps},
                       {"ops", static_cast<double>(ops)},
                       {"ops_per_sec", opsPerSec},
                       {"cpu", QJsonObject{{"user_percent", cpuUserPercent}, {"system_percent", cpuSystemPercent}}},
                       {"counters", counters}};
    if (latency.present) object.insert("latency_us", latency.toJson());
    return object;
}

Samples Samples::fromJson(const QJsonObject& object) {
    Samples samples;
    samples.runId = object.value("run_id").toString();
    samples.seq = toInt64(object.value("seq"));
    samples.tMs = toInt64(object.value("t_ms"));
    samples.intervalMs = toInt64(object.value("interval_ms"));
    samples.warmup = object.value("warmup").toBool();
    samples.bytes = toUInt64(object.value("bytes"));
    samples.throughputBps = object.value("throughput_bps").toDouble();
    samples.ops = toUInt64(object.value("ops"));
    samples.opsPerSec = object.value("ops_per_sec").toDouble();
    samples.latency = LatencySummary::fromJson(object.value("latency_us"));
    const QJsonObject cpu = object.value("cpu").toObject();
    samples.cpuUserPercent = cpu.value("user_percent").toDouble();
    samples.cpuSystemPercent = cpu.value("system_percent").toDouble();
    samples.counters = object.value("counters").toObject();
    return samples;
}

QJsonObject SettingsApplied::toJson() const {
    return QJsonObject{{"type", type::kSettingsApplied},
                       {"run_id", runId},
                       {"applied", applied},
                       {"at_ms", atMs},
                       {"at_wall_ms", atWallMs}};
}

SettingsApplied SettingsApplied::fromJson(const QJsonObject& object) {
    return {object.value("run_id").toString(), object.value("applied").toObject(), toInt64(object.value("at_ms")),
            toInt64(object.value("at_wall_ms"))};
}

QJsonObject RunResult::toJson() const {
    QJsonObject object{{"type", type::kRunResult},
                       {"run_id", runId},
                       {"state", runStateName(state)},
                       {"role", QLatin1String(smcr::sideName(role))},
                       {"workload", workload},
                       {"transport", transport},
                       {"duration_ms", durationMs},
                       {"started_at_wall_ms", startedAtWallMs},
                       {"ended_at_wall_ms", endedAtWallMs},
                       {"summary", summary},
                       {"histogram", histogram},
                       {"counters", counters},
                       {"settings", settings},
                       {"params", params},
                       {"cpu", cpu}};
    if (!error.isEmpty()) object.insert("error", error);
    if (!hostState.isEmpty()) object.insert("host_state", hostState);
    return object;
}

RunResult RunResult::fromJson(const QJsonObject& object) {
    RunResult result;
    result.runId = object.value("run_id").toString();
    result.state = runStateFromName(object.value("state").toString());
    result.error = object.value("error").toString();
    result.role = smcr::sideFromName(object.value("role").toString().toStdString());
    result.workload = object.value("workload").toString();
    result.transport = object.value("transport").toString();
    result.durationMs = toInt64(object.value("duration_ms"));
    result.startedAtWallMs = toInt64(object.value("started_at_wall_ms"));
    result.endedAtWallMs = toInt64(object.value("ended_at_wall_ms"));
    result.summary = object.value("summary").toObject();
    result.histogram = object.value("histogram").toObject();
    result.counters = object.value("counters").toObject();
    result.settings = object.value("settings").toObject();
    result.params = object.value("params").toObject();
    result.cpu = object.value("cpu").toObject();
    result.hostState = object.value("host_state").toObject();
    return result;
}

}  // namespace smclab::protocol
