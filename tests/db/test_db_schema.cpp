// Opening, schema versions and migrations, WAL, foreign keys, lock errors
// and where the file lives.
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include "db_test_util.h"
#include "smclab/db/database_path.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

namespace {

// The v1 schema exactly as the first release wrote it; a real file from the
// field, not the current code's idea of it.
const char* const kVersion1[] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
    "CREATE TABLE hosts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, facts TEXT NOT NULL DEFAULT '{}', "
    "last_seen TEXT)",
    "CREATE TABLE agents (id INTEGER PRIMARY KEY, host_id INTEGER REFERENCES hosts(id) ON DELETE SET NULL, "
    "address TEXT NOT NULL UNIQUE, version TEXT NOT NULL DEFAULT '', capabilities TEXT NOT NULL DEFAULT '{}', "
    "last_seen TEXT)",
    "CREATE TABLE campaigns (id INTEGER PRIMARY KEY, name TEXT NOT NULL, preset TEXT NOT NULL DEFAULT '', "
    "spec TEXT NOT NULL DEFAULT '{}', status TEXT NOT NULL CHECK (status IN "
    "('planned','running','paused','done','failed')), "
    "created_at TEXT NOT NULL, finished_at TEXT)",
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE "
    "CASCADE, "
    "workload TEXT NOT NULL, transport TEXT NOT NULL, column_label TEXT NOT NULL, msg_size INTEGER NOT NULL, "
    "repetition INTEGER NOT NULL, client_agent_id INTEGER REFERENCES agents(id) ON DELETE SET NULL, "
    "server_agent_id INTEGER REFERENCES agents(id) ON DELETE SET NULL, "
    "status TEXT NOT NULL CHECK (status IN ('planned','running','done','failed')), started_at TEXT, finished_at TEXT, "
    "error TEXT NOT NULL DEFAULT '', UNIQUE (campaign_id, workload, transport, column_label, msg_size, repetition))",
    "CREATE TABLE run_settings (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (run_id, name)) WITHOUT ROWID",
    "CREATE TABLE run_host_facts (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
    "side TEXT NOT NULL CHECK (side IN ('client','server')), name TEXT NOT NULL, value TEXT NOT NULL, "
    "PRIMARY KEY (run_id, side, name)) WITHOUT ROWID",
    "CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, metric TEXT NOT NULL, "
    "value REAL NOT NULL, PRIMARY KEY (run_id, metric)) WITHOUT ROWID",
    "CREATE TABLE histograms (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, metric TEXT NOT NULL, "
    "encoding TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run_id, metric))",
    "CREATE TABLE samples (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t_ms INTEGER NOT NULL, "
    "metric TEXT NOT NULL, value REAL NOT NULL)",
    "CREATE INDEX samples_by_run ON samples (run_id, metric, t_ms)",
    "CREATE TABLE counters (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
    "side TEXT NOT NULL CHECK (side IN ('client','server')), name TEXT NOT NULL, value INTEGER NOT NULL, "
    "PRIMARY KEY (run_id, side, name)) WITHOUT ROWID",
    "CREATE TABLE setting_changes (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t_ms INTEGER NOT "
    "NULL, "
    "name TEXT NOT NULL, value TEXT NOT NULL)",
    "INSERT INTO meta (key, value) VALUES ('schema_version', '1')",
    "INSERT INTO campaigns (id, name, preset, spec, status, created_at) VALUES "
    "(7, 'old datapath', 'datapath', '{\"sizes\":[1,2]}', 'done', '2025-01-02T03:04:05.000Z')",
    "INSERT INTO runs (id, campaign_id, workload, transport, column_label, msg_size, repetition, status, started_at, "
    "finished_at) VALUES (11, 7, 'tcp_bw', 'tcp', 'TCP', 1, 0, 'done', '2025-01-02T03:04:05.000Z', "
    "'2025-01-02T03:04:35.000Z')",
    "INSERT INTO runs (id, campaign_id, workload, transport, column_label, msg_size, repetition, status) VALUES "
    "(12, 7, 'tcp_bw', 'tcp', 'TCP', 2, 0, 'planned')",
    "INSERT INTO results (run_id, metric, value) VALUES (11, 'bw_mbps', 2.392)",
    "INSERT INTO counters (run_id, side, name, value) VALUES (11, 'client', 'cdc_msgs_sent', 42)",
};

bool writeVersion1(const QString& path) {
    dbtest::RawDb raw(path);
    if (!raw.ok()) return false;
    for (const char* statement : kVersion1) {
        if (!raw.exec(QString::fromLatin1(statement))) return false;
    }
    return true;
}

}  // namespace

class TestDbSchema : public QObject {
    Q_OBJECT
private slots:
    void freshFileGetsTheCurrentSchemaInWalMode() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/folder/smclab.db"));
        auto store = ResultStore::open(path);
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
        QCOMPARE((*store)->schemaVersion(), kSchemaVersion);
        QCOMPARE((*store)->journalMode().valueOr(QString()), QStringLiteral("wal"));
        QVERIFY(QFile::exists(path));
        dbtest::RawDb raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")).toString(),
                 QString::number(kSchemaVersion));
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("wal"));
    }

    void reopeningKeepsDataAndVersion() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.db"));
        qint64 id = 0;
        {
            auto store = ResultStore::open(path);
            QVERIFY(store.ok());
            auto created =
                (*store)->createCampaign({QStringLiteral("c"), {}, {}, {}, {dbtest::cell(QStringLiteral("TCP"), 1)}});
            QVERIFY2(created.ok(), created.ok() ? "" : created.error().message.c_str());
            id = *created;
        }
        auto again = ResultStore::open(path);
        QVERIFY(again.ok());
        QCOMPARE((*again)->campaign(id)->name, QStringLiteral("c"));
    }

    void foreignKeysCascadeOnDelete() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("fk.db"));
        auto store = ResultStore::open(path);
        QVERIFY(store.ok());
        const qint64 id =
            (*store)
                ->createCampaign({QStringLiteral("c"), {}, {}, {}, {dbtest::cell(QStringLiteral("TCP"), 1)}})
                .valueOr(0);
        QVERIFY((*store)->recordRun(dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 1), 2.0)).ok());
        dbtest::RawDb raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM samples")).toInt(), 20);
        QVERIFY((*store)->deleteCampaign(id).ok());
        // Only a connection with foreign_keys=ON cascades.
        for (const char* table : {"runs", "results", "samples", "counters", "run_settings", "run_host_facts",
                                  "histograms", "setting_changes"}) {
            QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM %1").arg(QLatin1String(table))).toInt(), 0);
        }
        QCOMPARE((*store)->deleteCampaign(id).error().code, smcr::Errc::notFound);
    }

    void migratesAVersion1FileWithItsData() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v1.db"));
        QVERIFY(writeVersion1(path));
        auto store = ResultStore::open(path);
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
        QCOMPARE((*store)->schemaVersion(), 2);
        auto campaign = (*store)->campaign(7);
        QVERIFY(campaign.ok());
        QCOMPARE(campaign->name, QStringLiteral("old datapath"));
        QCOMPARE(campaign->preset, QStringLiteral("datapath"));
        QCOMPARE(campaign->status, CampaignStatus::done);
        QCOMPARE(campaign->notes, QString());  // the v2 column, defaulted
        QCOMPARE(campaign->runsTotal, 2);
        QCOMPARE(campaign->runsDone, 1);
        QCOMPARE(campaign->spec.value(QStringLiteral("sizes")).toArray().size(), 2);
        QCOMPARE((*store)->results(11)->value(QStringLiteral("bw_mbps")), 2.392);
        QCOMPARE((*store)->counters(11)->value(0).value, 42);
        QCOMPARE((*store)->pendingCells(7)->size(), 1);
        dbtest::RawDb raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")).toString(),
                 QStringLiteral("2"));
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'runs_by_campaign_status'"))
                     .toInt(),
                 1);
        // New writes use the new column.
        const qint64 id =
            (*store)->createCampaign({QStringLiteral("new"), {}, {}, QStringLiteral("2 VMs, CX-4 Lx"), {}}).valueOr(0);
        QCOMPARE((*store)->campaign(id)->notes, QStringLiteral("2 VMs, CX-4 Lx"));
    }

    void aFailedMigrationLeavesTheOldVersionWhole() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("v1-broken.db"));
        QVERIFY(writeVersion1(path));
        {
            // The v2 step's index already exists under that name: its CREATE fails
            // after the ALTER TABLE ran; the whole step must roll back.
            dbtest::RawDb raw(path);
            QVERIFY(raw.exec(QStringLiteral("CREATE INDEX setting_changes_by_run ON setting_changes (run_id)")));
        }
        auto store = ResultStore::open(path);
        QVERIFY(!store.ok());
        QVERIFY(QString::fromStdString(store.error().message).contains(QStringLiteral("migration to schema 2")));
        dbtest::RawDb raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")).toString(),
                 QStringLiteral("1"));
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM pragma_table_info('campaigns') WHERE name = 'notes'"))
                     .toInt(),
                 0);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'runs_by_campaign_status'"))
                     .toInt(),
                 0);
        QCOMPARE(raw.scalar(QStringLiteral("SELECT count(*) FROM results")).toInt(), 1);
    }

    void refusesANewerSchemaWithoutTouchingIt() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("future.db"));
        {
            dbtest::RawDb raw(path);
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO meta VALUES ('schema_version', '99')")));
        }
        auto store = ResultStore::open(path);
        QVERIFY(!store.ok());
        QCOMPARE(store.error().code, smcr::Errc::notSupported);
        const QString message = QString::fromStdString(store.error().message);
        QVERIFY2(message.contains(QStringLiteral("schema version 99")) && message.contains(QStringLiteral("newer")),
                 qPrintable(message));
        dbtest::RawDb raw(path);
        QCOMPARE(raw.scalar(QStringLiteral("PRAGMA journal_mode")).toString(), QStringLiteral("delete"));
        QCOMPARE(raw.scalar(QStringLiteral("SELECT value FROM meta")).toString(), QStringLiteral("99"));
    }

    void refusesForeignFiles() {
        QTemporaryDir dir;
        const QString other = dir.filePath(QStringLiteral("other.db"));
        {
            dbtest::RawDb raw(other);
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE torrents (id INTEGER)")));
        }
        auto store = ResultStore::open(other);
        QVERIFY(!store.ok());
        QVERIFY(QString::fromStdString(store.error().message).contains(QStringLiteral("not an smclab database")));

        const QString garbage = dir.filePath(QStringLiteral("garbage.db"));
        QFile file(garbage);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(4096, 'x'));
        file.close();
        auto broken = ResultStore::open(garbage);
        QVERIFY(!broken.ok());
        QVERIFY(QString::fromStdString(broken.error().message).contains(garbage));
    }

    void lockedDatabaseIsAClearError() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("locked.db"));
        auto store = ResultStore::open(path, {200});
        QVERIFY(store.ok());
        dbtest::RawDb other(path);
        QVERIFY(other.exec(QStringLiteral("BEGIN IMMEDIATE")));  // another writer holds the lock
        auto created = (*store)->createCampaign({QStringLiteral("c"), {}, {}, {}, {}});
        QVERIFY(!created.ok());
        QCOMPARE(created.error().code, smcr::Errc::timedOut);
        QVERIFY2(
            QString::fromStdString(created.error().message).contains(QStringLiteral("database is locked: ") + path),
            created.error().message.c_str());
        // Readers still work (WAL), and a second process can open to read.
        QVERIFY((*store)->listCampaigns().ok());
        auto second = ResultStore::open(path, {200});
        QVERIFY(second.ok());
        QVERIFY((*second)->listCampaigns().ok());
        QCOMPARE((*second)->updateCampaignStatus(1, CampaignStatus::done).error().code, smcr::Errc::timedOut);
        QVERIFY(other.exec(QStringLiteral("COMMIT")));
        QVERIFY((*store)->createCampaign({QStringLiteral("c"), {}, {}, {}, {}}).ok());
    }

    void pathResolution() {
        QCOMPARE(resolveDatabasePath(QStringLiteral("/x/y.db")), QStringLiteral("/x/y.db"));
        qputenv(kDatabaseEnv, "/tmp/from-env.db");
        QCOMPARE(resolveDatabasePath(), QStringLiteral("/tmp/from-env.db"));
        QCOMPARE(resolveDatabasePath(QStringLiteral("/x/y.db")), QStringLiteral("/x/y.db"));
        qunsetenv(kDatabaseEnv);
        QVERIFY2(resolveDatabasePath().endsWith(QStringLiteral("/smclab/smclab.db")),
                 qPrintable(resolveDatabasePath()));
        QCOMPARE(resolveDatabasePath(), defaultDatabasePath());
    }
};

QTEST_GUILESS_MAIN(TestDbSchema)
#include "test_db_schema.moc"
