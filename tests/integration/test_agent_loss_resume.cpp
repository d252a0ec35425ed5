// An agent SIGKILLed in the middle of a campaign that the `smclab` CLI runs
// with --on-agent-loss pause: the CLI must stop before the next cell and
// exit non-zero naming the `--resume` command; once the agent is back on its
// port, `smclab run --resume ID` runs every cell that is not done (the one
// that was in flight included) and the campaign ends complete. Covers the
// CLI side of the agent-loss path; the orchestrator library side and a
// SIGKILLed CLI are tests/orchestrator.
#include <functional>
#include <memory>

#include <signal.h>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "smclab/db/result_store.h"

using namespace smclab;

namespace {

QString binary(const char* name) {
    return qEnvironmentVariable("SMCLAB_BIN_DIR", ".") + '/' + name;
}

bool waitFor(const std::function<bool()>& pred, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!pred() && timer.elapsed() < timeoutMs) QTest::qWait(20);
    return pred();
}

// One smclab-agent on loopback; restart() brings it back on the same port.
class Agent {
public:
    explicit Agent(QString tokenFile) : m_tokenFile(std::move(tokenFile)) {}
    ~Agent() { kill(); }
    bool start(quint16 port = 0) {
        m_process = std::make_unique<QProcess>();
        m_process->start(binary("smclab-agent"),
                         {"--listen", QString("127.0.0.1:%1").arg(port), "--token-file", m_tokenFile});
        if (!m_process->waitForStarted(5000)) return false;
        const QRegularExpression listening("listening on [^\\s]*:(\\d+)");
        QByteArray out;
        const bool ok = waitFor(
            [&] {
                out += m_process->readAllStandardOutput();
                return listening.match(QString::fromUtf8(out)).hasMatch() || m_process->state() != QProcess::Running;
            },
            10000);
        const auto match = listening.match(QString::fromUtf8(out));
        if (!ok || !match.hasMatch()) return false;
        m_port = static_cast<quint16>(match.captured(1).toUInt());
        return true;
    }
    // The port may be in TIME_WAIT for a moment after the kill.
    bool restart() {
        for (int attempt = 0; attempt < 50; ++attempt) {
            if (start(m_port)) return true;
            QTest::qWait(100);
        }
        return false;
    }
    void kill() {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            ::kill(static_cast<pid_t>(m_process->processId()), SIGKILL);
            m_process->waitForFinished(5000);
        }
    }
    QString address() const { return QString("127.0.0.1:%1").arg(m_port); }

private:
    QString m_tokenFile;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
};

}  // namespace

class TestAgentLossResume : public QObject {
    Q_OBJECT
private slots:
    void agentKilledThenCliResumes() {
        QVERIFY2(QFile::exists(binary("smclab")) && QFile::exists(binary("smclab-agent")),
                 "smclab or smclab-agent is not built");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tokenFile = dir.filePath("token");
        {
            QFile f(tokenFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::number(QRandomGenerator::global()->generate64(), 16));
            f.close();
            QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        }
        Agent server(tokenFile);
        Agent client(tokenFile);
        QVERIFY(server.start());
        QVERIFY(client.start());
        const int kCells = 5;
        const QString campaign = dir.filePath("loss.json");
        {
            QFile f(campaign);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"name": "agent-loss", "workloads": [{"workload": "tcp_lat", "label": "Latency"}],
                "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [1, 2, 4, 8, 16],
                "durationMs": 600, "sampleIntervalMs": 100, "onAgentLoss": "pause"})");
        }
        const QString dbPath = dir.filePath("loss.db");
        const QString agents = server.address() + ',' + client.address();
        QProcess run;
        run.start(binary("smclab"), {"run", campaign, "--agents", agents, "--token-file", tokenFile, "--db", dbPath});
        QVERIFY(run.waitForStarted());

        // Kill the server agent once the first cell is stored (the second is then in flight).
        qint64 campaignId = 0;
        QVERIFY2(waitFor(
                     [&] {
                         auto store = db::ResultStore::open(dbPath);
                         if (!store) return false;
                         auto campaigns = (*store)->listCampaigns();
                         if (!campaigns || campaigns->isEmpty() || campaigns->front().runsDone < 1) return false;
                         campaignId = campaigns->front().id;
                         return true;
                     },
                     30000),
                 "the first cell never finished");
        server.kill();
        QVERIFY(run.waitForFinished(30000));
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QVERIFY2(run.exitCode() != 0, qPrintable(err));
        QVERIFY2(err.contains("paused") && err.contains(QString("--resume %1").arg(campaignId)), qPrintable(err));
        int doneBefore = 0;
        {
            auto store = db::ResultStore::open(dbPath);
            QVERIFY(store.ok());
            auto c = (*store)->campaign(campaignId);
            QVERIFY(c.ok());
            doneBefore = c->runsDone;
            QVERIFY2(doneBefore >= 1 && doneBefore < kCells, qPrintable(QString::number(doneBefore)));
        }

        QVERIFY(server.restart());
        QProcess resume;
        resume.start(binary("smclab"), {"run", "--resume", QString::number(campaignId), "--agents", agents,
                                        "--token-file", tokenFile, "--db", dbPath});
        QVERIFY(resume.waitForFinished(60000));
        const QString resumeErr = QString::fromUtf8(resume.readAllStandardError());
        const QString resumeOut = QString::fromUtf8(resume.readAllStandardOutput());
        QVERIFY2(resume.exitCode() == 0, qPrintable(resumeErr));
        const auto plan = QRegularExpression("(\\d+) cells to run of (\\d+)").match(resumeErr);
        QVERIFY2(plan.hasMatch(), qPrintable(resumeErr));
        QCOMPARE(plan.captured(1).toInt(), kCells - doneBefore);
        QCOMPARE(resumeOut.count(" us"), kCells);

        auto store = db::ResultStore::open(dbPath);
        QVERIFY(store.ok());
        auto c = (*store)->campaign(campaignId);
        QVERIFY(c.ok());
        QCOMPARE(c->runsDone, kCells);
        auto pending = (*store)->pendingCells(campaignId);
        QVERIFY(pending.ok());
        QCOMPARE(pending->size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgentLossResume)
#include "test_agent_loss_resume.moc"
