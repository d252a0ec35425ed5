// Samples and results as JSON (the agent streams them; db stores them).
#include <sys/resource.h>

#include <QJsonArray>

#include "workload.h"

namespace smclab::workloads {

namespace {

QJsonObject countersJson(const transports::Counters& counters) {
    QJsonObject o;
    for (const transports::Counter& c : counters) o[QString::fromStdString(c.name)] = static_cast<double>(c.value);
    return o;
}

double seconds(const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

}  // namespace

CpuTimes CpuTimes::now() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

LatencySummary LatencySummary::fromHistogram(const HdrHistogram& h) {
    LatencySummary s;
    s.count = h.count();
    if (s.count == 0) return s;
    s.minUs = static_cast<double>(h.min()) / 1000.0;
    s.meanUs = h.mean() / 1000.0;
    s.stdevUs = h.stdev() / 1000.0;
    s.maxUs = static_cast<double>(h.max()) / 1000.0;
    s.p50Us = static_cast<double>(h.valueAtPercentile(50)) / 1000.0;
    s.p90Us = static_cast<double>(h.valueAtPercentile(90)) / 1000.0;
    s.p99Us = static_cast<double>(h.valueAtPercentile(99)) / 1000.0;
    s.p999Us = static_cast<double>(h.valueAtPercentile(99.9)) / 1000.0;
    return s;
}

QJsonObject LatencySummary::toJson() const {
    return {{"count", static_cast<double>(count)},
            {"min_us", minUs},
            {"mean_us", meanUs},
            {"stdev_us", stdevUs},
            {"max_us", maxUs},
            {"p50_us", p50Us},
            {"p90_us", p90Us},
            {"p99_us", p99Us},
            {"p999_us", p999Us}};
}

QJsonObject Sample::toJson() const {
    return {{"elapsed_sec", elapsedSec},
            {"interval_sec", intervalSec},
            {"warmup", warmup},
            {"bytes", static_cast<double>(bytes)},
            {"ops", static_cast<double>(ops)},
            {"mb_per_sec", mbPerSec},
            {"ops_per_sec", opsPerSec},
            {"latency", latency.toJson()},
            {"cpu", QJsonObject{{"user_sec", cpu.userSec}, {"system_sec", cpu.systemSec}}},
            {"cpu_percent", cpuPercent},
            {"counters", countersJson(counters)}};
}

QJsonObject RunResult::toJson() const {
    return {{"workload", QString::fromStdString(workload)},
            {"role", smcr::sideName(role)},
            {"transport", QString::fromStdString(transport)},
            {"params", params},
            {"elapsed_sec", elapsedSec},
            {"bytes", static_cast<double>(bytes)},
            {"ops", static_cast<double>(ops)},
            {"cpu", QJsonObject{{"user_sec", cpu.userSec}, {"system_sec", cpu.systemSec}}},
            {"summary", summary},
            {"latency", latency.toJson(1000.0, QStringLiteral("us"), true)},
            {"latency_hdr_base64", QString::fromLatin1(latency.toBytes().toBase64())},
            {"counters", countersJson(counters)}};
}

}  // namespace smclab::workloads
