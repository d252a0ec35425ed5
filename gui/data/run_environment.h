// What a run ran on besides its settings, from the facts the orchestrator
// stores with it: the wire (link model, how TCP was shaped, namespaces or
// not: "wire.*", agents/orchestrator/run_record.h) and the host's load
// while it ran ("host_state.*", agents/orchestrator/host_load.h).
#pragma once

#include <smcr/result.h>

#include <QMap>
#include <QString>
#include <QStringList>

#include "smclab/db/types.h"

namespace smclab::gui {

// "cx4lx-vf (50 Gbit/s, 800 ns one way); TCP over veth between network
// namespaces, tbf 50gbit on both veth ends, delay not applied: ..."; empty
// for a run stored without wire facts.
QString wireText(const db::HostFacts& facts);
// The wire's one-sentence note as the tables' notes print it ("wire").
QString wireNote(const db::HostFacts& facts);

// The host-load verdict: true when the run ran while other processes or the
// hypervisor took the CPUs.
bool hostBusy(const db::HostFacts& facts);
// "busy host: <the orchestrator's reason>" / "quiet host (other processes 1.2% of a core)";
// empty when the agents reported no host state.
QString hostLoadText(const db::HostFacts& facts);

}  // namespace smclab::gui

namespace smclab::db {
class ResultStore;
}

namespace smclab::gui {

// The wire and host load of a campaign's done runs (client side).
struct CampaignEnvironment {
    QMap<qint64, QString> busyReasonByRun;  // runs on a busy host -> why ("" when unknown)
    int judgedRuns = 0;                     // runs with a host-load verdict at all
    QStringList wires;                      // the distinct wire notes, in run order
    QStringList wireModels;                 // the distinct "wire.model" values
    QStringList sessions;                   // the distinct runner sessions ("session.started"), in time order
    bool resumed = false;                   // some run was run by a runner that resumed the campaign

    static smcr::Result<CampaignEnvironment> load(db::ResultStore& store, qint64 campaignId);
    // "wire cx4lx-vf; ⚑ 2 of 12 runs on a busy host", for the notes column.
    QString summary() const;
    QString toolTip() const;
};

}  // namespace smclab::gui
