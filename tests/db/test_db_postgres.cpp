// The store on a real PostgreSQL server started by the test (initdb and
// pg_ctl in a temporary directory, as an unprivileged user): two writer
// processes at once (ids never collide, each campaign complete), a database
// of a newer schema refused, a wrong password, an unreachable server and a
// URL carrying a password each refused with a message naming the server,
// the password taken from a ~/.pgpass-style file, and a server that goes
// away mid-campaign (the run in flight fails naming the server; reopened,
// the campaign resumes with exactly the runs not committed). Skips only
// when the PostgreSQL binaries are not installed.
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "db_test_util.h"
#include "postgres_server.h"
#include "smclab/db/database_location.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

namespace {

QString writerBinary() {
    return QCoreApplication::applicationDirPath() + QStringLiteral("/db_campaign_writer");
}

QString message(const smcr::Error& error) {
    return QString::fromStdString(error.message);
}

// Restores an environment variable when the scope ends.
class EnvOverride {
public:
    EnvOverride(const char* name, const QByteArray& value, bool unset = false)
        : m_name(name), m_had(qEnvironmentVariableIsSet(name)), m_old(qgetenv(name)) {
        if (unset)
            qunsetenv(name);
        else
            qputenv(name, value);
    }
    ~EnvOverride() {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char* m_name;
    bool m_had;
    QByteArray m_old;
};

}  // namespace

class TestDbPostgres : public QObject {
    Q_OBJECT
private:
    dbtest::PostgresServer* m_server = nullptr;
    QTemporaryDir m_dir;

    QString freshDatabase(const QString& name) {
        QString why;
        if (!m_server->createDatabase(name, &why)) qWarning("%s", qPrintable(why));
        return m_server->url(name);
    }

private slots:
    void initTestCase() {
        if (dbtest::PostgresServer::binDir().isEmpty()) {
            QSKIP("PostgreSQL server binaries (initdb, pg_ctl) are not installed; install postgresql");
        }
        QString why;
        m_server = dbtest::sharedPostgres(&why);
        QVERIFY2(m_server, qPrintable(why));
    }

    void twoWriterProcessesAtOnce() {
        const QString url = freshDatabase(QStringLiteral("writers"));
        {
            // Migrated once, before the writers, so they race on data only...
            auto store = ResultStore::open(url);
            QVERIFY2(store, store ? "" : store.error().message.c_str());
        }
        // ... and on a second fresh database, on the migration too.
        const QString fresh = freshDatabase(QStringLiteral("writers_fresh"));
        for (const QString& target : {url, fresh}) {
            constexpr int kCells = 30;
            QProcess a;
            QProcess b;
            a.start(writerBinary(), {target, QStringLiteral("alpha"), QString::number(kCells)});
            b.start(writerBinary(), {target, QStringLiteral("beta"), QString::number(kCells)});
            QVERIFY(a.waitForFinished(60'000) && b.waitForFinished(60'000));
            const QString outA = QString::fromUtf8(a.readAllStandardOutput());
            const QString outB = QString::fromUtf8(b.readAllStandardOutput());
            QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
            QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());

            QSet<QString> runIds;
            for (const QString& line : (outA + outB).split('\n', Qt::SkipEmptyParts)) {
                if (line.startsWith(QLatin1String("run "))) runIds.insert(line);
            }
            QCOMPARE(runIds.size(), 2 * kCells);  // no id handed out twice
            auto store = ResultStore::open(target);
            QVERIFY(store);
            const QList<Campaign> campaigns = (*store)->listCampaigns().valueOr({});
            QCOMPARE(campaigns.size(), 2);
            QVERIFY(campaigns[0].id != campaigns[1].id);
            for (const Campaign& c : campaigns) {
                QCOMPARE(c.status, CampaignStatus::done);
                QCOMPARE(c.runsTotal, kCells);
                QCOMPARE(c.runsDone, kCells);
                for (const Run& run : (*store)->runs(c.id).valueOr({})) {
                    QCOMPARE((*store)->samples(run.id)->size(), 20);
                }
            }
        }
    }

    void storeRoundTripsTypesThroughTheServer() {
        auto store = ResultStore::open(freshDatabase(QStringLiteral("types")));
        QVERIFY(store);
        QCOMPARE((*store)->schemaVersion(), kSchemaVersion);
        QCOMPARE((*store)->journalMode().valueOr(QString()), QStringLiteral("server"));
        const RunCell c = dbtest::cell(QStringLiteral("SMC"), 65536);
        const qint64 id = (*store)->createCampaign({QStringLiteral("t"), {}, {}, {}, {c}}).valueOr(0);
        RunRecord record = dbtest::fullRecord(id, c, 1.5);
        record.counters.append({smcr::Side::client, QStringLiteral("tx_bytes"), 5'000'000'000'000LL});  // past 32 bits
        const qint64 runId = (*store)->recordRun(record).valueOr(0);
        QVERIFY(runId > 0);
        QCOMPARE((*store)->histograms(runId)->first().data, QByteArray("\x00\x01\x02\xff", 4));
        bool found = false;
        for (const Counter& counter : (*store)->counters(runId).valueOr({})) {
            if (counter.name == QLatin1String("tx_bytes")) found = counter.value == 5'000'000'000'000LL;
        }
        QVERIFY(found);
        QCOMPARE((*store)->results(runId)->value(QStringLiteral("bw_mbps")), 1.5);
    }

    void textSortsByteWiseWhateverTheServerLocale() {
        // An ICU English default collation sorts "alpha" before "Zeta"; the
        // store's columns sort byte-wise ("Zeta" first), as SQLite does.
        QString why;
        if (!m_server->psql(QStringLiteral("CREATE DATABASE english TEMPLATE template0 LOCALE_PROVIDER icu "
                                           "ICU_LOCALE 'en-US' LOCALE 'C'"),
                            &why)) {
            QSKIP(qPrintable(QStringLiteral("this PostgreSQL has no ICU collations: ") + why));
        }
        auto store = ResultStore::open(m_server->url(QStringLiteral("english")));
        QVERIFY(store);
        const RunCell c = dbtest::cell(QStringLiteral("TCP"), 1);
        const qint64 id = (*store)->createCampaign({QStringLiteral("order"), {}, {}, {}, {c}}).valueOr(0);
        RunRecord record = dbtest::fullRecord(id, c, 1.0);
        record.results = {{QStringLiteral("alpha"), 1.0}, {QStringLiteral("Zeta"), 2.0}};
        QVERIFY((*store)->recordRun(record).ok());
        QStringList metrics;
        for (const ResultValue& v : (*store)->campaignResults(id).valueOr({})) metrics << v.metric;
        QCOMPARE(metrics, (QStringList{QStringLiteral("Zeta"), QStringLiteral("alpha")}));
    }

    void newerSchemaIsRefused() {
        const QString name = QStringLiteral("newer");
        const QString url = freshDatabase(name);
        QVERIFY(ResultStore::open(url).ok());
        QString why;
        QVERIFY2(
            m_server->psql(QStringLiteral("UPDATE meta SET value = '99' WHERE key = 'schema_version'"), &why, name),
            qPrintable(why));
        auto store = ResultStore::open(url);
        QVERIFY(!store);
        QCOMPARE(store.error().code, smcr::Errc::notSupported);
        const QString text = message(store.error());
        QVERIFY2(text.contains(QStringLiteral("schema version 99")) && text.contains(QStringLiteral("newer")) &&
                     text.contains(QStringLiteral("127.0.0.1:%1").arg(m_server->port())),
                 qPrintable(text));
    }

    void notAnSmclabDatabaseIsRefused() {
        const QString name = QStringLiteral("not_smclab");
        const QString url = freshDatabase(name);
        QString why;
        QVERIFY2(m_server->psql(QStringLiteral("CREATE TABLE invoices (id int)"), &why, name), qPrintable(why));
        auto store = ResultStore::open(url);
        QVERIFY(!store);
        QVERIFY2(message(store.error()).contains(QStringLiteral("not an smclab database")),
                 store.error().message.c_str());
    }

    void wrongPasswordNamesTheServer() {
        const QString url = freshDatabase(QStringLiteral("password"));
        EnvOverride wrong("PGPASSWORD", "not-the-password");
        EnvOverride noFile("PGPASSFILE", m_dir.filePath(QStringLiteral("none")).toUtf8());
        auto store = ResultStore::open(url);
        QVERIFY(!store);
        QCOMPARE(store.error().code, smcr::Errc::connectionRefused);
        const QString text = message(store.error());
        QVERIFY2(text.contains(QStringLiteral("127.0.0.1:%1").arg(m_server->port())) &&
                     text.contains(QStringLiteral("password"), Qt::CaseInsensitive),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("not-the-password")), qPrintable(text));
    }

    void unreachableServerNamesTheServer() {
        // A port with no server (the test's own server is on another).
        const QString url = QStringLiteral("postgresql://smclab_test@127.0.0.1:1/nothing");
        QElapsedTimer clock;
        clock.start();
        auto store = ResultStore::open(url);
        QVERIFY(!store);
        QCOMPARE(store.error().code, smcr::Errc::connectionRefused);
        QVERIFY2(message(store.error()).contains(QStringLiteral("postgresql://smclab_test@127.0.0.1:1/nothing")),
                 store.error().message.c_str());
        QVERIFY(clock.elapsed() < 30'000);
    }

    void passwordComesFromAPgpassFile() {
        const QString url = freshDatabase(QStringLiteral("pgpass"));
        const QString file = m_dir.filePath(QStringLiteral("pgpass"));
        QFile pgpass(file);
        QVERIFY(pgpass.open(QIODevice::WriteOnly));
        pgpass.write(QStringLiteral("127.0.0.1:%1:*:%2:%3\n")
                         .arg(m_server->port())
                         .arg(dbtest::PostgresServer::user(), dbtest::PostgresServer::password())
                         .toUtf8());
        pgpass.close();
        QFile::setPermissions(file,
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner);  // libpq ignores wider modes
        EnvOverride noPassword("PGPASSWORD", {}, true);
        EnvOverride passFile("PGPASSFILE", file.toUtf8());
        auto store = ResultStore::open(url);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
    }

    // Last: it stops the shared server (and brings it back).
    void droppedConnectionLosesAtMostTheRunInFlight() {
        const QString url = freshDatabase(QStringLiteral("dropped"));
        const QList<RunCell> cells{dbtest::cell(QStringLiteral("TCP"), 1), dbtest::cell(QStringLiteral("TCP"), 2),
                                   dbtest::cell(QStringLiteral("TCP"), 3)};
        qint64 id = 0;
        {
            auto store = ResultStore::open(url);
            QVERIFY(store);
            id = (*store)->createCampaign({QStringLiteral("dropped"), {}, {}, {}, cells}).valueOr(0);
            QVERIFY((*store)->recordRun(dbtest::fullRecord(id, cells[0], 1.0)).ok());
            m_server->stop();
            auto lost = (*store)->recordRun(dbtest::fullRecord(id, cells[1], 2.0));
            QVERIFY(!lost);
            const QString text = message(lost.error());
            QVERIFY2(text.contains(QStringLiteral("127.0.0.1:%1").arg(m_server->port())), qPrintable(text));
            QVERIFY2(lost.error().code == smcr::Errc::connectionReset, qPrintable(text));
            QString why;
            QVERIFY2(m_server->restart(&why), qPrintable(why));
        }
        auto store = ResultStore::open(url);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        QCOMPARE((*store)->pendingCells(id).valueOr({}), (QList<RunCell>{cells[1], cells[2]}));
        for (const RunCell& cell : {cells[1], cells[2]})
            QVERIFY((*store)->recordRun(dbtest::fullRecord(id, cell, 3.0)).ok());
        QCOMPARE((*store)->campaign(id)->runsDone, 3);
    }

    void urlsAreParsedStrictly() {
        auto withPassword = parseDatabaseLocation(QStringLiteral("postgresql://lab:hunter2@db.lab:5433/results"));
        QVERIFY(!withPassword);
        QVERIFY(!message(withPassword.error()).contains(QStringLiteral("hunter2")));
        QVERIFY(message(withPassword.error()).contains(QStringLiteral("pgpass")));
        for (const char* bad :
             {"postgresql://db.lab/results", "postgresql://lab@/results", "postgresql://lab@db.lab",
              "postgresql://lab@db.lab:99999/results", "postgresql://lab@db.lab/results?sslmode=require"}) {
            QVERIFY2(!parseDatabaseLocation(QString::fromLatin1(bad)), bad);
        }
        auto good = parseDatabaseLocation(QStringLiteral("postgres://lab@db.lab/results"));
        QVERIFY(good);
        QCOMPARE(good->backend, StoreBackend::postgresql);
        QCOMPARE(good->display(), QStringLiteral("postgresql://lab@db.lab:5432/results"));
        QCOMPARE(parseDatabaseLocation(QStringLiteral("/tmp/x.db"))->backend, StoreBackend::sqlite);
    }
};

QTEST_GUILESS_MAIN(TestDbPostgres)
#include "test_db_postgres.moc"
