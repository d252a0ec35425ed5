// ResultStore: opening, migrations, hosts, agents and campaigns.
#include "smclab/db/result_store.h"

#include <atomic>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSet>
#include <QThread>

#include "dialect.h"
#include "schema.h"
#include "sql.h"
#include "store_connection.h"

namespace smclab::db {

namespace {

QString newConnectionName() {
    static std::atomic<quint64> counter{0};
    return QStringLiteral("smclab-db-%1").arg(counter.fetch_add(1) + 1);
}

QString toJsonText(const QJsonObject& object) {
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject fromJsonText(const QString& text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QString factsToJson(const HostFacts& facts) {
    QJsonObject object;
    for (auto it = facts.begin(); it != facts.end(); ++it) object.insert(it.key(), it.value());
    return toJsonText(object);
}

HostFacts factsFromJson(const QString& text) {
    HostFacts facts;
    const QJsonObject object = fromJsonText(text);
    for (auto it = object.begin(); it != object.end(); ++it) facts.insert(it.key(), it.value().toString());
    return facts;
}

}  // namespace

ResultStore::ResultStore(QString path, QString connectionName)
    : m_path(std::move(path)), m_connectionName(std::move(connectionName)), m_thread(QThread::currentThread()) {}

ResultStore::~ResultStore() {
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isValid()) db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

QSqlDatabase ResultStore::database() const {
    Q_ASSERT_X(m_thread == QThread::currentThread(), "ResultStore",
               "a ResultStore is used only by the thread that opened it");
    return QSqlDatabase::database(m_connectionName, false);
}

smcr::Result<std::unique_ptr<ResultStore>> ResultStore::open(const QString& path, OpenOptions options) {
    if (QCoreApplication::instance() == nullptr) {
        return smcr::fail(smcr::Errc::invalidState,
                          "ResultStore::open needs a QCoreApplication (Qt SQL loads its driver as a plugin)");
    }
    auto location = parseDatabaseLocation(path);
    if (!location) return smcr::fail(location.error());
    std::unique_ptr<ResultStore> store(new ResultStore(location->display(), newConnectionName()));
    if (auto opened = connection::open(*location, store->m_connectionName, options); !opened) {
        return smcr::fail(opened.error());
    }
    auto migrated = schema::migrate(store->database(), store->m_path);
    if (!migrated) return smcr::fail(migrated.error());
    store->m_schemaVersion = *migrated;
    return store;
}

smcr::Result<QString> ResultStore::journalMode() {
    // A server keeps its own write-ahead log; there is no mode to report.
    if (dialect::backendOf(database()) == StoreBackend::postgresql) return QStringLiteral("server");
    auto q = sql::exec(database(), m_path, QStringLiteral("PRAGMA journal_mode"));
    if (!q) return smcr::fail(q.error());
    if (!q->next()) return smcr::fail(smcr::Errc::systemError, "PRAGMA journal_mode returned nothing");
    return q->value(0).toString().toLower();
}

// --- hosts and agents -----------------------------------------------------

smcr::Result<qint64> ResultStore::upsertHost(const QString& name, const HostFacts& facts) {
    if (name.isEmpty()) return smcr::fail(smcr::Errc::invalidArgument, "host name is empty");
    const QSqlDatabase db = database();
    auto q = sql::exec(
        db, m_path,
        QStringLiteral("INSERT INTO hosts (name, facts, last_seen) VALUES (?, ?, ?) "
                       "ON CONFLICT (name) DO UPDATE SET facts = excluded.facts, last_seen = excluded.last_seen"),
        {name, factsToJson(facts), sql::timestamp(QDateTime::currentDateTimeUtc())});
    if (!q) return smcr::fail(q.error());
    auto id = sql::exec(db, m_path, QStringLiteral("SELECT id FROM hosts WHERE name = ?"), {name});
    if (!id) return smcr::fail(id.error());
    id->next();
    return id->value(0).toLongLong();
}

smcr::Result<qint64> ResultStore::upsertAgent(const QString& address, std::optional<qint64> hostId,
                                              const QString& version, const QJsonObject& capabilities) {
    if (address.isEmpty()) return smcr::fail(smcr::Errc::invalidArgument, "agent address is empty");
    const QSqlDatabase db = database();
    auto q = sql::exec(db, m_path,
                       QStringLiteral("INSERT INTO agents (host_id, address, version, capabilities, last_seen) "
                                      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (address) DO UPDATE SET "
                                      "host_id = excluded.host_id, version = excluded.version, "
                                      "capabilities = excluded.capabilities, last_seen = excluded.last_seen"),
                       {sql::optionalId(hostId), address, version, toJsonText(capabilities),
                        sql::timestamp(QDateTime::currentDateTimeUtc())});
    if (!q) return smcr::fail(q.error());
    auto id = sql::exec(db, m_path, QStringLiteral("SELECT id FROM agents WHERE address = ?"), {address});
    if (!id) return smcr::fail(id.error());
    id->next();
    return id->value(0).toLongLong();
}

smcr::Result<QList<Host>> ResultStore::hosts() {
    auto q = sql::exec(database(), m_path, QStringLiteral("SELECT id, name, facts, last_seen FROM hosts ORDER BY id"));
    if (!q) return smcr::fail(q.error());
    QList<Host> out;
    while (q->next()) {
        out.append({q->value(0).toLongLong(), q->value(1).toString(), factsFromJson(q->value(2).toString()),
                    sql::parseTimestamp(q->value(3))});
    }
    return out;
}

smcr::Result<QList<Agent>> ResultStore::agents() {
    auto q = sql::exec(
        database(), m_path,
        QStringLiteral("SELECT id, host_id, address, version, capabilities, last_seen FROM agents ORDER BY id"));
    if (!q) return smcr::fail(q.error());
    QList<Agent> out;
    while (q->next()) {
        out.append({q->value(0).toLongLong(), sql::toOptionalId(q->value(1)), q->value(2).toString(),
                    q->value(3).toString(), fromJsonText(q->value(4).toString()), sql::parseTimestamp(q->value(5))});
    }
    return out;
}

// --- campaigns ------------------------------------------------------------

smcr::Result<qint64> ResultStore::createCampaign(const NewCampaign& campaign) {
    Campaign fields;
    fields.name = campaign.name;
    fields.preset = campaign.preset;
    fields.spec = campaign.spec;
    fields.notes = campaign.notes;
    fields.status = CampaignStatus::planned;
    fields.createdAt = QDateTime::currentDateTimeUtc();
    return insertCampaign(fields, campaign.cells);
}

smcr::Result<qint64> ResultStore::importCampaign(const Campaign& campaign, const QList<RunCell>& cells) {
    if (campaign.status == CampaignStatus::invalid || !campaign.createdAt.isValid()) {
        return smcr::fail(smcr::Errc::invalidArgument, "imported campaign without a status or creation time");
    }
    return insertCampaign(campaign, cells);
}

smcr::Result<qint64> ResultStore::insertCampaign(const Campaign& campaign, const QList<RunCell>& cells) {
    if (campaign.name.isEmpty()) return smcr::fail(smcr::Errc::invalidArgument, "campaign name is empty");
    QSet<QString> seen;
    for (const RunCell& cell : cells) {
        if (cell.workload.isEmpty() || cell.transport.isEmpty() || cell.column.isEmpty() || cell.msgSize < 0 ||
            cell.repetition < 0) {
            return smcr::fail(smcr::Errc::invalidArgument,
                              "campaign cell with an empty workload, transport or column, or a negative size");
        }
        const QString key = QStringList{cell.workload, cell.transport, cell.column, QString::number(cell.msgSize),
                                        QString::number(cell.repetition)}
                                .join(QLatin1Char('\x1f'));
        if (seen.contains(key)) {
            return smcr::fail(smcr::Errc::invalidArgument,
                              QStringLiteral("duplicate campaign cell %1/%2/%3 size %4 repetition %5")
                                  .arg(cell.workload, cell.transport, cell.column)
                                  .arg(cell.msgSize)
                                  .arg(cell.repetition)
                                  .toStdString());
        }
        seen.insert(key);
    }
    const QSqlDatabase db = database();
    sql::WriteTransaction tx(db, m_path);
    if (auto begun = tx.begin(); !begun) return smcr::fail(begun.error());
    auto inserted = sql::exec(
        db, m_path,
        QStringLiteral("INSERT INTO campaigns (name, preset, spec, notes, status, created_at, "
                       "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"),
        {campaign.name, campaign.preset, toJsonText(campaign.spec), campaign.notes, statusName(campaign.status),
         sql::timestamp(campaign.createdAt), sql::timestamp(campaign.finishedAt)});
    if (!inserted) return smcr::fail(inserted.error());
    // RETURNING, not lastInsertId(): QPSQL's is the row's OID, which tables no longer have.
    if (!inserted->next()) return smcr::fail(smcr::Errc::systemError, "INSERT ... RETURNING id returned no row");
    const qint64 id = inserted->value(0).toLongLong();
    inserted->finish();
    QSqlQuery cellQuery(db);
    cellQuery.prepare(
        QStringLiteral("INSERT INTO runs (campaign_id, workload, transport, column_label, msg_size, "
                       "repetition, status) VALUES (?, ?, ?, ?, ?, ?, 'planned')"));
    for (const RunCell& cell : cells) {
        cellQuery.addBindValue(id);
        cellQuery.addBindValue(sql::bindable(cell.workload));
        cellQuery.addBindValue(sql::bindable(cell.transport));
        cellQuery.addBindValue(sql::bindable(cell.column));
        cellQuery.addBindValue(cell.msgSize);
        cellQuery.addBindValue(cell.repetition);
        if (!cellQuery.exec())
            return smcr::fail(sql::toError(cellQuery.lastError(), m_path, QStringLiteral("plan cell")));
    }
    if (auto done = tx.commit(); !done) return smcr::fail(done.error());
    return id;
}

smcr::Status ResultStore::updateCampaignStatus(qint64 campaignId, CampaignStatus status) {
    if (status == CampaignStatus::invalid) return smcr::fail(smcr::Errc::invalidArgument, "invalid campaign status");
    const bool final = status == CampaignStatus::done || status == CampaignStatus::failed;
    auto q = sql::exec(
        database(), m_path, QStringLiteral("UPDATE campaigns SET status = ?, finished_at = ? WHERE id = ?"),
        {statusName(status), final ? sql::timestamp(QDateTime::currentDateTimeUtc()) : sql::timestamp({}), campaignId});
    if (!q) return smcr::fail(q.error());
    if (q->numRowsAffected() == 0) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("no campaign %1 in %2").arg(campaignId).arg(m_path).toStdString());
    }
    return {};
}

smcr::Status ResultStore::appendCampaignNotes(qint64 campaignId, const QString& line) {
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("UPDATE campaigns SET notes = CASE WHEN notes IS NULL OR notes = '' THEN ? "
                                      "ELSE notes || ? END WHERE id = ?"),
                       {line, QStringLiteral("\n") + line, campaignId});
    if (!q) return smcr::fail(q.error());
    if (q->numRowsAffected() == 0) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("no campaign %1 in %2").arg(campaignId).arg(m_path).toStdString());
    }
    return {};
}

smcr::Status ResultStore::deleteCampaign(qint64 campaignId) {
    auto q = sql::exec(database(), m_path, QStringLiteral("DELETE FROM campaigns WHERE id = ?"), {campaignId});
    if (!q) return smcr::fail(q.error());
    if (q->numRowsAffected() == 0) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("no campaign %1 in %2").arg(campaignId).arg(m_path).toStdString());
    }
    return {};
}

namespace {

const char* const kCampaignSelect =
    "SELECT c.id, c.name, c.preset, c.spec, c.notes, c.status, c.created_at, c.finished_at, "
    "(SELECT count(*) FROM runs r WHERE r.campaign_id = c.id), "
    "(SELECT count(*) FROM runs r WHERE r.campaign_id = c.id AND r.status = 'done'), "
    "(SELECT count(*) FROM runs r WHERE r.campaign_id = c.id AND r.status = 'failed') "
    "FROM campaigns c ";

Campaign campaignFromQuery(const QSqlQuery& q) {
    Campaign c;
    c.id = q.value(0).toLongLong();
    c.name = q.value(1).toString();
    c.preset = q.value(2).toString();
    c.spec = fromJsonText(q.value(3).toString());
    c.notes = q.value(4).toString();
    c.status = campaignStatusFromString(q.value(5).toString());
    c.createdAt = sql::parseTimestamp(q.value(6));
    c.finishedAt = sql::parseTimestamp(q.value(7));
    c.runsTotal = q.value(8).toInt();
    c.runsDone = q.value(9).toInt();
    c.runsFailed = q.value(10).toInt();
    return c;
}

}  // namespace

smcr::Result<QList<Campaign>> ResultStore::listCampaigns() {
    auto q = sql::exec(database(), m_path, QString::fromLatin1(kCampaignSelect) + QStringLiteral("ORDER BY c.id DESC"));
    if (!q) return smcr::fail(q.error());
    QList<Campaign> out;
    while (q->next()) out.append(campaignFromQuery(*q));
    return out;
}

smcr::Result<Campaign> ResultStore::campaign(qint64 campaignId) {
    auto q = sql::exec(database(), m_path, QString::fromLatin1(kCampaignSelect) + QStringLiteral("WHERE c.id = ?"),
                       {campaignId});
    if (!q) return smcr::fail(q.error());
    if (!q->next()) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("no campaign %1 in %2").arg(campaignId).arg(m_path).toStdString());
    }
    return campaignFromQuery(*q);
}

smcr::Result<QStringList> ResultStore::columns(qint64 campaignId) {
    auto exists = campaign(campaignId);
    if (!exists) return smcr::fail(exists.error());
    auto q = sql::exec(database(), m_path,
                       QStringLiteral("SELECT column_label FROM runs WHERE campaign_id = ? GROUP BY column_label "
                                      "ORDER BY min(id)"),
                       {campaignId});
    if (!q) return smcr::fail(q.error());
    QStringList out;
    while (q->next()) out << q->value(0).toString();
    return out;
}

}  // namespace smclab::db
