// The workload interface: tcp_bw, tcp_lat, http and kv, found by name, each
// runnable as server or client over any transport (transport.h).
//
// One run = Workload::run(RunContext) on the caller's thread (the CLI's main
// thread, or a worker thread of smclab-agent). The run blocks until it
// finishes, fails, or ctx.stop becomes true; it reports progress through
// ctx.onSample every ctx.sampleIntervalMs (called on the run's thread) and
// returns a RunResult. Parameters arrive as a QJsonObject and are checked
// against the workload's schema first (validateParams), so the agent can
// answer bad input with an error naming the field before anything starts.
//
// Live settings do not pass through the workload: the caller keeps the
// shared Transport it put in the RunContext and calls
// Transport::applySetting on it while the run goes on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <smcr/result.h>
#include <smcr/side.h>

#include <QJsonObject>
#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QStringList>

#include "hdr_histogram.h"
#include "transport.h"

namespace smclab::workloads {

using smcr::Result;
using smcr::Status;

// ---- parameters --------------------------------------------------------------

enum class ParamType {
    invalid = 0,
    integer,     // JSON number (integral)
    size,        // bytes: JSON number, or a string with qperf suffixes ("64K" = 65536, "64k" = 64000)
    durationMs,  // milliseconds: JSON number, or a string "2s", "500ms", "1m"
    boolean,     // JSON true/false, or the strings "on"/"off" ("true"/"false")
    string,      // optionally restricted to `choices`
    stringList,  // JSON array of strings, or one comma-separated string
};

struct ParamSpec {
    std::string name;  // JSON key, snake_case (e.g. "msg_size")
    ParamType type = ParamType::invalid;
    QJsonValue defaultValue;  // Undefined = required
    int64_t minValue = 0;     // integer/size/durationMs: inclusive range
    int64_t maxValue = 0;
    std::vector<std::string> choices;  // string / stringList: allowed values (empty = any)
    std::string help;
};
using ParamSchema = std::vector<ParamSpec>;

// Checks every field against the schema: unknown keys, wrong types and
// out-of-range values are errors (Errc::invalidArgument) whose message starts
// with the field name, e.g. "msg_size: must be 1..67108864 bytes, got 0".
// Returns the parameters with defaults filled in and sizes/durations
// normalised to JSON numbers (bytes, ms) and string lists to arrays.
Result<QJsonObject> validateParams(const ParamSchema& schema, const QJsonObject& params);

// ---- samples and results -----------------------------------------------------

struct LatencySummary {
    uint64_t count = 0;
    double minUs = 0, meanUs = 0, stdevUs = 0, maxUs = 0;
    double p50Us = 0, p90Us = 0, p99Us = 0, p999Us = 0;
    static LatencySummary fromHistogram(const HdrHistogram& nanoseconds);
    QJsonObject toJson() const;
};

// Process CPU time (getrusage RUSAGE_SELF): the whole process, like qperf's
// per-side figures but not system-wide.
struct CpuTimes {
    double userSec = 0;
    double systemSec = 0;
    static CpuTimes now();
    double totalSec() const { return userSec + systemSec; }
};

// One periodic report of a running workload. Figures are this side's view
// over the interval (a tcp_bw client counts bytes sent, its server bytes
// received; qperf's headline bw is the receiver's, in RunResult).
struct Sample {
    double elapsedSec = 0;   // since the run started
    double intervalSec = 0;  // length of this interval
    bool warmup = false;     // true while the warm-up is excluded from results
    uint64_t bytes = 0;      // payload bytes moved in the interval
    uint64_t ops = 0;        // messages / round trips / requests completed in it
    double mbPerSec = 0;     // bytes / intervalSec / 1e6 (qperf's MB = 10^6 B)
    double opsPerSec = 0;
    LatencySummary latency;         // of the ops completed in the interval
    CpuTimes cpu;                   // cumulative for the process
    double cpuPercent = 0;          // process CPU over the interval, 100 = one core
    transports::Counters counters;  // transport counters, cumulative
    QJsonObject toJson() const;
};

struct RunResult {
    std::string workload;
    smcr::Side role = smcr::Side::invalid;
    std::string transport;
    QJsonObject params;     // the validated parameters
    double elapsedSec = 0;  // the measured window (warm-up excluded)
    uint64_t bytes = 0;     // payload bytes in the measured window
    uint64_t ops = 0;       // messages / round trips / requests in it
    CpuTimes cpu;           // this process, over the measured window
    // Workload figures by name, e.g. tcp_bw client: "bw_MBps", "msg_rate",
    // "send_cpus_used", "recv_cpus_used"; tcp_lat: "latency_us"; http:
    // "requests_per_sec", "transfer_bytes_per_sec", "errors"; kv: "tests"
    // (an array, one object per command as redis-benchmark reports them).
    QJsonObject summary;
    HdrHistogram latency;  // nanoseconds (tcp_lat: one-way = RTT/2)
    transports::Counters counters;
    // {"workload","role","transport","params","elapsed_sec","bytes","ops",
    //  "cpu":{user_sec,system_sec},"summary","latency":histogram JSON (us,
    //  with buckets),"latency_hdr_base64","counters":{name:value}}
    QJsonObject toJson() const;
};

struct RunContext {
    smcr::Side role = smcr::Side::invalid;
    QJsonObject params;  // validated (validateParams) by the caller or by run()
    std::shared_ptr<transports::Transport> transport;
    // Server: the address and port to listen on (port 0 = ephemeral).
    // Client: the peer to connect to.
    std::string host;
    uint16_t port = 0;
    // The run's settings and transport options as text (start_run
    // `settings`, `transport_options`): tool workloads hand them to smcr_run.
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<std::pair<std::string, std::string>> transportOptions;
    const std::atomic<bool>* stop = nullptr;  // set true to end the run early (optional)
    int sampleIntervalMs = 1000;              // 0 = no samples
    std::function<void(const Sample&)> onSample;
    // Server: called once listening, with the bound port.
    std::function<void(uint16_t port)> onListening;
    // Tool workloads: the process group of the program they started (0 once
    // it ended), so live settings can reach a preloaded program's engines.
    std::function<void(int processGroup)> onToolProcess;
    // Human-readable progress or notices (e.g. a per-size block of an -oo loop).
    std::function<void(const std::string& line)> onLog;

    bool stopRequested() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }
};

// How long a waiting server thread sleeps before it looks at the stop flag
// again. A campaign's run ends only when the stopped server has answered,
// so this is part of every cell's cost (agents/README.md).
inline constexpr int kStopCheckMs = 20;

class Workload {
public:
    virtual ~Workload() = default;
    virtual std::string name() const = 0;
    virtual std::string summary() const = 0;
    // The stored metrics a comparison table shows for this workload, in
    // table order ("bw_mbps", "latency_us", "rps": the names the
    // orchestrator stores its results under, run_record.h).
    virtual std::vector<std::string> headlineMetrics() const = 0;
    virtual ParamSchema schema(smcr::Side role) const = 0;
    // Validates ctx.params against schema(ctx.role) itself, so an unchecked
    // call still fails cleanly. Thread-safe: several runs may go at once.
    virtual Result<RunResult> run(const RunContext& ctx) const = 0;
};

// Registry: "tcp_bw", "tcp_lat", "http", "kv". The tcp_bw and tcp_lat servers
// are one server that answers both tests (like a qperf server).
std::span<const Workload* const> workloadRegistry();
const Workload* findWorkload(std::string_view name);

// Every registered workload's headlineMetrics() by name: the table the
// report's comparison queries take (report::HeadlineMetrics, db/report
// headline_metrics.h), so that the report knows no workload.
QMap<QString, QStringList> headlineMetricsByWorkload();

}  // namespace smclab::workloads
