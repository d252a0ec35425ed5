// ResultStore: reading runs and their data.
#include "dialect.h"
#include "smclab/db/result_store.h"
#include "sql.h"

namespace smclab::db {

namespace {

const char* const kRunSelect =
    "SELECT id, campaign_id, workload, transport, column_label, msg_size, repetition, client_agent_id, "
    "server_agent_id, status, started_at, finished_at, error FROM runs ";

Run runFromQuery(const QSqlQuery& q) {
    Run run;
    run.id = q.value(0).toLongLong();
    run.campaignId = q.value(1).toLongLong();
    run.cell = {q.value(2).toString(), q.value(3).toString(), q.value(4).toString(), q.value(5).toLongLong(),
                q.value(6).toInt()};
    run.clientAgentId = sql::toOptionalId(q.value(7));
    run.serverAgentId = sql::toOptionalId(q.value(8));
    run.status = runStatusFromString(q.value(9).toString());
    run.startedAt = sql::parseTimestamp(q.value(10));
    run.finishedAt = sql::parseTimestamp(q.value(11));
    run.error = q.value(12).toString();
    return run;
}

}  // namespace

smcr::Result<QList<Run>> ResultStore::runs(qint64 campaignId) {
    auto exists = campaign(campaignId);
    if (!exists) return smcr::fail(exists.error());
    auto q =
        sql::exec(database(), m_path,
                  QString::fromLatin1(kRunSelect) + QStringLiteral("WHERE campaign_id = ? ORDER BY id"), {campaignId});
    if (!q) return smcr::fail(q.error());
    QList<Run> out;
    while (q->next()) out.append(runFromQuery(*q));
    return out;
}

smcr::Result<Run> ResultStore::run(qint64 runId) {
    auto q = sql::exec(database(), m_path, QString::fromLatin1(kRunSelect) + QStringLiteral("WHERE id = ?"), {runId});
    if (!q) return smcr::fail(q.error());
    if (!q->next())
        return smcr::fail(smcr::Errc::notFound, QStringLiteral("no run %1 in %2").arg(runId).arg(m_path).toStdString());
    return runFromQuery(*q);
}

smcr::Result<QList<RunCell>> ResultStore::pendingCells(qint64 campaignId) {
    auto all = runs(campaignId);
    if (!all) return smcr::fail(all.error());
    QList<RunCell> out;
    for (const Run& r : *all) {
        if (r.status != RunStatus::done) out.append(r.cell);
    }
    return out;
}

smcr::Result<QMap<QString, double>> ResultStore::results(qint64 runId) {
    auto q =
        sql::exec(database(), m_path, QStringLiteral("SELECT metric, value FROM results WHERE run_id = ?"), {runId});
    if (!q) return smcr::fail(q.error());
    QMap<QString, double> out;
    while (q->next()) out.insert(q->value(0).toString(), q->value(1).toDouble());
    return out;
}

smcr::Result<QMap<QString, QString>> ResultStore::settings(qint64 runId) {
    auto q =
        sql::exec(database(), m_path, QStringLiteral("SELECT name, value FROM run_settings WHERE run_id = ?"), {runId});
    if (!q) return smcr::fail(q.error());
    QMap<QString, QString> out;
    while (q->next()) out.insert(q->value(0).toString(), q->value(1).toString());
    return out;
}

smcr::Result<RunFacts> ResultStore::hostFacts(qint64 runId) {
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("SELECT side, name, value FROM run_host_facts WHERE run_id = ?"), {runId});
    if (!q) return smcr::fail(q.error());
    RunFacts out;
    while (q->next()) {
        HostFacts& facts =
            smcr::sideFromName(q->value(0).toString().toStdString()) == smcr::Side::server ? out.server : out.client;
        facts.insert(q->value(1).toString(), q->value(2).toString());
    }
    return out;
}

smcr::Result<QList<Histogram>> ResultStore::histograms(qint64 runId) {
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("SELECT metric, encoding, data FROM histograms WHERE run_id = ? ORDER BY metric"),
                       {runId});
    if (!q) return smcr::fail(q.error());
    QList<Histogram> out;
    while (q->next()) out.append({q->value(0).toString(), q->value(1).toString(), q->value(2).toByteArray()});
    return out;
}

smcr::Result<QList<Sample>> ResultStore::samples(qint64 runId, const QString& metric) {
    auto q = metric.isEmpty()
                 ? sql::exec(
                       database(), m_path,
                       QStringLiteral("SELECT t_ms, metric, value FROM samples WHERE run_id = ? ORDER BY t_ms, metric"),
                       {runId})
                 : sql::exec(database(), m_path,
                             QStringLiteral("SELECT t_ms, metric, value FROM samples WHERE run_id = ? AND metric = ? "
                                            "ORDER BY t_ms"),
                             {runId, metric});
    if (!q) return smcr::fail(q.error());
    QList<Sample> out;
    while (q->next()) out.append({q->value(0).toLongLong(), q->value(1).toString(), q->value(2).toDouble()});
    return out;
}

smcr::Result<QList<Counter>> ResultStore::counters(qint64 runId) {
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("SELECT side, name, value FROM counters WHERE run_id = ? ORDER BY side, name"),
                       {runId});
    if (!q) return smcr::fail(q.error());
    QList<Counter> out;
    while (q->next())
        out.append({smcr::sideFromName(q->value(0).toString().toStdString()), q->value(1).toString(),
                    q->value(2).toLongLong()});
    return out;
}

smcr::Result<QList<SettingChange>> ResultStore::settingChanges(qint64 runId) {
    auto q =
        sql::exec(database(), m_path,
                  QStringLiteral("SELECT t_ms, name, value FROM setting_changes WHERE run_id = ? ORDER BY t_ms, %1")
                      .arg(dialect::insertionOrder(database())),
                  {runId});
    if (!q) return smcr::fail(q.error());
    QList<SettingChange> out;
    while (q->next()) out.append({q->value(0).toLongLong(), q->value(1).toString(), q->value(2).toString()});
    return out;
}

smcr::Result<QList<ResultValue>> ResultStore::campaignResults(qint64 campaignId) {
    auto exists = campaign(campaignId);
    if (!exists) return smcr::fail(exists.error());
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("SELECT r.id, r.workload, r.transport, r.column_label, r.msg_size, r.repetition, "
                                      "v.metric, v.value FROM runs r JOIN results v ON v.run_id = r.id "
                                      "WHERE r.campaign_id = ? AND r.status = 'done' ORDER BY r.id, v.metric"),
                       {campaignId});
    if (!q) return smcr::fail(q.error());
    QList<ResultValue> out;
    while (q->next()) {
        ResultValue v;
        v.runId = q->value(0).toLongLong();
        v.cell = {q->value(1).toString(), q->value(2).toString(), q->value(3).toString(), q->value(4).toLongLong(),
                  q->value(5).toInt()};
        v.metric = q->value(6).toString();
        v.value = q->value(7).toDouble();
        out.append(v);
    }
    return out;
}

smcr::Result<QMap<qint64, QString>> ResultStore::campaignRunFact(qint64 campaignId, smcr::Side side,
                                                                 const QString& name) {
    auto exists = campaign(campaignId);
    if (!exists) return smcr::fail(exists.error());
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("SELECT r.id, f.value FROM runs r JOIN run_host_facts f ON f.run_id = r.id "
                                      "WHERE r.campaign_id = ? AND r.status = 'done' AND f.side = ? AND f.name = ?"),
                       {campaignId, QLatin1String(smcr::sideName(side)), name});
    if (!q) return smcr::fail(q.error());
    QMap<qint64, QString> out;
    while (q->next()) out.insert(q->value(0).toLongLong(), q->value(1).toString());
    return out;
}

smcr::Result<QList<CounterSum>> ResultStore::campaignCounters(qint64 campaignId) {
    auto exists = campaign(campaignId);
    if (!exists) return smcr::fail(exists.error());
    auto q =
        sql::exec(database(), m_path,
                  QStringLiteral("SELECT r.column_label, c.side, c.name, sum(c.value) FROM runs r "
                                 "JOIN counters c ON c.run_id = r.id WHERE r.campaign_id = ? AND r.status = 'done' "
                                 "GROUP BY r.column_label, c.side, c.name ORDER BY c.side, c.name"),
                  {campaignId});
    if (!q) return smcr::fail(q.error());
    QList<CounterSum> out;
    while (q->next()) {
        out.append({q->value(0).toString(), smcr::sideFromName(q->value(1).toString().toStdString()),
                    q->value(2).toString(), q->value(3).toLongLong()});
    }
    return out;
}

}  // namespace smclab::db
