#include "data/run_provenance.h"

#include <QMap>
#include <QObject>
#include <QStringList>

#include "smclab/db/result_store.h"

namespace smclab::gui {

smcr::Result<QList<RunLiveChanges>> campaignLiveChanges(db::ResultStore& store, qint64 campaignId) {
    const auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    QMap<qint64, QString> agentAddress;
    if (const auto agents = store.agents()) {
        for (const db::Agent& agent : agents.value()) agentAddress.insert(agent.id, agent.address);
    }
    QList<RunLiveChanges> out;
    for (const db::Run& run : runs.value()) {
        const auto changes = store.settingChanges(run.id);
        if (!changes) return smcr::fail(changes.error());
        if (changes->isEmpty()) continue;
        RunLiveChanges entry;
        entry.runId = run.id;
        entry.cell = run.cell;
        entry.acknowledgedBy =
            run.clientAgentId ? agentAddress.value(*run.clientAgentId, QObject::tr("agent %1").arg(*run.clientAgentId))
                              : QObject::tr("the client agent");
        entry.changes = changes.value();
        out.append(entry);
    }
    return out;
}

QString liveChangesText(const QList<db::SettingChange>& changes) {
    QStringList parts;
    for (const db::SettingChange& change : changes) {
        parts.append(QObject::tr("%1=%2 at %3 s")
                         .arg(change.name, change.value)
                         .arg(static_cast<double>(change.tMs) / 1000.0, 0, 'f', 2));
    }
    return parts.join(QStringLiteral(", "));
}

QString runCellText(const db::RunCell& cell) {
    return QStringLiteral("%1 / %2 / %3 B / rep %4")
        .arg(cell.workload, cell.column)
        .arg(cell.msgSize)
        .arg(cell.repetition + 1);
}

QString liveChangesSummary(const QList<RunLiveChanges>& runs) {
    if (runs.isEmpty()) return {};
    QStringList columns;
    for (const RunLiveChanges& run : runs) {
        if (!columns.contains(run.cell.column)) columns.append(run.cell.column);
    }
    return QObject::tr(
               "%n run(s) changed settings live (column(s) %1): their values mix configurations; "
               "see each run for what changed when.",
               nullptr, static_cast<int>(runs.size()))
        .arg(columns.join(QStringLiteral(", ")));
}

void flagLiveChanges(report::ReportDocument& document, const QList<RunLiveChanges>& runs) {
    if (runs.isEmpty()) return;
    report::ProvenanceSection section;
    section.title = QObject::tr("Live setting changes");
    section.entries.append({QObject::tr("Summary"), liveChangesSummary(runs)});
    for (const RunLiveChanges& run : runs) {
        section.entries.append(
            {QObject::tr("Run %1: %2").arg(run.runId).arg(runCellText(run.cell)),
             QObject::tr("%1 (acknowledged by %2)").arg(liveChangesText(run.changes), run.acknowledgedBy)});
    }
    document.provenance.prepend(section);
    for (report::DetailTable& table : document.details) {
        if (table.title.startsWith(QLatin1String("Settings")))
            table.title += QObject::tr(" - %n run(s) changed settings live, see \"Live setting changes\"", nullptr,
                                       static_cast<int>(runs.size()));
    }
}

}  // namespace smclab::gui
