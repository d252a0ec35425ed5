// Two writer threads, each with its own ResultStore (its own named
// connection) on one file, and the main thread reading while they write.
// Also on PostgreSQL as test_db_threads_postgresql.
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "db_test_util.h"
#include "postgres_server.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

class TestDbThreads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (dbtest::usePostgres() && dbtest::PostgresServer::binDir().isEmpty()) {
            QSKIP("PostgreSQL server binaries (initdb, pg_ctl) are not installed; install postgresql");
        }
    }

    void twoWritersAndAReader() {
        QTemporaryDir dir;
        QString why;
        const QString path = dbtest::storeLocation(dir, QStringLiteral("threads.db"), &why);
        QVERIFY2(!path.isEmpty(), qPrintable(why));
        auto main = ResultStore::open(path);
        QVERIFY(main.ok());
        NewCampaign nc{QStringLiteral("threads"), {}, {}, {}, {}};
        for (int i = 0; i < 40; ++i) {
            nc.cells << dbtest::cell(QStringLiteral("TCP"), i) << dbtest::cell(QStringLiteral("SMC"), i);
        }
        const qint64 id = (*main)->createCampaign(nc).valueOr(0);
        QVERIFY(id > 0);

        std::atomic<int> failures{0};
        auto writer = [&](const QString& column) {
            auto store = ResultStore::open(path);
            if (!store) {
                ++failures;
                return;
            }
            for (int i = 0; i < 40; ++i) {
                if (!(*store)->recordRun(dbtest::fullRecord(id, dbtest::cell(column, i), i, 30))) ++failures;
            }
        };
        std::unique_ptr<QThread> a(QThread::create(writer, QStringLiteral("TCP")));
        std::unique_ptr<QThread> b(QThread::create(writer, QStringLiteral("SMC")));
        a->start();
        b->start();
        int reads = 0;
        while (!a->isFinished() || !b->isFinished()) {
            auto campaign = (*main)->campaign(id);  // WAL: reads while the others write
            QVERIFY(campaign.ok());
            QVERIFY(campaign->runsDone <= 80);
            ++reads;
            QThread::msleep(2);
        }
        QVERIFY(a->wait(20000));
        QVERIFY(b->wait(20000));
        QCOMPARE(failures.load(), 0);
        QVERIFY(reads > 0);
        const Campaign campaign = (*main)->campaign(id).value();
        QCOMPARE(campaign.runsDone, 80);
        QCOMPARE((*main)->pendingCells(id)->size(), 0);
        // Keep the list alive: a range-for over a temporary Result's value() dangles.
        const QList<Run> runs = (*main)->runs(id).value();
        for (const Run& run : runs) {
            auto samples = (*main)->samples(run.id);
            QVERIFY2(samples.ok(), samples.ok() ? "" : samples.error().message.c_str());
            QCOMPARE(samples->size(), 30);
        }
    }
};

QTEST_GUILESS_MAIN(TestDbThreads)
#include "test_db_threads.moc"
