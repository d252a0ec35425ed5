// A campaign: the matrix of workloads x columns (named settings variants,
// each with its transport) x message sizes x repetitions that the
// orchestrator runs on agent pairs. The JSON file format is documented in
// CAMPAIGNS.md; parsing and validation live in campaign_json.h.
#pragma once

#include <cstdint>
#include <vector>

#include <QJsonObject>
#include <QString>

namespace smclab::orchestrator {

// What to do with the rest of the campaign when an agent disappears
// mid-run. The run in flight is marked failed either way.
enum class AgentLossPolicy {
    invalid = 0,
    continueCampaign,  // "continue": go on with the next cell (reconnecting first)
    pause,             // "pause": stop before the next cell; resume later
};

// One workload of the matrix. `label` names its table ("Bandwidth", "SET").
// `params` go to the client agent (the load generator's options, as the
// tools spell them: connections, threads, pipeline ...), `serverParams` to
// the server agent; each workload checks its own. `sizes`, if not empty,
// replaces the campaign's sizes for this workload (a workload's size is
// msg_size for tcp_bw/tcp_lat, the file size for http and the value size
// for kv; see workload_params.h).
struct WorkloadSpec {
    QString label;
    QString workload;  // tcp_bw | tcp_lat | http | kv | qperf | nginx-wrk | redis | iperf3
    QJsonObject params;
    QJsonObject serverParams;
    std::vector<uint64_t> sizes;
};

// One column of the comparison tables: a settings variant. `transport` is
// the server's (and by default the client's) transport; `clientTransport`
// differs only for mixed runs such as plain TCP clients against a libsmcr
// listener, or libsmcr against the kernel's SMC-R. `settings` are engine
// settings by their kernel sysctl names or lab.* names (autocorking_size,
// lab.cq_mode, ...), applied by the agents before the run starts to each
// end that runs `transport`; `clientSettings` to a client end that runs
// another transport (a libsmcr client's experiments against a kernel
// server); `params` / `serverParams` override the workload's.
struct ColumnSpec {
    QString label;
    QString transport;        // tcp | smcr | ksmc
    QString clientTransport;  // empty = same as transport
    QJsonObject settings;
    QJsonObject params;
    QJsonObject serverParams;
    QJsonObject clientSettings{};  // only where clientTransport differs from transport (last: aggregate order)

    QString effectiveClientTransport() const { return clientTransport.isEmpty() ? transport : clientTransport; }
};

// A server agent and a client agent ("HOST:PORT" each). Cells are spread
// over the pairs round-robin; each pair runs one cell at a time.
struct AgentPair {
    QString server;
    QString client;
};

// What a campaign does about runs on a busy host (host_load.h): a run is
// busy when other processes took more than `busyOtherCpuPct` of one core
// while it ran, or the hypervisor stole more than `busyStealPct`. Busy runs
// are always flagged in the store and the tables' notes; with
// `repeatBusy` > 0 a busy cell is run again (after `waitMs`, to let a
// neighbour's burst pass, and behind the cells already queued) up to that
// many times, and the quietest of its runs is kept.
struct QuietHostSpec {
    double busyOtherCpuPct = 25.0;
    double busyStealPct = 5.0;
    int repeatBusy = 0;
    int waitMs = 0;

    bool operator==(const QuietHostSpec&) const = default;
};

struct CampaignSpec {
    QString name;
    QString description;
    QString preset;  // the built-in preset this came from, if any
    std::vector<WorkloadSpec> workloads;
    std::vector<ColumnSpec> columns;
    QString baseline;  // column label the percentages compare to; empty = first column
    std::vector<uint64_t> sizes;
    int repetitions = 1;
    int durationMs = 2000;
    int warmupMs = 0;
    int sampleIntervalMs = 500;
    // Options for the smcr transport: {"fabric": "sim", "link": "cx4-25g"}.
    QJsonObject transportOptions;
    std::vector<AgentPair> agents;
    AgentLossPolicy onAgentLoss = AgentLossPolicy::continueCampaign;
    QuietHostSpec quietHost;  // "quietHost" in the file

    // Sizes a workload runs (its own, or the campaign's).
    const std::vector<uint64_t>& sizesFor(const WorkloadSpec& workload) const {
        return workload.sizes.empty() ? sizes : workload.sizes;
    }
    QString baselineLabel() const;
    int columnIndex(const QString& label) const;  // -1 if absent
};

const char* agentLossPolicyName(AgentLossPolicy policy);

// Names the campaign format knows; the agents have the final word (a
// transport missing on an agent fails its runs with the agent's error).
// The tool workloads (qperf, nginx-wrk, redis, iperf3) run the real programs.
inline constexpr const char* kKnownWorkloads[] = {"tcp_bw", "tcp_lat",   "http",  "kv",
                                                  "qperf",  "nginx-wrk", "redis", "iperf3"};
inline constexpr const char* kKnownTransports[] = {"tcp", "smcr", "ksmc"};
bool isKnownWorkload(const QString& name);
bool isKnownTransport(const QString& name);

// Bounds enforced by validation.
inline constexpr uint64_t kMaxSizeBytes = 64ull << 20;
inline constexpr int kMaxRepetitions = 1000;
// Repetitions of the built-in presets: the fewest that give every median an
// interval and every change against the baseline one from 9 pairwise ratios
// (90% for 3 against 3; -r 4 gives 97%, see report/statistics.h). Campaign
// files default to 1 unless they say otherwise.
inline constexpr int kPresetRepetitions = 3;
inline constexpr int kMinDurationMs = 100;  // the control protocol's lower bound
inline constexpr int kMaxDurationMs = 24 * 3600 * 1000;
inline constexpr int kMinSampleIntervalMs = 50;
inline constexpr int kMaxRepeatBusy = 10;
inline constexpr int kMaxQuietWaitMs = 600'000;

}  // namespace smclab::orchestrator
