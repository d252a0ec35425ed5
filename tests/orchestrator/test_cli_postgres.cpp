// smclab run against a shared PostgreSQL (started by the test): two
// controllers, each with its own agent pair, write campaigns into one
// database at once (both finish, ids distinct, every run stored), and a
// runner killed mid-campaign is completed by `--resume` from another
// process (another machine's controller): only the missing cells run; a
// server that goes away mid-campaign ends the runner with an error naming
// it, and --resume after the restart completes the campaign.
// Skips only when the PostgreSQL binaries are not installed.
#include <functional>

#include <signal.h>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "agent_pair.h"
#include "agent_process.h"
#include "postgres_server.h"
#include "smclab/db/result_store.h"

using namespace smclab;

namespace {

constexpr QByteArrayView kToken = "cli-postgres-test-token";

QByteArray campaignFile(const QString& name, int sizes) {
    QStringList list;
    for (int i = 0; i < sizes; ++i) list << QString::number(1 << i);
    return QStringLiteral(R"({"name": "%1", "workloads": [{"workload": "tcp_lat", "label": "Latency"}],
        "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [%2], "durationMs": 300,
        "sampleIntervalMs": 100})")
        .arg(name, list.join(QLatin1Char(',')))
        .toUtf8();
}

}  // namespace

class TestCliPostgres : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    test::AgentPair m_first{kToken.toByteArray()};
    test::AgentPair m_second{kToken.toByteArray()};
    dbtest::PostgresServer* m_server = nullptr;

    QString writeCampaign(const QString& name, int sizes) {
        const QString file = m_dir.filePath(name + QStringLiteral(".json"));
        QFile out(file);
        if (out.open(QIODevice::WriteOnly)) out.write(campaignFile(name, sizes));
        return file;
    }

    // smclab run WHAT (a campaign file, or --resume ID) through one agent pair into the database at url.
    static void startRun(QProcess& process, const QStringList& what, test::AgentPair& agents, const QString& url) {
        process.start(test::smclabBinary(), QStringList{"run"} + what +
                                                QStringList{"--agents", agents.addresses(), "--token-file",
                                                            agents.token().path(), "--db", url});
    }

    // Watches the database while `run` runs; once the first campaign has two
    // runs in, calls act(campaign) and stops watching (also after 30 s, or
    // when the runner ended first). False when the database does not open.
    static bool whenTwoRunsIn(const QString& url, const QProcess& run,
                              const std::function<void(const db::Campaign&)>& act) {
        auto watcher = db::ResultStore::open(url);
        if (!watcher) return false;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 30'000 && run.state() == QProcess::Running) {
            QTest::qWait(50);
            const auto campaigns = (*watcher)->listCampaigns().valueOr({});
            if (!campaigns.isEmpty() && campaigns.front().runsDone >= 2) {
                act(campaigns.front());
                break;
            }
        }
        return true;
    }

    // smclab run --resume ID through `agents` completes the campaign: every cell done.
    static void resumeCompletes(qint64 campaignId, test::AgentPair& agents, const QString& url, int cells) {
        QProcess resume;
        startRun(resume, {"--resume", QString::number(campaignId)}, agents, url);
        QVERIFY(resume.waitForFinished(60'000));
        QVERIFY2(resume.exitCode() == 0, resume.readAllStandardError().constData());
        auto store = db::ResultStore::open(url);
        QVERIFY(store);
        const db::Campaign campaign = (*store)->campaign(campaignId).value();
        QCOMPARE(campaign.runsDone, cells);
        QCOMPARE(campaign.status, db::CampaignStatus::done);
    }

private slots:
    void initTestCase() {
        if (dbtest::PostgresServer::binDir().isEmpty()) {
            QSKIP("PostgreSQL server binaries (initdb, pg_ctl) are not installed; install postgresql");
        }
        QVERIFY2(QFile::exists(test::agentBinary()) && QFile::exists(test::smclabBinary()),
                 "smclab or smclab-agent is not built");
        QString why;
        m_server = dbtest::sharedPostgres(&why);
        QVERIFY2(m_server, qPrintable(why));
        QVERIFY2(m_first.start(), qPrintable(m_first.error()));
        QVERIFY2(m_second.start(), qPrintable(m_second.error()));
    }
    void cleanupTestCase() {
        m_first.stop();
        m_second.stop();
    }

    void twoControllersAtOnce() {
        QString why;
        QVERIFY2(m_server->createDatabase(QStringLiteral("team"), &why), qPrintable(why));
        const QString url = m_server->url(QStringLiteral("team"));
        constexpr int kCells = 5;
        QProcess a;
        QProcess b;
        startRun(a, {writeCampaign("alpha", kCells)}, m_first, url);
        startRun(b, {writeCampaign("beta", kCells)}, m_second, url);
        QVERIFY(a.waitForFinished(60'000) && b.waitForFinished(60'000));
        QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
        QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());

        auto store = db::ResultStore::open(url);
        QVERIFY(store);
        const QList<db::Campaign> campaigns = (*store)->listCampaigns().valueOr({});
        QCOMPARE(campaigns.size(), 2);
        QVERIFY(campaigns[0].id != campaigns[1].id);
        QSet<qint64> runIds;
        for (const db::Campaign& c : campaigns) {
            QCOMPARE(c.status, db::CampaignStatus::done);
            QCOMPARE(c.runsDone, kCells);
            for (const db::Run& run : (*store)->runs(c.id).valueOr({})) {
                runIds.insert(run.id);
                QVERIFY((*store)->results(run.id)->value(QStringLiteral("latency_us")) > 0);
            }
        }
        QCOMPARE(runIds.size(), 2 * kCells);

        QProcess list;
        list.start(test::smclabBinary(), {"list", "--db", url});
        QVERIFY(list.waitForFinished(20'000));
        const QString listed = QString::fromUtf8(list.readAllStandardOutput());
        QVERIFY2(
            list.exitCode() == 0 && listed.contains(QStringLiteral("alpha")) && listed.contains(QStringLiteral("beta")),
            qPrintable(listed));
    }

    void killedRunnerIsResumedByAnotherController() {
        QString why;
        QVERIFY2(m_server->createDatabase(QStringLiteral("resume"), &why), qPrintable(why));
        const QString url = m_server->url(QStringLiteral("resume"));
        constexpr int kCells = 8;
        QProcess run;
        startRun(run, {writeCampaign("resumable", kCells)}, m_first, url);
        QVERIFY(run.waitForStarted());
        qint64 campaignId = 0;
        int doneBefore = 0;
        whenTwoRunsIn(url, run, [&](const db::Campaign& campaign) {
            ::kill(static_cast<pid_t>(run.processId()), SIGKILL);
            campaignId = campaign.id;
        });
        QVERIFY(run.waitForFinished(10'000));
        QVERIFY2(campaignId > 0, "the campaign never got two runs in before the runner ended");
        {
            auto store = db::ResultStore::open(url);
            QVERIFY(store);
            doneBefore = (*store)->campaign(campaignId)->runsDone;
            QVERIFY(doneBefore >= 2 && doneBefore < kCells);
        }
        // Another controller, other agents, the same database.
        resumeCompletes(campaignId, m_second, url, kCells);
    }

    // Last: it stops the shared server (and brings it back). The server goes
    // away mid-campaign (pg_ctl stop -m immediate, as a crash or a restart
    // does): the runner ends with an error naming the server, the runs
    // already stored stay, and --resume after the restart completes the campaign.
    void droppedDatabaseEndsTheRunnerAndResumeCompletes() {
        QString why;
        QVERIFY2(m_server->createDatabase(QStringLiteral("dropped"), &why), qPrintable(why));
        const QString url = m_server->url(QStringLiteral("dropped"));
        constexpr int kCells = 8;
        QProcess run;
        startRun(run, {writeCampaign("dropped", kCells)}, m_first, url);
        QVERIFY(run.waitForStarted());
        qint64 campaignId = 0;
        int doneAtStop = 0;
        QVERIFY(whenTwoRunsIn(url, run, [&](const db::Campaign& campaign) {
            campaignId = campaign.id;
            doneAtStop = campaign.runsDone;
            m_server->stop();
        }));
        const bool ended = run.waitForFinished(30'000);
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QVERIFY2(ended && campaignId > 0, qPrintable("the campaign never got two runs in, or did not end: " + err));
        QVERIFY2(m_server->restart(&why), qPrintable(why));
        QCOMPARE(run.exitCode(), 1);
        QVERIFY2(err.contains(QStringLiteral("127.0.0.1:%1").arg(m_server->port())), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("--resume %1").arg(campaignId)), qPrintable(err));
        {
            auto store = db::ResultStore::open(url);
            QVERIFY(store);
            const int kept = (*store)->campaign(campaignId)->runsDone;
            QVERIFY2(kept >= doneAtStop && kept < kCells, qPrintable(QString::number(kept)));
        }
        resumeCompletes(campaignId, m_first, url, kCells);
    }
};

QTEST_GUILESS_MAIN(TestCliPostgres)
#include "test_cli_postgres.moc"
