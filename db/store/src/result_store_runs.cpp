// ResultStore: writing runs (planned -> running -> done | failed).
#include "smclab/db/result_store.h"
#include "sql.h"

namespace smclab::db {

namespace {

// Every table holding per-run data; an attempt's data replaces the last one.
const char* const kRunDataTables[] = {"run_settings", "run_host_facts", "results",        "histograms",
                                      "samples",      "counters",       "setting_changes"};

smcr::Status requireCampaign(const QSqlDatabase& db, const QString& path, qint64 campaignId) {
    auto q = sql::exec(db, path, QStringLiteral("SELECT 1 FROM campaigns WHERE id = ?"), {campaignId});
    if (!q) return smcr::fail(q.error());
    if (!q->next()) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("no campaign %1 in %2").arg(campaignId).arg(path).toStdString());
    }
    return {};
}

// Runs `statement` once per row of values (a prepared statement reused).
class Batch {
public:
    Batch(const QSqlDatabase& db, QString path, const QString& statement) : m_query(db), m_path(std::move(path)) {
        m_ok = m_query.prepare(statement);
    }
    smcr::Status add(const QVariantList& values) {
        if (!m_ok) return smcr::fail(sql::toError(m_query.lastError(), m_path, QStringLiteral("prepare")));
        for (const QVariant& v : values) m_query.addBindValue(sql::bindable(v));
        if (!m_query.exec()) return smcr::fail(sql::toError(m_query.lastError(), m_path, QStringLiteral("insert")));
        return {};
    }

private:
    QSqlQuery m_query;
    QString m_path;
    bool m_ok = false;
};

}  // namespace

smcr::Result<qint64> ResultStore::cellRunId(qint64 campaignId, const RunCell& cell) {
    const QSqlDatabase db = database();
    if (auto exists = requireCampaign(db, m_path, campaignId); !exists) return smcr::fail(exists.error());
    const QVariantList key{campaignId, cell.workload, cell.transport, cell.column, cell.msgSize, cell.repetition};
    auto found =
        sql::exec(db, m_path,
                  QStringLiteral("SELECT id FROM runs WHERE campaign_id = ? AND workload = ? AND transport = ? "
                                 "AND column_label = ? AND msg_size = ? AND repetition = ?"),
                  key);
    if (!found) return smcr::fail(found.error());
    if (found->next()) return found->value(0).toLongLong();
    // RETURNING, not lastInsertId(): QPSQL's is the row's OID, which tables no longer have.
    auto inserted = sql::exec(db, m_path,
                              QStringLiteral("INSERT INTO runs (campaign_id, workload, transport, column_label, "
                                             "msg_size, repetition, status) VALUES (?, ?, ?, ?, ?, ?, 'planned') "
                                             "RETURNING id"),
                              key);
    if (!inserted) return smcr::fail(inserted.error());
    if (!inserted->next()) return smcr::fail(smcr::Errc::systemError, "INSERT ... RETURNING id returned no row");
    return inserted->value(0).toLongLong();
}

smcr::Status ResultStore::deleteRunData(qint64 runId) {
    for (const char* table : kRunDataTables) {
        auto q = sql::exec(database(), m_path,
                           QStringLiteral("DELETE FROM %1 WHERE run_id = ?").arg(QLatin1String(table)), {runId});
        if (!q) return smcr::fail(q.error());
    }
    return {};
}

smcr::Status ResultStore::markRunStarted(qint64 campaignId, const RunCell& cell, std::optional<qint64> clientAgentId,
                                         std::optional<qint64> serverAgentId) {
    const QSqlDatabase db = database();
    sql::WriteTransaction tx(db, m_path);
    if (auto begun = tx.begin(); !begun) return begun;
    auto runId = cellRunId(campaignId, cell);
    if (!runId) return smcr::fail(runId.error());
    auto q = sql::exec(db, m_path,
                       QStringLiteral("UPDATE runs SET status = 'running', started_at = ?, finished_at = NULL, "
                                      "error = '', client_agent_id = ?, server_agent_id = ? WHERE id = ?"),
                       {sql::timestamp(QDateTime::currentDateTimeUtc()), sql::optionalId(clientAgentId),
                        sql::optionalId(serverAgentId), *runId});
    if (!q) return smcr::fail(q.error());
    return tx.commit();
}

smcr::Result<qint64> ResultStore::recordRun(const RunRecord& record) {
    return writeRun(record, RunStatus::done, QString());
}

smcr::Result<qint64> ResultStore::recordFailedRun(const RunRecord& record, const QString& error) {
    return writeRun(record, RunStatus::failed, error);
}

smcr::Result<qint64> ResultStore::writeRun(const RunRecord& record, RunStatus status, const QString& error) {
    const QSqlDatabase db = database();
    sql::WriteTransaction tx(db, m_path);
    if (auto begun = tx.begin(); !begun) return smcr::fail(begun.error());
    auto runId = cellRunId(record.campaignId, record.cell);
    if (!runId) return smcr::fail(runId.error());
    const qint64 id = *runId;
    auto updated =
        sql::exec(db, m_path,
                  QStringLiteral("UPDATE runs SET status = ?, started_at = ?, finished_at = ?, error = ?, "
                                 "client_agent_id = ?, server_agent_id = ? WHERE id = ?"),
                  {statusName(status), sql::timestamp(record.startedAt),
                   sql::timestamp(record.finishedAt.isValid() ? record.finishedAt : QDateTime::currentDateTimeUtc()),
                   error, sql::optionalId(record.clientAgentId), sql::optionalId(record.serverAgentId), id});
    if (!updated) return smcr::fail(updated.error());
    if (auto cleared = deleteRunData(id); !cleared) return smcr::fail(cleared.error());

    Batch settings(db, m_path, QStringLiteral("INSERT INTO run_settings (run_id, name, value) VALUES (?, ?, ?)"));
    for (auto it = record.settings.begin(); it != record.settings.end(); ++it) {
        if (auto s = settings.add({id, it.key(), it.value()}); !s) return smcr::fail(s.error());
    }
    Batch facts(db, m_path,
                QStringLiteral("INSERT INTO run_host_facts (run_id, side, name, value) VALUES (?, ?, ?, ?)"));
    for (const auto& [side, map] :
         {std::pair{smcr::Side::client, &record.clientFacts}, std::pair{smcr::Side::server, &record.serverFacts}}) {
        for (auto it = map->begin(); it != map->end(); ++it) {
            if (auto s = facts.add({id, QLatin1String(smcr::sideName(side)), it.key(), it.value()}); !s)
                return smcr::fail(s.error());
        }
    }
    Batch results(db, m_path, QStringLiteral("INSERT INTO results (run_id, metric, value) VALUES (?, ?, ?)"));
    for (auto it = record.results.begin(); it != record.results.end(); ++it) {
        if (auto s = results.add({id, it.key(), it.value()}); !s) return smcr::fail(s.error());
    }
    Batch histograms(db, m_path,
                     QStringLiteral("INSERT INTO histograms (run_id, metric, encoding, data) VALUES (?, ?, ?, ?)"));
    for (const Histogram& h : record.histograms) {
        if (auto s = histograms.add({id, h.metric, h.encoding, h.data}); !s) return smcr::fail(s.error());
    }
    Batch samples(db, m_path, QStringLiteral("INSERT INTO samples (run_id, t_ms, metric, value) VALUES (?, ?, ?, ?)"));
    for (const Sample& sample : record.samples) {
        if (auto s = samples.add({id, sample.tMs, sample.metric, sample.value}); !s) return smcr::fail(s.error());
    }
    Batch counters(db, m_path, QStringLiteral("INSERT INTO counters (run_id, side, name, value) VALUES (?, ?, ?, ?)"));
    for (const Counter& c : record.counters) {
        if (c.side == smcr::Side::invalid)
            return smcr::fail(smcr::Errc::invalidArgument, "counter with an invalid side");
        if (auto s = counters.add({id, QLatin1String(smcr::sideName(c.side)), c.name, c.value}); !s)
            return smcr::fail(s.error());
    }
    Batch changes(db, m_path,
                  QStringLiteral("INSERT INTO setting_changes (run_id, t_ms, name, value) VALUES (?, ?, ?, ?)"));
    for (const SettingChange& change : record.settingChanges) {
        if (auto s = changes.add({id, change.tMs, change.name, change.value}); !s) return smcr::fail(s.error());
    }
    if (auto done = tx.commit(); !done) return smcr::fail(done.error());
    return id;
}

smcr::Result<qint64> ResultStore::markRunFailed(qint64 campaignId, const RunCell& cell, const QString& error) {
    const QSqlDatabase db = database();
    sql::WriteTransaction tx(db, m_path);
    if (auto begun = tx.begin(); !begun) return smcr::fail(begun.error());
    auto runId = cellRunId(campaignId, cell);
    if (!runId) return smcr::fail(runId.error());
    if (auto cleared = deleteRunData(*runId); !cleared) return smcr::fail(cleared.error());
    auto q = sql::exec(db, m_path,
                       QStringLiteral("UPDATE runs SET status = 'failed', finished_at = ?, error = ? WHERE id = ?"),
                       {sql::timestamp(QDateTime::currentDateTimeUtc()), error, *runId});
    if (!q) return smcr::fail(q.error());
    if (auto done = tx.commit(); !done) return smcr::fail(done.error());
    return *runId;
}

}  // namespace smclab::db
