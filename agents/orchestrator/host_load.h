// Was the host busy while a run ran? From the agents' run_result.host_state
// (PROTOCOL.md): CPU time taken by other processes is the host's busy time
// minus what the lab's own agents used (both agents when they share the
// host, as in the local lab), so a build or a neighbour's benchmark shows up
// and the lab's own work does not. Stored with every run as facts named
// host_state.* (db/ keeps them per run and per side), and read back by the
// report (Cell::busyRepetitions) and the campaign's quiet-host policy.
#pragma once

#include <optional>

#include <QJsonObject>
#include <QString>

#include "campaign_spec.h"
#include "smclab/db/types.h"

namespace smclab::orchestrator {

// Fact names under which a run's host state is stored.
inline constexpr const char* kHostBusyFact = "host_state.busy";               // "yes" | "no"
inline constexpr const char* kHostBusyReasonFact = "host_state.busy_reason";  // why, when busy
inline constexpr const char* kHostOtherCpuFact = "host_state.other_cpu_pct";  // percent of one core

struct HostLoad {
    std::optional<double> otherCpuPct;  // other processes, percent of one core
    std::optional<double> stealPct;
    bool busy = false;
    QString reason;  // "other processes 48% of a core", "steal 7.5%"
    bool known() const { return otherCpuPct.has_value() || stealPct.has_value(); }
};

// `client`/`server` are the two ends' host_state objects (empty when an
// agent did not report one); `sameHost` when both agents run on one host.
HostLoad judgeHostLoad(const QJsonObject& client, const QJsonObject& server, bool sameHost,
                       const QuietHostSpec& policy);

// Every host_state field as "host_state.<name>" facts.
void addHostStateFacts(db::HostFacts& facts, const QJsonObject& state);
// The verdict, on the client side's facts.
void addHostLoadFacts(db::HostFacts& facts, const HostLoad& load);

}  // namespace smclab::orchestrator
