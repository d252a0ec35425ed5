#include "preset_scaling.h"

#include <algorithm>

#include <QJsonArray>

namespace smclab::orchestrator {

namespace {

struct Cap {
    const char* key;
    const char* what;  // as the tool spells it, for the note
    qint64 limit;
};

// Lowers numeric params above their limit; one note per distinct change.
void capParams(QJsonObject& params, const std::vector<Cap>& caps, QStringList& notes) {
    for (const Cap& cap : caps) {
        const QJsonValue v = params.value(QLatin1String(cap.key));
        if (!v.isDouble() || v.toInteger() <= cap.limit) continue;
        const QString note =
            QStringLiteral("%1 %2 -> %3").arg(QLatin1String(cap.what)).arg(v.toInteger()).arg(cap.limit);
        if (!notes.contains(note)) notes << note;
        params.insert(QLatin1String(cap.key), cap.limit);
    }
}

}  // namespace

bool scalingApplies(const HostScale& host) {
    return host.quick || host.cpuCount <= 2;
}

QStringList scaleToolPreset(CampaignSpec& spec, const HostScale& host) {
    QStringList notes;
    if (!scalingApplies(host) && !host.oneHost) return notes;
    // Each side of a local lab gets half the host.
    const qint64 perSide = std::max(1, host.oneHost ? host.cpuCount / 2 : host.cpuCount);
    const bool shrink = scalingApplies(host);
    bool countsRequests = false;
    for (WorkloadSpec& workload : spec.workloads) {
        const bool redis = workload.workload == QLatin1String("redis");
        countsRequests = countsRequests || redis;
        if (shrink) {
            if (workload.workload == QLatin1String("nginx-wrk")) {
                capParams(workload.params, {{"threads", "wrk -t", perSide}, {"connections", "wrk -c", 100 * perSide}},
                          notes);
                capParams(workload.serverParams, {{"workers", "nginx worker_processes", perSide}}, notes);
            }
            if (redis) {
                const qint64 requests = host.quick ? 20'000 : 200'000;
                capParams(
                    workload.params,
                    {{"threads", "redis-benchmark --threads", perSide}, {"requests", "redis-benchmark -n", requests}},
                    notes);
                capParams(workload.serverParams, {{"io_threads", "redis-server --io-threads", perSide}}, notes);
            }
        }
        // taskset -c 1 on each of two machines: on one host the two ends
        // take one CPU each (or none is pinned on a single CPU).
        if (host.oneHost && workload.params.value(QLatin1String("cpu")).toInteger(-1) >= 0 &&
            workload.serverParams.value(QLatin1String("cpu")).toInteger(-1) >= 0) {
            const bool two = host.cpuCount >= 2;
            workload.params.insert(QStringLiteral("cpu"), two ? 1 : -1);
            workload.serverParams.insert(QStringLiteral("cpu"), two ? 0 : -1);
            const QString note =
                two ? QStringLiteral("taskset -c 1 on each machine -> server CPU 0, client CPU 1 (one host)")
                    : QStringLiteral("taskset -c 1 dropped (one CPU)");
            if (!notes.contains(note)) notes << note;
        }
    }
    if (shrink && !countsRequests) {
        // qperf -t, wrk -d: whole seconds.
        const int durationMs = host.quick ? 1000 : std::min(spec.durationMs, 5000);
        if (durationMs < spec.durationMs) {
            notes << QStringLiteral("duration %1 s -> %2 s").arg(spec.durationMs / 1000.0).arg(durationMs / 1000.0);
            spec.durationMs = durationMs;
        }
    }
    if (host.quick && countsRequests && spec.durationMs > 30'000) {
        // redis-benchmark's time is its request count; duration only bounds it.
        notes << QStringLiteral("time limit %1 s -> 30 s").arg(spec.durationMs / 1000);
        spec.durationMs = 30'000;
    }
    if (host.quick) {
        if (spec.sizes.size() > 3) {
            const std::vector<uint64_t> quickSizes = {spec.sizes.front(), 1024, spec.sizes.back()};
            notes << QStringLiteral("sizes %1 -> 3 (%2, 1024, %3)")
                         .arg(spec.sizes.size())
                         .arg(spec.sizes.front())
                         .arg(spec.sizes.back());
            spec.sizes = quickSizes;
        }
        if (spec.repetitions > 1) {
            notes << QStringLiteral("repetitions %1 -> 1").arg(spec.repetitions);
            spec.repetitions = 1;
        }
    }
    if (!notes.isEmpty()) {
        const QString why = host.quick ? QStringLiteral("--quick") : QStringLiteral("%1 CPUs").arg(host.cpuCount);
        spec.description +=
            QStringLiteral(". Scaled for this host (%1): %2").arg(why, notes.join(QStringLiteral("; ")));
    }
    return notes;
}

}  // namespace smclab::orchestrator
