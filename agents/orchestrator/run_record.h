// From a finished cell (the agents' run_result messages, samples and live
// setting changes) to the store's RunRecord, and the store's name for a
// cell (RunCell). Pure functions, so what gets stored is testable without
// agents.
#pragma once

#include <QMap>
#include <QString>

#include "campaign_spec.h"
#include "cell_matrix.h"
#include "cell_runner.h"
#include "protocol/hello.h"
#include "smclab/db/types.h"
#include "smclab/report/stored_counters.h"

namespace smclab::orchestrator {

// The store keys runs by workload name; a campaign with two entries of the
// same workload (the credits preset's SET and GET, both kv) stores them as
// "kv:SET" and "kv:GET" so each keeps its own rows.
QString storedWorkloadName(const CampaignSpec& spec, int workloadIndex);
// Every workload of `spec` by its stored name and its label, in spec order.
QList<db::StoredWorkload> storedWorkloads(const CampaignSpec& spec);
// The column labels of `spec`, in spec order.
QStringList columnLabels(const CampaignSpec& spec);
db::RunCell toRunCell(const CampaignSpec& spec, const Cell& cell);
// Index in `cells` of the cell a stored RunCell names, or -1.
int findCell(const CampaignSpec& spec, const std::vector<Cell>& cells, const db::RunCell& runCell);

// host, cpu_model, cpu_count, kernel, agent_version, ksmc, rdma_device,
// the end's `implementation` (implementationLabel), plus the run's fabric,
// link model and, over a real fabric, the SMC TCP option (`syn_option`,
// on or off with the agent's reason) when the transport is smcr.
db::HostFacts hostFacts(const protocol::Hello& hello, const QJsonObject& transportOptions, const QString& transport);
// What one end of a run is: "kernel TCP", "kernel SMC-R 6.12" (the
// kernel's major.minor), "libsmcr verbs/rxe0" (fabric / the host's first
// RDMA device over a real fabric), "libsmcr sim".
QString implementationLabel(const protocol::Capabilities& caps, const QJsonObject& transportOptions,
                            const QString& transport);
// Which end ran which implementation, on the client's facts (where the
// report reads a run's wire): `ends` = "server: kernel SMC-R 6.12, client:
// libsmcr verbs/rxe0", and the same as `wire.ends` (which the tables'
// Wire section shows) where the kernel's SMC-R is an end, the ends differ,
// or libsmcr runs over a real fabric: the runs where it is worth saying.
void addEndsFacts(const db::HostFacts& serverFacts, db::HostFacts& clientFacts);
// The wire every column of the run crossed, TCP included, as facts
// "wire.*": the local lab's record (Orchestrator::setWire), or, without one,
// the sim link model for SMC and the agents' own network for TCP.
void addWireFacts(const QJsonObject& wire, const QJsonObject& transportOptions, db::HostFacts& facts);

// Headline and secondary metrics from the client's run_result summary:
// every numeric summary field under its lower-case name (bw_MBps ->
// bw_mbps, latency_us, p99_us, msg_rate ...), requests_per_sec also as
// rps, and for kv each test's figures (one test: rps, p50_us ...; several:
// set_rps, get_rps ...).
QMap<QString, double> resultMetrics(const QJsonObject& summary);

// Time series: client samples as throughput_mbps, ops_per_sec,
// latency_mean_us / latency_p50_us / latency_p99_us, cpu_client_pct; server
// samples as server_throughput_mbps and cpu_server_pct.
QList<db::Sample> sampleSeries(const QList<protocol::Samples>& client, const QList<protocol::Samples>& server);

// Client-side facts of every run: when the runner that ran it started
// ("session.started", ISO 8601 UTC) and whether it resumed the campaign
// ("session.resumed" yes/no). The report lists the sessions of a resumed
// campaign with their wires.
inline constexpr const char* kSessionStartedFact = "session.started";
inline constexpr const char* kSessionResumedFact = "session.resumed";

struct RecordInputs {
    qint64 campaignId = 0;
    const CampaignSpec* spec = nullptr;
    Cell cell;
    std::optional<qint64> clientAgentId;
    std::optional<qint64> serverAgentId;
    db::HostFacts clientFacts;
    db::HostFacts serverFacts;
};

db::RunRecord buildRunRecord(const RecordInputs& inputs, const CellOutcome& outcome);

// Whether a failed cell produced anything to keep: samples or counters.
bool outcomeHasData(const CellOutcome& outcome);
// A failed cell as stored with its failure (ResultStore::recordFailedRun):
// what buildRunRecord() keeps but no results or histograms (a failed run
// measured nothing to compare), and, for a side whose agent sent no final
// counters, the last cumulative counters its samples carried: the view of
// the failed run shows what the Run page showed live.
db::RunRecord buildFailedRunRecord(const RecordInputs& inputs, const CellOutcome& outcome);

}  // namespace smclab::orchestrator
