// SIGKILL in the middle of a campaign: a child process records runs in a
// loop and is killed at varying points (often inside a recordRun
// transaction). The database must open cleanly, pass SQLite's integrity
// check, hold every run the child reported committed with all its data, hold
// no partial run, and resume must pick up exactly the cells not done.
#include <QCoreApplication>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "db_test_util.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

class TestDbKill : public QObject {
    Q_OBJECT
private slots:
    void killedWriterLosesAtMostTheRunInFlight() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kill.db"));
        const QString helper = QCoreApplication::applicationDirPath() + QStringLiteral("/db_kill_writer");
        QSet<qint64> committed;
        qint64 campaignId = 0;
        const int killAfter[] = {6, 11, 3, 17};
        for (int round = 0; round < 4; ++round) {
            QProcess child;
            child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            child.start(helper, {path});
            QVERIFY2(child.waitForStarted(5000), qPrintable(helper));
            int seen = 0;
            while (seen < killAfter[round]) {
                if (!child.canReadLine()) {
                    QVERIFY2(child.waitForReadyRead(10000), "the writer stopped reporting");
                    continue;
                }
                const QByteArray line = child.readLine().trimmed();
                if (line.startsWith("campaign ")) campaignId = line.mid(9).toLongLong();
                if (line.startsWith("committed ")) {
                    committed.insert(line.mid(10).toLongLong());
                    ++seen;
                }
            }
            // Land at a varying point of the next transaction.
            QThread::usleep(QRandomGenerator::global()->bounded(3000));
            child.kill();  // SIGKILL
            QVERIFY(child.waitForFinished(5000));
            QCOMPARE(child.exitStatus(), QProcess::CrashExit);
            // Lines the child wrote before it died are still in the pipe.
            for (const QByteArray& line : child.readAllStandardOutput().split('\n')) {
                if (line.startsWith("committed ")) committed.insert(line.mid(10).trimmed().toLongLong());
            }
            verify(path, campaignId, committed);
            if (QTest::currentTestFailed()) return;
            // What survived is durable; only the next round's run in flight may
            // be committed without having been reported.
            committed = m_done;
        }
    }

private:
    QSet<qint64> m_done;

    void verify(const QString& path, qint64 campaignId, const QSet<qint64>& committed) {
        m_done.clear();
        {
            dbtest::RawDb raw(path);
            QVERIFY(raw.ok());
            QCOMPARE(raw.scalar(QStringLiteral("PRAGMA integrity_check")).toString(), QStringLiteral("ok"));
        }
        auto opened = ResultStore::open(path);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
        ResultStore& store = **opened;
        const QList<Run> runs = store.runs(campaignId).value();
        QCOMPARE(runs.size(), 300);
        int done = 0;
        for (const Run& run : runs) {
            const int samples = static_cast<int>(store.samples(run.id)->size());
            const int results = static_cast<int>(store.results(run.id)->size());
            const int counters = static_cast<int>(store.counters(run.id)->size());
            const int settings = static_cast<int>(store.settings(run.id)->size());
            const RunFacts facts = store.hostFacts(run.id).value();
            const int histograms = static_cast<int>(store.histograms(run.id)->size());
            const int changes = static_cast<int>(store.settingChanges(run.id)->size());
            if (run.status == RunStatus::done) {
                ++done;
                m_done.insert(run.id);
                QCOMPARE(samples, 200);
                QCOMPARE(results, 2);
                QCOMPARE(counters, 2);
                QCOMPARE(settings, 3);
                QCOMPARE(facts.client.size() + facts.server.size(), 6);
                QCOMPARE(histograms, 1);
                QCOMPARE(changes, 1);
                QCOMPARE(store.results(run.id)->value(QStringLiteral("bw_mbps")),
                         static_cast<double>(run.cell.msgSize));
            } else {
                QCOMPARE(run.status, RunStatus::planned);
                QVERIFY2(samples + results + counters + settings + histograms + changes == 0,
                         qPrintable(QStringLiteral("run %1 is partial").arg(run.id)));
                QVERIFY2(!committed.contains(run.id), qPrintable(QStringLiteral("committed run %1 lost").arg(run.id)));
            }
        }
        // At most the run in flight committed without being reported.
        QVERIFY(done >= committed.size());
        QVERIFY2(done <= committed.size() + 1,
                 qPrintable(QStringLiteral("done %1 committed %2").arg(done).arg(committed.size())));
        QCOMPARE(store.pendingCells(campaignId)->size(), 300 - done);
    }
};

QTEST_GUILESS_MAIN(TestDbKill)
#include "test_db_kill.moc"
