#include "schema.h"

#include <QStringList>

#include "dialect.h"
#include "smclab/db/result_store.h"
#include "sql.h"

namespace smclab::db::schema {

namespace {

struct Migration {
    int toVersion;
    const char* what;
    QStringList statements;
};

// Version 1: the first released schema. Never edit a released step; add a
// new one instead (files in the field carry the old shape).
QStringList version1() {
    return {
        QStringLiteral("CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)"),
        QStringLiteral("CREATE TABLE hosts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
                       "facts TEXT NOT NULL DEFAULT '{}', last_seen TEXT)"),
        QStringLiteral("CREATE TABLE agents (id INTEGER PRIMARY KEY, "
                       "host_id INTEGER REFERENCES hosts(id) ON DELETE SET NULL, address TEXT NOT NULL UNIQUE, "
                       "version TEXT NOT NULL DEFAULT '', capabilities TEXT NOT NULL DEFAULT '{}', last_seen TEXT)"),
        QStringLiteral("CREATE TABLE campaigns (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                       "preset TEXT NOT NULL DEFAULT '', spec TEXT NOT NULL DEFAULT '{}', "
                       "status TEXT NOT NULL CHECK (status IN ('planned','running','paused','done','failed')), "
                       "created_at TEXT NOT NULL, finished_at TEXT)"),
        QStringLiteral("CREATE TABLE runs (id INTEGER PRIMARY KEY, "
                       "campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE, "
                       "workload TEXT NOT NULL, transport TEXT NOT NULL, column_label TEXT NOT NULL, "
                       "msg_size INTEGER NOT NULL, repetition INTEGER NOT NULL, "
                       "client_agent_id INTEGER REFERENCES agents(id) ON DELETE SET NULL, "
                       "server_agent_id INTEGER REFERENCES agents(id) ON DELETE SET NULL, "
                       "status TEXT NOT NULL CHECK (status IN ('planned','running','done','failed')), "
                       "started_at TEXT, finished_at TEXT, error TEXT NOT NULL DEFAULT '', "
                       "UNIQUE (campaign_id, workload, transport, column_label, msg_size, repetition))"),
        QStringLiteral("CREATE TABLE run_settings (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, name)) WITHOUT ROWID"),
        QStringLiteral("CREATE TABLE run_host_facts (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "side TEXT NOT NULL CHECK (side IN ('client','server')), name TEXT NOT NULL, "
                       "value TEXT NOT NULL, PRIMARY KEY (run_id, side, name)) WITHOUT ROWID"),
        QStringLiteral("CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "metric TEXT NOT NULL, value REAL NOT NULL, PRIMARY KEY (run_id, metric)) WITHOUT ROWID"),
        QStringLiteral("CREATE TABLE histograms (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "metric TEXT NOT NULL, encoding TEXT NOT NULL, data BLOB NOT NULL, "
                       "PRIMARY KEY (run_id, metric))"),
        QStringLiteral("CREATE TABLE samples (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "t_ms INTEGER NOT NULL, metric TEXT NOT NULL, value REAL NOT NULL)"),
        QStringLiteral("CREATE INDEX samples_by_run ON samples (run_id, metric, t_ms)"),
        QStringLiteral("CREATE TABLE counters (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "side TEXT NOT NULL CHECK (side IN ('client','server')), name TEXT NOT NULL, "
                       "value INTEGER NOT NULL, PRIMARY KEY (run_id, side, name)) WITHOUT ROWID"),
        QStringLiteral("CREATE TABLE setting_changes (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                       "t_ms INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL)"),
        QStringLiteral("INSERT INTO meta (key, value) VALUES ('schema_version', '0')"),
    };
}

// Version 2: campaign notes (the letters' "test environment notes"), and
// indexes for the queries resume and the GUI run constantly: "cells of this
// campaign by status" and "setting changes of this run in time order".
// Also what tests migrate across.
QStringList version2() {
    return {
        QStringLiteral("ALTER TABLE campaigns ADD COLUMN notes TEXT NOT NULL DEFAULT ''"),
        QStringLiteral("CREATE INDEX runs_by_campaign_status ON runs (campaign_id, status)"),
        QStringLiteral("CREATE INDEX setting_changes_by_run ON setting_changes (run_id, t_ms)"),
    };
}

const QList<Migration>& migrations() {
    static const QList<Migration> kMigrations = {
        {1, "create the v1 schema", version1()},
        {2, "campaign notes and run indexes", version2()},
    };
    return kMigrations;
}

}  // namespace

smcr::Result<int> readVersion(const QSqlDatabase& db, const QString& path) {
    auto hasMeta = [&]() -> smcr::Result<bool> {
        auto meta = sql::exec(db, path, dialect::tableExistsQuery(db), {QStringLiteral("meta")});
        if (!meta) return smcr::fail(meta.error());
        meta->next();
        return meta->value(0).toInt() != 0;
    };
    auto meta = hasMeta();
    if (!meta) return smcr::fail(meta.error());
    if (!*meta) {
        auto tables = sql::exec(db, path, dialect::userTablesQuery(db));
        if (!tables) return smcr::fail(tables.error());
        tables->next();
        // Outside a transaction every statement sees its own snapshot: another
        // process's first migration (tables and meta in one transaction) may
        // have committed between the two looks. Meta is there now, then.
        auto metaNow = tables->value(0).toInt() > 0 ? hasMeta() : smcr::Result<bool>(false);
        if (!metaNow) return smcr::fail(metaNow.error());
        if (tables->value(0).toInt() > 0 && !*metaNow) {
            return smcr::fail(smcr::Errc::notSupported,
                              QStringLiteral("%1 is not an smclab database (it has tables but no meta table)")
                                  .arg(path)
                                  .toStdString());
        }
        if (!*metaNow) return 0;
    }
    auto version = sql::exec(db, path, QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'"));
    if (!version) return smcr::fail(version.error());
    if (!version->next()) {
        return smcr::fail(smcr::Errc::notSupported,
                          QStringLiteral("%1: meta table has no schema_version").arg(path).toStdString());
    }
    bool ok = false;
    const int value = version->value(0).toString().toInt(&ok);
    if (!ok || value < 0) {
        return smcr::fail(
            smcr::Errc::notSupported,
            QStringLiteral("%1: bad schema_version '%2'").arg(path, version->value(0).toString()).toStdString());
    }
    return value;
}

static smcr::Unexpected newerSchema(const QString& path, int version) {
    return smcr::fail(smcr::Errc::notSupported,
                      QStringLiteral("%1 has schema version %2, newer than this smclab understands (%3); "
                                     "use a newer smclab or another --db")
                          .arg(path)
                          .arg(version)
                          .arg(kSchemaVersion)
                          .toStdString());
}

smcr::Result<int> migrate(const QSqlDatabase& db, const QString& path) {
    // Refuse a newer file before touching it.
    auto found = readVersion(db, path);
    if (!found) return smcr::fail(found.error());
    if (*found > kSchemaVersion) return newerSchema(path, *found);
    // Current already: no write lock needed, so readers open while a
    // campaign is writing.
    if (*found == kSchemaVersion) return *found;

    for (;;) {
        sql::WriteTransaction tx(db, path);
        if (auto begun = tx.begin(); !begun) return smcr::fail(begun.error());
        if (const QString lock = dialect::migrationLock(db); !lock.isEmpty()) {
            if (auto locked = sql::exec(db, path, lock); !locked) return smcr::fail(locked.error());
        }
        auto current = readVersion(db, path);
        if (!current) return smcr::fail(current.error());
        if (*current > kSchemaVersion) return newerSchema(path, *current);
        if (*current == kSchemaVersion) {
            if (auto done = tx.commit(); !done) return smcr::fail(done.error());
            return *current;
        }
        const Migration* step = nullptr;
        for (const Migration& m : migrations()) {
            if (m.toVersion == *current + 1) step = &m;
        }
        if (step == nullptr) {
            return smcr::fail(
                smcr::Errc::notSupported,
                QStringLiteral("%1: no migration from schema version %2").arg(path).arg(*current).toStdString());
        }
        for (const QString& statement : step->statements) {
            auto applied = sql::exec(db, path, dialect::schemaStatement(db, statement));
            if (!applied) {
                return smcr::fail(smcr::Errc::systemError, QStringLiteral("migration to schema %1 (%2) failed: %3")
                                                               .arg(step->toVersion)
                                                               .arg(QString::fromLatin1(step->what),
                                                                    QString::fromStdString(applied.error().message))
                                                               .toStdString());
            }
        }
        auto stamped = sql::exec(db, path, QStringLiteral("UPDATE meta SET value = ? WHERE key = 'schema_version'"),
                                 {QString::number(step->toVersion)});
        if (!stamped) return smcr::fail(stamped.error());
        if (auto done = tx.commit(); !done) return smcr::fail(done.error());
    }
}

}  // namespace smclab::db::schema
