// A whole report document of one campaign, or of two side by side: the
// comparison tables plus counters, settings and provenance.
#include <algorithm>

#include <QMap>
#include <QSet>

#include "smclab/report/comparison_query.h"

namespace smclab::db {

namespace {

QString dateText(const QDateTime& time) {
    return time.isValid() ? time.toUTC().toString(Qt::ISODate) : QStringLiteral("-");
}

struct CampaignDetails {
    Campaign campaign;
    QStringList columns;
    QMap<QString, QMap<QString, QString>> settings;  // column -> snapshot of its first done run
    QMap<QString, QMap<QString, QString>> tools;     // column -> "client program" ... of its first done run
    QMap<QString, QMap<QString, qint64>> counters;   // column -> "side name" -> sum
    RunFacts facts;                                  // first done run
    QDateTime firstStart;
    QDateTime lastFinish;
    int busyRuns = 0;         // done runs whose client-side host_state.busy is "yes"
    int judgedRuns = 0;       // done runs with a verdict at all (agents that report host state)
    QStringList busyReasons;  // a few, for the notes
    QStringList wires;        // "note (N runs)" per distinct wire the done runs crossed, in run order
    QStringList sessions;     // one per runner session when the campaign was resumed
};

// One runner session of a campaign (the orchestrator's "session.started"
// fact; runs stored before it are told apart by their agents).
struct Session {
    QString key;
    QDateTime firstStart;
    int runs = 0;
    bool resumed = false;
    QStringList agents;  // "client -> server"
    QStringList wires;
};

// Every wire the done runs crossed and, when the campaign was resumed (or
// ran in more than one session), when and on what each session ran, so a
// resumed campaign does not cite only its first lab's wire.
smcr::Status loadSessions(ResultStore& store, const QList<Run>& runs, qint64 campaignId, CampaignDetails& out) {
    const auto fact = [&](const char* name) {
        return store.campaignRunFact(campaignId, smcr::Side::client, QLatin1String(name));
    };
    auto wires = fact("wire");
    if (!wires) return smcr::fail(wires.error());
    auto started = fact("session.started");
    if (!started) return smcr::fail(started.error());
    auto resumed = fact("session.resumed");
    if (!resumed) return smcr::fail(resumed.error());
    auto agents = store.agents();
    if (!agents) return smcr::fail(agents.error());
    QMap<qint64, QString> address;
    for (const Agent& agent : *agents) address.insert(agent.id, agent.address);
    QList<Run> done;
    for (const Run& run : runs) {
        if (run.status == RunStatus::done) done.append(run);
    }
    std::stable_sort(done.begin(), done.end(), [](const Run& a, const Run& b) { return a.startedAt < b.startedAt; });
    QStringList wireOrder;
    QMap<QString, int> wireRuns;
    QList<Session> sessions;
    for (const Run& run : done) {
        const QString wire = wires->value(run.id);
        if (!wire.isEmpty()) {
            if (!wireOrder.contains(wire)) wireOrder << wire;
            ++wireRuns[wire];
        }
        const QString agentText = QStringLiteral("%1 -> %2")
                                      .arg(run.clientAgentId ? address.value(*run.clientAgentId) : QStringLiteral("?"),
                                           run.serverAgentId ? address.value(*run.serverAgentId) : QStringLiteral("?"));
        const QString key = started->contains(run.id) ? started->value(run.id) : QStringLiteral("agents ") + agentText;
        auto it = std::find_if(sessions.begin(), sessions.end(), [&](const Session& x) { return x.key == key; });
        if (it == sessions.end()) {
            sessions.append({key, run.startedAt, 0, false, {}, {}});
            it = sessions.end() - 1;
        }
        ++it->runs;
        it->resumed = it->resumed || resumed->value(run.id) == QLatin1String("yes");
        if (!it->agents.contains(agentText)) it->agents << agentText;
        if (!wire.isEmpty() && !it->wires.contains(wire)) it->wires << wire;
    }
    for (const QString& wire : wireOrder) {
        out.wires << (wireOrder.size() == 1 ? wire
                                            : QStringLiteral("%1 (%2 run%3)")
                                                  .arg(wire)
                                                  .arg(wireRuns.value(wire))
                                                  .arg(wireRuns.value(wire) == 1 ? "" : "s"));
    }
    const bool anyResumed = std::any_of(sessions.begin(), sessions.end(), [](const Session& x) { return x.resumed; });
    if (sessions.size() < 2 && !anyResumed) return {};
    for (const Session& session : sessions) {
        QString text = QStringLiteral("%1 %2: %3 run%4 on agents %5")
                           .arg(session.resumed ? QStringLiteral("resumed") : QStringLiteral("started"),
                                dateText(session.firstStart))
                           .arg(session.runs)
                           .arg(session.runs == 1 ? "" : "s")
                           .arg(session.agents.join(QStringLiteral(", ")));
        if (!session.wires.isEmpty()) text += QStringLiteral(", wire: ") + session.wires.join(QStringLiteral("; "));
        out.sessions << text;
    }
    return {};
}

smcr::Result<CampaignDetails> loadDetails(ResultStore& store, qint64 campaignId) {
    CampaignDetails out;
    auto campaign = store.campaign(campaignId);
    if (!campaign) return smcr::fail(campaign.error());
    out.campaign = *campaign;
    auto columns = store.columns(campaignId);
    if (!columns) return smcr::fail(columns.error());
    out.columns = *columns;
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    bool haveFacts = false;
    for (const Run& run : *runs) {
        if (run.status != RunStatus::done) continue;
        if (run.startedAt.isValid() && (!out.firstStart.isValid() || run.startedAt < out.firstStart)) {
            out.firstStart = run.startedAt;
        }
        if (run.finishedAt.isValid() && (!out.lastFinish.isValid() || run.finishedAt > out.lastFinish)) {
            out.lastFinish = run.finishedAt;
        }
        if (!out.settings.contains(run.cell.column)) {
            auto settings = store.settings(run.id);
            if (!settings) return smcr::fail(settings.error());
            out.settings.insert(run.cell.column, *settings);
            // Tool workloads: what each side ran, exactly (the orchestrator's
            // tool.* facts), per column, not only the first run's.
            auto facts = store.hostFacts(run.id);
            if (!facts) return smcr::fail(facts.error());
            QMap<QString, QString> tools;
            for (const auto& [side, sideFacts] : {std::pair{QStringLiteral("client"), &facts->client},
                                                  std::pair{QStringLiteral("server"), &facts->server}}) {
                for (const char* key : {"program", "version", "command"}) {
                    const QString value = sideFacts->value(QStringLiteral("tool.") + QLatin1String(key));
                    if (!value.isEmpty()) tools.insert(side + QLatin1Char(' ') + QLatin1String(key), value);
                }
            }
            if (!tools.isEmpty()) out.tools.insert(run.cell.column, tools);
        }
        if (!haveFacts) {
            auto facts = store.hostFacts(run.id);
            if (!facts) return smcr::fail(facts.error());
            out.facts = *facts;
            haveFacts = true;
        }
    }
    if (smcr::Status sessions = loadSessions(store, *runs, campaignId, out); !sessions)
        return smcr::fail(sessions.error());
    auto counters = store.campaignCounters(campaignId);
    if (!counters) return smcr::fail(counters.error());
    for (const CounterSum& c : *counters)
        out.counters[c.column][QLatin1String(smcr::sideName(c.side)) + QLatin1Char(' ') + c.name] = c.value;
    auto busy = store.campaignRunFact(campaignId, smcr::Side::client, QStringLiteral("host_state.busy"));
    if (!busy) return smcr::fail(busy.error());
    auto reasons = store.campaignRunFact(campaignId, smcr::Side::client, QStringLiteral("host_state.busy_reason"));
    if (!reasons) return smcr::fail(reasons.error());
    out.judgedRuns = static_cast<int>(busy->size());
    for (auto it = busy->begin(); it != busy->end(); ++it) {
        if (it.value() != QLatin1String("yes")) continue;
        ++out.busyRuns;
        const QString reason = reasons->value(it.key());
        if (out.busyReasons.size() < 3 && !reason.isEmpty() && !out.busyReasons.contains(reason))
            out.busyReasons << reason;
    }
    return out;
}

void appendDetails(report::ReportDocument& doc, const QList<std::pair<const CampaignDetails*, QString>>& sources) {
    report::DetailTable settings{QStringLiteral("Settings (snapshot of each column's first finished run)"), {}, {}};
    report::DetailTable counters{QStringLiteral("Engine counters (sum over finished runs)"), {}, {}};
    QStringList settingNames;
    QStringList counterNames;
    for (const auto& [details, prefix] : sources) {
        for (const QString& column : details->columns) {
            settings.columns << prefix + column;
            counters.columns << prefix + column;
            for (const QString& name : details->settings.value(column).keys()) {
                if (!settingNames.contains(name)) settingNames << name;
            }
            for (const QString& name : details->counters.value(column).keys()) {
                if (!counterNames.contains(name)) counterNames << name;
            }
        }
    }
    settingNames.sort();
    counterNames.sort();
    for (const QString& name : settingNames) {
        report::DetailRow row{name, {}};
        for (const auto& [details, prefix] : sources) {
            for (const QString& column : details->columns) row.values << details->settings.value(column).value(name);
        }
        settings.rows.append(row);
    }
    for (const QString& name : counterNames) {
        report::DetailRow row{name, {}};
        for (const auto& [details, prefix] : sources) {
            for (const QString& column : details->columns) {
                const auto values = details->counters.value(column);
                row.values << (values.contains(name) ? QString::number(values.value(name)) : QString());
            }
        }
        counters.rows.append(row);
    }
    // The tools each column ran (program, version, command line per side).
    report::DetailTable tools{QStringLiteral("Tools (first finished run of each column)"), settings.columns, {}};
    for (const QString& side : {QStringLiteral("client"), QStringLiteral("server")}) {
        for (const char* key : {"program", "version", "command"}) {
            const QString name = side + QLatin1Char(' ') + QLatin1String(key);
            report::DetailRow row{name, {}};
            bool any = false;
            for (const auto& [details, prefix] : sources) {
                for (const QString& column : details->columns) {
                    row.values << details->tools.value(column).value(name);
                    any = any || !row.values.back().isEmpty();
                }
            }
            if (any) tools.rows.append(row);
        }
    }
    if (!tools.rows.isEmpty()) doc.details.append(tools);
    if (!settings.rows.isEmpty()) doc.details.append(settings);
    if (!counters.rows.isEmpty()) doc.details.append(counters);
}

void appendProvenance(report::ReportDocument& doc, const CampaignDetails& d) {
    const Campaign& c = d.campaign;
    report::ProvenanceSection campaign{QStringLiteral("Campaign #%1").arg(c.id), {}};
    campaign.entries = {
        {QStringLiteral("name"), c.name},
        {QStringLiteral("preset"), c.preset.isEmpty() ? QStringLiteral("-") : c.preset},
        {QStringLiteral("status"), statusName(c.status)},
        {QStringLiteral("runs"),
         QStringLiteral("%1 done / %2 planned, %3 failed").arg(c.runsDone).arg(c.runsTotal).arg(c.runsFailed)},
        {QStringLiteral("created"), dateText(c.createdAt)},
        {QStringLiteral("finished"), dateText(c.finishedAt)},
        {QStringLiteral("first run started"), dateText(d.firstStart)},
        {QStringLiteral("last run finished"), dateText(d.lastFinish)},
        {QStringLiteral("columns"), d.columns.join(QStringLiteral(", "))}};
    if (!c.notes.isEmpty()) campaign.entries.append({QStringLiteral("notes"), c.notes});
    // Every wire the runs crossed, not only the first run's (below).
    if (d.wires.size() == 1) campaign.entries.append({QStringLiteral("wire"), d.wires.front()});
    if (d.wires.size() > 1) {
        campaign.entries.append(
            {QStringLiteral("wires"),
             QStringLiteral("%1 different wires: %2").arg(d.wires.size()).arg(d.wires.join(QStringLiteral("; ")))});
    }
    for (qsizetype i = 0; i < d.sessions.size(); ++i) {
        campaign.entries.append({QStringLiteral("session %1").arg(i + 1), d.sessions[i]});
    }
    if (d.judgedRuns > 0) {
        // The runs measured while other processes or the hypervisor took the
        // CPUs (agents/orchestrator/host_load.h); their cells say "busy".
        QString text = QStringLiteral("%1 of %2 runs on a busy host").arg(d.busyRuns).arg(d.judgedRuns);
        if (!d.busyReasons.isEmpty())
            text += QStringLiteral(" (e.g. %1)").arg(d.busyReasons.join(QStringLiteral("; ")));
        campaign.entries.append({QStringLiteral("host load"), text});
    }
    doc.provenance.append(campaign);
    const QString firstRun = d.sessions.isEmpty() && d.wires.size() <= 1 ? QString() : QStringLiteral(", first run");
    for (const auto& [title, facts] : {std::pair{QStringLiteral("Client host"), &d.facts.client},
                                       std::pair{QStringLiteral("Server host"), &d.facts.server}}) {
        if (facts->isEmpty()) continue;
        report::ProvenanceSection section{QStringLiteral("%1 (campaign #%2%3)").arg(title).arg(c.id).arg(firstRun), {}};
        for (auto it = facts->begin(); it != facts->end(); ++it) {
            // One run's host state says nothing about the campaign; the
            // "host load" entry above sums them up.
            if (it.key().startsWith(QLatin1String("host_state."))) continue;
            // A tool's verbatim output is kept with the run (smclab show), not in every report.
            if (it.key() == QLatin1String("tool.output")) continue;
            section.entries.append({it.key(), it.value()});
        }
        doc.provenance.append(section);
    }
}

}  // namespace

smcr::Result<report::ReportDocument> campaignReport(ResultStore& store, qint64 campaignId,
                                                    const report::HeadlineMetrics& headlines,
                                                    const QDateTime& generatedAt) {
    auto details = loadDetails(store, campaignId);
    if (!details) return smcr::fail(details.error());
    auto tables = comparisonTables(store, campaignId, headlines);
    if (!tables) return smcr::fail(tables.error());
    report::ReportDocument doc;
    doc.title = QStringLiteral("smclab campaign #%1: %2").arg(campaignId).arg(details->campaign.name);
    doc.generatedAt = dateText(generatedAt);
    doc.tables = *tables;
    appendDetails(doc, {{&*details, QString()}});
    appendProvenance(doc, *details);
    return doc;
}

smcr::Result<report::ReportDocument> compareReport(ResultStore& store, qint64 campaignA, qint64 campaignB,
                                                   const report::HeadlineMetrics& headlines,
                                                   const QDateTime& generatedAt) {
    auto a = loadDetails(store, campaignA);
    if (!a) return smcr::fail(a.error());
    auto b = loadDetails(store, campaignB);
    if (!b) return smcr::fail(b.error());
    auto tables = comparisonTables(store, campaignA, campaignB, headlines);
    if (!tables) return smcr::fail(tables.error());
    report::ReportDocument doc;
    doc.title = QStringLiteral("smclab: campaign #%1 (%2) vs #%3 (%4)")
                    .arg(campaignA)
                    .arg(a->campaign.name)
                    .arg(campaignB)
                    .arg(b->campaign.name);
    doc.generatedAt = dateText(generatedAt);
    doc.tables = *tables;
    appendDetails(doc, {{&*a, QStringLiteral("#%1 ").arg(campaignA)}, {&*b, QStringLiteral("#%1 ").arg(campaignB)}});
    appendProvenance(doc, *a);
    appendProvenance(doc, *b);
    return doc;
}

}  // namespace smclab::db
