// The tool workloads end to end: two real agents, `smclab run` with a
// campaign of qperf, nginx-wrk, redis and iperf3 over tcp and over smcr
// (each side under smcr_run), one-second cells; what the store keeps (the
// tools' figures, command lines, versions, output, CPU of both sides, the
// preloaded processes' counters). Then the refusals: a parameter out of
// range, a program the controller tries to name, ksmc where the kernel has
// no SMC, and an agent whose configured program does not exist. And a tool
// campaign stopped mid-way (SIGINT, as Ctrl-C) and resumed: every cell done
// once, the tools' output stored.
#include <csignal>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "agent_harness.h"
#include "agent_process.h"
#include "smclab/db/result_store.h"

using namespace smclab;
using namespace smclab::test;

namespace {

struct CliRun {
    int exitCode = -1;
    QString out;
    QString err;
};

CliRun runCampaign(const QString& file, const QString& agents, const TokenFile& token, const QString& db) {
    QProcess p;
    p.start(smclabBinary(), {"run", file, "--agents", agents, "--token-file", token.path(), "--db", db});
    CliRun r;
    if (!p.waitForFinished(80'000)) {
        p.kill();
        p.waitForFinished(2000);
        r.err = "smclab run timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    QFile f(dir.filePath(name));
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return f.fileName();
}

}  // namespace

class TestAgentTools : public QObject {
    Q_OBJECT

private:
    TokenFile m_token;
    AgentProcess m_server;
    AgentProcess m_client;
    QTemporaryDir m_dir;

private slots:
    void initTestCase() {
        for (const char* tool : {"qperf", "nginx", "wrk", "redis-server", "redis-benchmark", "iperf3"}) {
            if (QStandardPaths::findExecutable(tool, {"/usr/bin", "/usr/sbin", "/bin", "/sbin"}).isEmpty())
                QSKIP(qPrintable(QString("%1 is not installed (packaging/install-deps.sh)").arg(tool)));
        }
        QVERIFY2(m_server.start(m_token, {"--cpu", "0"}), qPrintable(m_server.error()));
        QVERIFY2(m_client.start(m_token, {"--cpu", "1"}), qPrintable(m_client.error()));
    }

    void everyToolOverTcpAndSmcr() {
        const QString file = writeFile(m_dir, "tools.json", R"({
          "name": "tools",
          "workloads": [
            {"workload": "qperf", "label": "qperf", "params": {"test": "tcp_bw"}},
            {"workload": "nginx-wrk", "label": "nginx", "params": {"threads": 1, "connections": 4},
             "serverParams": {"workers": 2, "sendfile": true}},
            {"workload": "redis", "label": "redis", "params": {"requests": 200, "clients": 8}},
            {"workload": "iperf3", "label": "iperf3"}
          ],
          "columns": [{"label": "TCP", "transport": "tcp"}, {"label": "SMC", "transport": "smcr"}],
          "sizes": [4096],
          "duration": "1s",
          "sampleIntervalMs": 250,
          "transportOptions": {"fabric": "sim"}
        })");
        const QString db = m_dir.filePath("tools.sqlite");
        const CliRun r = runCampaign(file, m_server.address() + "," + m_client.address(), m_token, db);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));

        auto store = db::ResultStore::open(db);
        QVERIFY(store.ok());
        const qint64 campaignId = (*store)->listCampaigns()->first().id;
        const QList<db::Run> runs = *(*store)->runs(campaignId);
        QCOMPARE(runs.size(), 8);
        const QMap<QString, QString> headline{
            {"qperf", "bw_mbps"}, {"nginx-wrk", "rps"}, {"redis", "set_rps"}, {"iperf3", "bw_mbps"}};
        for (const db::Run& run : runs) {
            const QString where = run.cell.workload + " over " + run.cell.transport;
            QVERIFY2(run.status == db::RunStatus::done, qPrintable(where + ": " + run.error));
            const QMap<QString, double> results = *(*store)->results(run.id);
            QVERIFY2(results.value(headline.value(run.cell.workload)) > 0,
                     qPrintable(where + ": " + QStringList(results.keys()).join(",")));
            QVERIFY2(results.value("cpu_sec") > 0 && results.contains("server_cpu_sec"), qPrintable(where));
            const db::RunFacts facts = *(*store)->hostFacts(run.id);
            for (const db::HostFacts* side : {&facts.client, &facts.server}) {
                QVERIFY2(!side->value("tool.version").isEmpty(), qPrintable(where));
                QVERIFY2(side->value("tool.command").contains(side->value("tool.program")), qPrintable(where));
                QCOMPARE(side->value("tool.command").contains("smcr_run"), run.cell.transport == "smcr");
            }
            QVERIFY2(!facts.client.value("tool.output").isEmpty(), qPrintable(where));
            // Live samples: iperf3's server prints its intervals; the others
            // print none, so under smcr their engines are sampled and over
            // tcp the run's facts say there were none.
            const QString how = facts.client.value("tool.samples");
            QVERIFY2(!how.isEmpty() && !facts.server.value("tool.samples").isEmpty(), qPrintable(where));
            if (run.cell.workload == "iperf3") {
                QVERIFY2(facts.server.value("tool.samples").startsWith("iperf3's own interval lines"),
                         qPrintable(where + ": " + facts.server.value("tool.samples")));
                const QList<db::Sample> series = (*store)->samples(run.id, "server_throughput_mbps").valueOr({});
                QVERIFY2(series.size() >= 2, qPrintable(where + ": " + QString::number(series.size())));
                for (qsizetype i = 1; i < series.size(); ++i) QVERIFY(series[i].tMs > series[i - 1].tMs);
                QVERIFY(series.first().tMs > 0 && series.last().tMs < 10'000);
            }
            if (run.cell.transport == "tcp") {
                QVERIFY2(how.startsWith("none: ") && how.contains("no interval samples"),
                         qPrintable(where + ": " + how));
            } else {
                QVERIFY2(how.startsWith("engine counters of the preloaded processes"), qPrintable(where + ": " + how));
                // A one-second timed client under smcr: its engines were read while it ran.
                if (run.cell.workload == "qperf" || run.cell.workload == "nginx-wrk")
                    QVERIFY2(!(*store)->samples(run.id, "throughput_mbps").valueOr({}).isEmpty(), qPrintable(where));
            }
            if (run.cell.transport == "smcr") {
                // The preloaded client's engine counters: its connections went over SMC-R.
                qint64 smc = 0;
                const QList<db::Counter> counters = (*store)->counters(run.id).valueOr({});
                for (const db::Counter& c : counters) {
                    if (c.side == smcr::Side::client && c.name == "smc_connections") smc = c.value;
                }
                QVERIFY2(smc >= 1, qPrintable(where));
            }
        }
    }

    void refusalsNameTheField() {
        const QString file = writeFile(m_dir, "bad.json", R"({
          "name": "bad",
          "workloads": [
            {"workload": "nginx-wrk", "label": "threads", "params": {"threads": 1000}},
            {"workload": "redis", "label": "program", "params": {"program": "/bin/sh"}},
            {"workload": "qperf", "label": "cpu", "params": {"cpu": 4096}}
          ],
          "columns": [{"label": "TCP", "transport": "tcp"}, {"label": "kernel SMC", "transport": "ksmc"}],
          "sizes": [64],
          "duration": "1s"
        })");
        const CliRun r =
            runCampaign(file, m_server.address() + "," + m_client.address(), m_token, m_dir.filePath("bad.sqlite"));
        QVERIFY2(r.exitCode == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains("params.threads: must be in 1..64, got 1000"), qPrintable(r.err));
        QVERIFY2(r.err.contains("params.program: unknown parameter"), qPrintable(r.err));
        QVERIFY2(r.err.contains("params.cpu:"), qPrintable(r.err));
        // No AF_SMC in this kernel: the ksmc column says so (or, with SMC, smc_run's absence).
        QVERIFY2(r.err.contains("ksmc"), qPrintable(r.err));
    }

    void liveSettingsReachThePreloadedProgram() {
        // A set_settings during a run goes into the preloaded program's own
        // engines (nginx under smcr_run), as `smclab set PID` would.
        TestController server;
        QVERIFY(server.connectTo("127.0.0.1", m_server.port(), m_token.token()));
        protocol::StartRun run = serverRun("live-srv", "nginx-wrk", 10'000, {{"workers", 1}});
        run.transport = "smcr";
        run.transportOptions = {{"fabric", "sim"}};
        QCOMPARE(server.startRun(run).value("type").toString(), QString("run_accepted"));
        QVERIFY(server.waitForReady("live-srv"));
        const QJsonObject applied = server.request([&](auto h) {
            return server.client.setSettings("live-srv", {{"lab.cork_timer_ms", 5}}, h);
        });
        QVERIFY2(applied.value("type").toString() == "settings_applied", qPrintable(QJsonDocument(applied).toJson()));
        server.request([&](auto h) { return server.client.stopRun("live-srv", h); });
        QVERIFY(server.waitForResult("live-srv"));
        const QString log = m_server.log();
        QVERIFY2(QRegularExpression("lab.cork_timer_ms=5 set in [1-9][0-9]* preloaded process").match(log).hasMatch(),
                 qPrintable(log.right(2000)));
    }

    void stoppedCampaignResumes() {
        constexpr int kCells = 3;
        const QString file = writeFile(m_dir, "resume.json", R"({
          "name": "resume", "workloads": [{"workload": "iperf3", "label": "iperf3"}],
          "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [16384, 32768, 65536], "duration": "1s"
        })");
        const QString db = m_dir.filePath("resume.sqlite");
        const QString agents = m_server.address() + "," + m_client.address();
        QProcess run;
        run.start(smclabBinary(), {"run", file, "--agents", agents, "--token-file", m_token.path(), "--db", db});
        QVERIFY(run.waitForStarted());
        // Ctrl-C once the first cell is in: the orchestrator stops the cell in
        // flight and keeps the campaign resumable.
        qint64 campaignId = 0;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 30'000 && run.state() == QProcess::Running && campaignId == 0) {
            QTest::qWait(100);
            auto store = db::ResultStore::open(db);
            if (!store) continue;
            auto campaigns = (*store)->listCampaigns();
            if (!campaigns || campaigns->isEmpty() || campaigns->front().runsDone < 1) continue;
            campaignId = campaigns->front().id;
            ::kill(static_cast<pid_t>(run.processId()), SIGINT);
        }
        QVERIFY(run.waitForFinished(20'000));
        QVERIFY2(campaignId > 0, "the campaign never got a run in");
        const QString stoppedErr = QString::fromUtf8(run.readAllStandardError());
        QVERIFY2(run.exitCode() == 130 && stoppedErr.contains("--resume"), qPrintable(stoppedErr));

        QMap<qint64, QDateTime> finishedBefore;  // size -> finished_at
        {
            auto store = db::ResultStore::open(db);
            QVERIFY(store.ok());
            for (const db::Run& r : *(*store)->runs(campaignId)) {
                if (r.status == db::RunStatus::done) finishedBefore.insert(r.cell.msgSize, r.finishedAt);
            }
        }
        QVERIFY2(!finishedBefore.isEmpty() && finishedBefore.size() < kCells, qPrintable(stoppedErr));

        QProcess resume;
        resume.start(smclabBinary(), {"run", "--resume", QString::number(campaignId), "--agents", agents,
                                      "--token-file", m_token.path(), "--db", db});
        QVERIFY(resume.waitForFinished(40'000));
        const QString resumedErr = QString::fromUtf8(resume.readAllStandardError());
        QVERIFY2(resume.exitCode() == 0, qPrintable(resumedErr));
        const auto plan = QRegularExpression("(\\d+) cells to run of (\\d+)").match(resumedErr);
        QVERIFY2(plan.hasMatch(), qPrintable(resumedErr));
        QCOMPARE(plan.captured(1).toInt(), kCells - int(finishedBefore.size()));

        auto store = db::ResultStore::open(db);
        QVERIFY(store.ok());
        QCOMPARE((*store)->campaign(campaignId)->status, db::CampaignStatus::done);
        QMap<qint64, int> doneBySize;
        for (const db::Run& r : *(*store)->runs(campaignId)) {
            if (r.status != db::RunStatus::done) continue;
            ++doneBySize[r.cell.msgSize];
            // The runs before the stop were kept, not run again.
            if (finishedBefore.contains(r.cell.msgSize)) QCOMPARE(r.finishedAt, finishedBefore.value(r.cell.msgSize));
            const db::RunFacts facts = *(*store)->hostFacts(r.id);
            QVERIFY2(facts.client.value("tool.output").contains("\"end\""), qPrintable(r.error));
            QVERIFY(facts.client.value("tool.command").contains("-l " + QString::number(r.cell.msgSize)));
            QVERIFY(facts.server.value("tool.output").contains("Server listening"));
        }
        QCOMPARE(doneBySize.size(), kCells);
        for (int count : doneBySize) QCOMPARE(count, 1);
    }

    void missingProgramSaysWhich() {
        AgentProcess withoutIperf;
        QVERIFY(withoutIperf.start(m_token, {"--tool", "iperf3=/nonexistent/iperf3"}));
        const QString file = writeFile(m_dir, "missing.json", R"({
          "name": "missing", "workloads": [{"workload": "iperf3", "label": "iperf3"}],
          "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [1024], "duration": "1s"
        })");
        const CliRun r = runCampaign(file, withoutIperf.address() + "," + m_client.address(), m_token,
                                     m_dir.filePath("missing.sqlite"));
        QVERIFY2(r.exitCode == 3, qPrintable(r.err));
        QVERIFY2(r.err.contains("iperf3: the configured path /nonexistent/iperf3 (--tool) is not an executable file"),
                 qPrintable(r.err));
        // An agent refuses to start with a program name outside its list.
        AgentProcess unknown;
        QVERIFY(!unknown.start(m_token, {"--tool", "sh=/bin/sh"}));
    }
};

QTEST_GUILESS_MAIN(TestAgentTools)
#include "test_agent_tools.moc"
