// Where a campaign's numbers came from beyond its plan: the runs during
// which a setting was changed live (what, when, acknowledged by which
// agent) and the runs that failed (why). Read through the store's public
// API, so it works on whatever database the store opens.
#pragma once

#include <smcr/result.h>

#include <QList>
#include <QString>

#include "smclab/db/types.h"
#include "smclab/report/report_document.h"

namespace smclab::db {
class ResultStore;
}

namespace smclab::gui {

struct RunLiveChanges {
    qint64 runId = 0;
    db::RunCell cell;
    QString acknowledgedBy;  // the client agent's address (the orchestrator records its acknowledgement)
    QList<db::SettingChange> changes;
};

// The runs of `campaignId` with at least one live change, in plan order.
smcr::Result<QList<RunLiveChanges>> campaignLiveChanges(db::ResultStore& store, qint64 campaignId);

// "autocorking_size=0 at 1.20 s, lab.cq_mode=arm_first at 2.00 s"
QString liveChangesText(const QList<db::SettingChange>& changes);
// "Bandwidth / SMC-NoCork / 64 B / rep 1"
QString runCellText(const db::RunCell& cell);
// "2 runs changed settings live (columns SMC-NoCork, TCP): their values mix two configurations";
// empty when no run did.
QString liveChangesSummary(const QList<RunLiveChanges>& runs);

// Flags `document` (what the exports render): a provenance section listing
// every such run first, and the settings snapshot's title says that it is not
// the whole story. Unchanged when no run changed settings live.
void flagLiveChanges(report::ReportDocument& document, const QList<RunLiveChanges>& runs);

}  // namespace smclab::gui
