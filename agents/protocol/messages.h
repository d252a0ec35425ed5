// The run messages of the control protocol (PROTOCOL.md, "Messages"), as
// typed structs with their JSON form. Controller -> agent messages are parsed
// strictly by validator.h; agent -> controller messages are read leniently
// here (a newer agent may add fields).
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include "protocol/endpoint.h"
#include "protocol/states.h"

namespace smclab::protocol {

// Message "type" values.
namespace type {
// controller -> agent
inline constexpr const char* kStartRun = "start_run";
inline constexpr const char* kSetSettings = "set_settings";
inline constexpr const char* kStopRun = "stop_run";
inline constexpr const char* kStatus = "status";
// agent -> controller
inline constexpr const char* kHello = "hello";
inline constexpr const char* kRunAccepted = "run_accepted";
inline constexpr const char* kRunReady = "run_ready";
inline constexpr const char* kRunState = "run_state";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kSettingsApplied = "settings_applied";
inline constexpr const char* kRunStopping = "run_stopping";
inline constexpr const char* kRunResult = "run_result";
inline constexpr const char* kStatusReply = "status_reply";
inline constexpr const char* kError = "error";
}  // namespace type

// Protocol-level bounds; an agent may be stricter (--max-duration), and says
// so in hello.capabilities.limits.
inline constexpr qint64 kMinDurationMs = 100;
inline constexpr qint64 kMaxDurationMs = 86'400'000;  // one day
inline constexpr qint64 kMinSampleIntervalMs = 50;
inline constexpr qint64 kMaxSampleIntervalMs = 60'000;
inline constexpr qint64 kDefaultSampleIntervalMs = 1000;
inline constexpr int kMaxRunIdChars = 64;
inline constexpr int kMaxMapEntries = 64;
inline constexpr qint64 kMaxRequestId = 9'007'199'254'740'991;  // 2^53 - 1
inline constexpr qint64 kMaxMessageBytes = 1 << 20;

struct StartRun {
    QString runId;
    smcr::Side role = smcr::Side::invalid;
    QString workload;
    QString transport;
    QJsonObject params;            // workload parameters, checked by the workload itself
    QJsonObject settings;          // transport settings, applied before traffic starts
    QJsonObject transportOptions;  // fixed for the run, e.g. smcr "fabric": "sim"
    Endpoint peer;                 // client role: the server's ADDR:PORT (required)
    Endpoint listen;               // server role: where to listen (default 0.0.0.0:0)
    qint64 durationMs = 0;
    qint64 warmupMs = -1;  // -1 = absent: the workload's own default applies
    qint64 sampleIntervalMs = kDefaultSampleIntervalMs;

    QJsonObject toJson() const;
};

struct SetSettings {
    QString runId;
    QJsonObject settings;
    QJsonObject toJson() const;
};

struct StopRun {
    QString runId;
    QJsonObject toJson() const;
};

struct RunReady {
    QString runId;
    QString address;  // the address the server bound (may be 0.0.0.0)
    quint16 port = 0;
    QJsonObject toJson() const;
    static RunReady fromJson(const QJsonObject& object);
};

struct LatencySummary {
    bool present = false;  // false for workloads that measure no latency
    double meanUs = 0;
    double p50Us = 0;
    double p90Us = 0;
    double p99Us = 0;
    double p999Us = 0;
    double maxUs = 0;
    QJsonObject toJson() const;
    static LatencySummary fromJson(const QJsonValue& value);
};

// One interval of a running run.
struct Samples {
    QString runId;
    qint64 seq = 0;            // 0, 1, 2... per run
    qint64 tMs = 0;            // end of the interval, monotonic ms since the run started
    qint64 intervalMs = 0;     // length of the interval
    bool warmup = false;       // inside the warm-up (excluded from the result)
    quint64 bytes = 0;         // payload bytes in the interval
    double throughputBps = 0;  // bits per second over the interval
    quint64 ops = 0;           // messages, requests or round trips
    double opsPerSec = 0;
    LatencySummary latency;
    double cpuUserPercent = 0;  // agent process CPU over the interval (100 = one core)
    double cpuSystemPercent = 0;
    QJsonObject counters;  // engine / transport counters (cumulative)
    QJsonObject toJson() const;
    static Samples fromJson(const QJsonObject& object);
};

struct SettingsApplied {
    QString runId;
    QJsonObject applied;  // name -> value as now in force
    qint64 atMs = 0;      // monotonic ms since the run started when the change took effect
    qint64 atWallMs = 0;  // wall clock, ms since the Unix epoch
    QJsonObject toJson() const;
    static SettingsApplied fromJson(const QJsonObject& object);
};

struct RunResult {
    QString runId;
    RunState state = RunState::invalid;  // finished, stopped or failed
    QString error;                       // when failed
    smcr::Side role = smcr::Side::invalid;
    QString workload;
    QString transport;
    qint64 durationMs = 0;       // measured run time (monotonic)
    qint64 startedAtWallMs = 0;  // ms since the epoch
    qint64 endedAtWallMs = 0;
    QJsonObject summary;    // the workload's result (its toJson())
    QJsonObject histogram;  // latency histogram, if the workload has one
    QJsonObject counters;   // final engine / transport counters
    QJsonObject settings;   // settings snapshot at the end of the run
    QJsonObject params;     // the parameters the run used
    QJsonObject cpu;        // process CPU time over the run
    QJsonObject hostState;  // the host while the run ran (load, other CPU use, steal, MHz); empty = not reported
    QJsonObject toJson() const;
    static RunResult fromJson(const QJsonObject& object);
};

}  // namespace smclab::protocol

Q_DECLARE_METATYPE(smclab::protocol::RunReady)
Q_DECLARE_METATYPE(smclab::protocol::Samples)
Q_DECLARE_METATYPE(smclab::protocol::SettingsApplied)
Q_DECLARE_METATYPE(smclab::protocol::RunResult)
