// The smclab CLI's campaign commands as users run them: `smclab run` killed
// with SIGKILL mid-campaign and resumed with --resume (the database opens
// cleanly, finished runs stay as they were, exactly the missing cells run),
// clear errors with non-zero exits, and a quick `smclab demo`.
#include <csignal>

#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include "agent_pair.h"
#include "agent_process.h"
#include "smclab/db/result_store.h"
#include "smclab_process.h"

using namespace smclab;

namespace {

constexpr QByteArrayView kToken = "cli-campaign-test-token";

using test::Outcome;

Outcome runSmclab(const QStringList& args, int timeoutMs = 50'000) {
    return test::runSmclab(args, timeoutMs);
}

QByteArray campaignFile(int sizes) {
    QStringList list;
    for (int i = 0; i < sizes; ++i) list << QString::number(1 << i);
    return QStringLiteral(R"({"name": "resumable", "workloads": [{"workload": "tcp_lat", "label": "Latency"}],
        "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [%1], "durationMs": 400,
        "sampleIntervalMs": 200})")
        .arg(list.join(QLatin1Char(',')))
        .toUtf8();
}

}  // namespace

class TestCliCampaigns : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    test::AgentPair m_agents{kToken.toByteArray()};

    QString agents() const { return m_agents.addresses(); }
    QString tokenFile() const { return m_agents.token().path(); }

private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(test::agentBinary()) && QFile::exists(test::smclabBinary()),
                 "smclab or smclab-agent is not built");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_agents.start(), qPrintable(m_agents.error()));
    }
    void cleanupTestCase() { m_agents.stop(); }

    void killAndResume() {
        const int kCells = 8;
        const QString file = m_dir.filePath("resumable.json");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(campaignFile(kCells));
        }
        const QString dbPath = m_dir.filePath("resume.db");
        QProcess run;
        run.start(test::smclabBinary(),
                  {"run", file, "--agents", agents(), "--token-file", tokenFile(), "--db", dbPath});
        QVERIFY(run.waitForStarted());

        // Watch the database (WAL lets us read while it writes) and kill the
        // runner once a few cells are in.
        qint64 campaignId = 0;
        QMap<qint64, QDateTime> finishedBefore;  // msg size -> finished_at
        QMap<qint64, double> latencyBefore;
        {
            QElapsedTimer timer;
            timer.start();
            while (timer.elapsed() < 30'000 && run.state() == QProcess::Running) {
                QTest::qWait(100);
                auto store = db::ResultStore::open(dbPath);
                if (!store) continue;
                auto campaigns = (*store)->listCampaigns();
                if (!campaigns || campaigns->isEmpty()) continue;
                if (campaigns->front().runsDone >= 3) {
                    ::kill(static_cast<pid_t>(run.processId()), SIGKILL);
                    campaignId = campaigns->front().id;
                    break;
                }
            }
        }
        QVERIFY(run.waitForFinished(10'000));
        QVERIFY2(campaignId > 0, "the campaign never got three runs in before the runner ended");
        QCOMPARE(run.exitStatus(), QProcess::CrashExit);

        int doneBefore = 0;
        {
            // Opens cleanly after SIGKILL; every finished run intact.
            auto store = db::ResultStore::open(dbPath);
            QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
            auto campaign = (*store)->campaign(campaignId);
            QVERIFY(campaign.ok());
            QCOMPARE(campaign->runsTotal, kCells);
            QVERIFY(campaign->runsDone >= 3 && campaign->runsDone < kCells);
            doneBefore = campaign->runsDone;
            auto runs = (*store)->runs(campaignId);
            QVERIFY(runs.ok());
            for (const db::Run& r : *runs) {
                if (r.status != db::RunStatus::done) continue;
                auto results = (*store)->results(r.id);
                QVERIFY(results.ok());
                QVERIFY(results->value("latency_us") > 0);
                finishedBefore.insert(r.cell.msgSize, r.finishedAt);
                latencyBefore.insert(r.cell.msgSize, results->value("latency_us"));
            }
            QCOMPARE(finishedBefore.size(), doneBefore);
            auto pending = (*store)->pendingCells(campaignId);
            QVERIFY(pending.ok());
            QCOMPARE(pending->size(), kCells - doneBefore);
        }

        const Outcome resumed = runSmclab({"run", "--resume", QString::number(campaignId), "--agents", agents(),
                                           "--token-file", tokenFile(), "--db", dbPath});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        // Exactly the missing cells ran.
        const QRegularExpression plan(QStringLiteral("(\\d+) cells to run of (\\d+)"));
        const auto match = plan.match(resumed.err);
        QVERIFY2(match.hasMatch(), qPrintable(resumed.err));
        QCOMPARE(match.captured(1).toInt(), kCells - doneBefore);
        QCOMPARE(match.captured(2).toInt(), kCells);
        QVERIFY2(resumed.out.contains(QLatin1String("==== Latency ====")), qPrintable(resumed.out));
        QCOMPARE(resumed.out.count(QLatin1String(" us")), kCells);

        auto store = db::ResultStore::open(dbPath);
        QVERIFY(store.ok());
        auto campaign = (*store)->campaign(campaignId);
        QVERIFY(campaign.ok());
        QCOMPARE(campaign->status, db::CampaignStatus::done);
        QCOMPARE(campaign->runsDone, kCells);
        auto runs = (*store)->runs(campaignId);
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), kCells);
        for (const db::Run& r : *runs) {
            QCOMPARE(r.status, db::RunStatus::done);
            if (finishedBefore.contains(r.cell.msgSize)) {
                // Not run again.
                QCOMPARE(r.finishedAt, finishedBefore.value(r.cell.msgSize));
                auto results = (*store)->results(r.id);
                QVERIFY(results.ok());
                QCOMPARE(results->value("latency_us"), latencyBefore.value(r.cell.msgSize));
            }
        }
    }

    void clearErrors() {
        Outcome o = runSmclab({"run", "nosuchpreset", "--agents", agents(), "--token-file", tokenFile(), "--db",
                               m_dir.filePath("errors.db")});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QLatin1String("unknown preset 'nosuchpreset'")), qPrintable(o.err));

        o = runSmclab({"run", "datapath", "--token-file", tokenFile()});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QLatin1String("--agents")), qPrintable(o.err));

        const QString dead = QStringLiteral("127.0.0.1:%1").arg(test::freePort());
        o = runSmclab({"run", "datapath", "--agents", m_agents.server().address() + "," + dead, "--token-file",
                       tokenFile(), "--db", m_dir.filePath("errors.db")});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains(QLatin1String("cannot reach agent ") + dead), qPrintable(o.err));

        const QString wrongToken = m_dir.filePath("wrong-token");
        {
            QFile f(wrongToken);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("wrong");
        }
        o = runSmclab(
            {"run", "datapath", "--agents", agents(), "--token-file", wrongToken, "--db", m_dir.filePath("errors.db")});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains(QLatin1String("token")), qPrintable(o.err));

        o = runSmclab({"run", "datapath", "-t", "soon", "--agents", agents(), "--token-file", tokenFile()});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(o.err.contains(QLatin1String("-t")), qPrintable(o.err));

        o = runSmclab({"run", "--help"});
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.out.contains(QLatin1String("sendfile-cork")));
    }

    void failedRunsExitNonZero() {
        // A column whose settings the engine refuses: its runs fail with the
        // agent's reason, the rest of the campaign runs and is printed, and
        // the exit status says the campaign has holes.
        const QString file = m_dir.filePath("refused.json");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(R"({"name": "refused", "workloads": [{"workload": "tcp_lat", "label": "Latency"}],
                "columns": [{"label": "TCP", "transport": "tcp"},
                            {"label": "Refused", "transport": "smcr", "settings": {"lab.cq_mode": "sideways"}}],
                "sizes": [1, 64], "durationMs": 300, "sampleIntervalMs": 100,
                "transportOptions": {"fabric": "sim"}})");
        }
        const Outcome o = runSmclab(
            {"run", file, "--agents", agents(), "--token-file", tokenFile(), "--db", m_dir.filePath("refused.db")});
        QVERIFY2(o.exitCode == 3, qPrintable(QStringLiteral("exit %1\n%2").arg(o.exitCode).arg(o.err)));
        QVERIFY2(o.err.contains(QLatin1String("2 of 4 runs failed")), qPrintable(o.err));
        QVERIFY2(o.err.contains(QLatin1String("failed in Refused:")), qPrintable(o.err));
        QVERIFY2(o.err.contains(QLatin1String("--resume")), qPrintable(o.err));
        QVERIFY2(o.out.contains(QLatin1String("==== Latency ====")), qPrintable(o.out));
        QCOMPARE(o.out.count(QLatin1String(" us")), 2);  // the TCP column's values

        // `show` keeps the settings table aligned with long sysctl values:
        // the Refused column ('-', no finished run) starts at one offset.
        const Outcome show = runSmclab({"show", "1", "--db", m_dir.filePath("refused.db")});
        QCOMPARE(show.exitCode, 0);
        QSet<qsizetype> offsets;
        for (const QString& line : show.out.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("  tcp_rmem")) || line.startsWith(QLatin1String("  tcp_wmem")) ||
                line.startsWith(QLatin1String("  transport ")))
                offsets.insert(line.lastIndexOf(QLatin1Char('-')));
        }
        QVERIFY2(offsets.size() == 1 && !offsets.contains(-1), qPrintable(show.out));

        const Outcome help = runSmclab({"run", "--help"});
        QVERIFY2(help.out.contains(QLatin1String("exit status:")) && help.out.contains(QLatin1String("  3 ")),
                 qPrintable(help.out));
    }

    void fallenBackColumnIsNotSmc() {
        // A campaign whose "SMC (fell back)" column ran over TCP:
        // its runs carry the counters libsmcr's engine and the smcr transport
        // record when the client's connection falls back (a plain TCP server
        // behind it: PEERNOSMC, no SMC-R connection, every byte over TCP),
        // stored as the orchestrator stores them. `smclab run --resume` runs
        // the rest for real (a TCP column and a real SMC-R column, which must
        // stay unmarked), then every format marks the fallen-back cell and
        // the command exits 3 saying which cell and why.
        const QString dbPath = m_dir.filePath("fellback.db");
        qint64 id = 0;
        {
            auto store = db::ResultStore::open(dbPath);
            QVERIFY(store.ok());
            db::NewCampaign campaign;
            campaign.name = QStringLiteral("fell back");
            campaign.spec = QJsonDocument::fromJson(R"json({"name": "fell back",
                "workloads": [{"workload": "tcp_bw", "label": "Bandwidth"}],
                "columns": [{"label": "TCP", "transport": "tcp"}, {"label": "SMC (fell back)", "transport": "smcr"},
                            {"label": "SMC", "transport": "smcr"}],
                "sizes": [1024], "durationMs": 400, "sampleIntervalMs": 200,
                "transportOptions": {"fabric": "sim"}})json")
                                .object();
            for (const char* column : {"TCP", "SMC (fell back)", "SMC"})
                campaign.cells.append(
                    {QStringLiteral("tcp_bw"),
                     QLatin1String(column) == QLatin1String("TCP") ? QStringLiteral("tcp") : QStringLiteral("smcr"),
                     QLatin1String(column), 1024, 0});
            auto created = (*store)->createCampaign(campaign);
            QVERIFY(created.ok());
            id = *created;
            db::RunRecord record;
            record.campaignId = id;
            record.cell = campaign.cells[1];
            record.startedAt = QDateTime::currentDateTimeUtc();
            record.finishedAt = record.startedAt.addMSecs(400);
            record.results = {{QStringLiteral("bw_mbps"), 150.0}};
            record.counters = {{smcr::Side::client, QStringLiteral("smcr.clnt_success"), 0},
                               {smcr::Side::client, QStringLiteral("smcr.clnt_fallbacks"), 1},
                               {smcr::Side::client, QStringLiteral("smcr.fallback.client.PEERNOSMC"), 1},
                               {smcr::Side::client, QStringLiteral("smcr.fell_back"), 1},
                               {smcr::Side::client, QStringLiteral("smcr.tx_bytes"), 0},
                               {smcr::Side::client, QStringLiteral("smcr.rx_bytes"), 0},
                               {smcr::Side::client, QStringLiteral("smcr.tcp_tx_bytes"), 60'000'000},
                               {smcr::Side::client, QStringLiteral("smcr.tcp_rx_bytes"), 16},
                               {smcr::Side::server, QStringLiteral("tcp.accepts"), 1}};
            QVERIFY((*store)->recordRun(record).ok());
        }
        const Outcome run = runSmclab({"run", "--resume", QString::number(id), "--agents", agents(), "--token-file",
                                       tokenFile(), "--db", dbPath});
        QVERIFY2(run.exitCode == 3,
                 qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
        QVERIFY2(run.err.contains(QLatin1String("cells of SMC columns ran over TCP, not SMC-R")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QLatin1String("  Bandwidth, SMC (fell back) at 1024 B: PEERNOSMC\n")),
                 qPrintable(run.err));
        QVERIFY2(!run.err.contains(QLatin1String("runs failed")), qPrintable(run.err));
        // The table: the fallen-back cell marked, without a percentage; the
        // real SMC-R column compared and unmarked; what each column ran over.
        const QStringList lines = run.out.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() > 3 && lines[2].contains(QLatin1String("150.000 MB/s          [TCP]")),
                 qPrintable(run.out));
        QVERIFY2(lines[2].trimmed().endsWith(QLatin1String("%)")), qPrintable(lines[2]));
        QVERIFY2(
            run.out.contains(QLatin1String(
                "[TCP] SMC (fell back) at every size: the data went over TCP, not SMC-R (no percentage): PEERNOSMC")),
            qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("==== Wire ====\nTCP ")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("\nSMC  SMC-R over the sim fabric, link ideal")), qPrintable(run.out));

        // The real SMC-R run recorded what its connection did: on SMC-R.
        const Outcome show = runSmclab({"show", QString::number(id), "--db", dbPath});
        QCOMPARE(show.exitCode, 0);
        QVERIFY2(show.out.contains(QLatin1String("OVER TCP: PEERNOSMC, 0.0% of the bytes over RDMA (SMC-R 0/1)")),
                 qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("SMC-R 1/1")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("connections: 2 runs of SMC columns: 1 on SMC-R, 0 with fallbacks, "
                                                 "1 over TCP (not SMC-R)")),
                 qPrintable(show.out));

        // Every report format says so.
        const Outcome csv = runSmclab({"report", QString::number(id), "--format", "csv", "--db", dbPath});
        QVERIFY2(csv.out.contains(QLatin1String(",SMC (fell back),1024,150,")) &&
                     csv.out.contains(QLatin1String(",1,1,PEERNOSMC,")),
                 qPrintable(csv.out));
        const Outcome json = runSmclab({"report", QString::number(id), "--format", "json", "--db", dbPath});
        QVERIFY2(json.out.contains(QLatin1String("\"tcpRepetitions\": 1")) &&
                     json.out.contains(QLatin1String("\"fallbackReasons\": \"PEERNOSMC\"")),
                 qPrintable(json.out));
        const Outcome md = runSmclab({"report", QString::number(id), "--format", "md", "--db", dbPath});
        QVERIFY2(md.out.contains(QLatin1String("150.000 **over TCP, not SMC-R: 1/1** (PEERNOSMC)")),
                 qPrintable(md.out));
        const QString htmlPath = m_dir.filePath("fellback.html");
        const Outcome html =
            runSmclab({"report", QString::number(id), "--format", "html", "-o", htmlPath, "--db", dbPath});
        QCOMPARE(html.exitCode, 0);
        QFile htmlFile(htmlPath);
        QVERIFY(htmlFile.open(QIODevice::ReadOnly));
        QVERIFY(htmlFile.readAll().contains("over TCP, not SMC-R: 1 of 1 runs (PEERNOSMC)"));
        const Outcome text = runSmclab({"report", QString::number(id), "--db", dbPath});
        QVERIFY2(text.out.contains(QLatin1String("[TCP]")) && text.out.contains(QLatin1String("==== Wire ====")),
                 qPrintable(text.out));
    }

    void agentKilledMidCampaignExitsNonZero() {
        // The client agent dies (SIGKILL) after two runs: the run in flight
        // and every later one fail (continue policy), and `run` exits 3.
        test::AgentPair own(kToken.toByteArray());
        QVERIFY2(own.start(), qPrintable(own.error()));
        const int kCells = 6;
        const QString file = m_dir.filePath("killed.json");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(campaignFile(kCells));
        }
        const QString dbPath = m_dir.filePath("killed.db");
        QProcess run;
        run.start(test::smclabBinary(), {"run", file, "--agents", own.addresses(), "--token-file", own.token().path(),
                                         "--db", dbPath, "--connect-timeout", "2"});
        QVERIFY(run.waitForStarted());
        bool killed = false;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 30'000 && run.state() == QProcess::Running && !killed) {
            QTest::qWait(100);
            auto store = db::ResultStore::open(dbPath);
            if (!store) continue;
            auto campaigns = (*store)->listCampaigns();
            if (!campaigns || campaigns->isEmpty() || campaigns->front().runsDone < 2) continue;
            own.client().kill();
            killed = true;
        }
        QVERIFY2(killed, "the campaign never got two runs in");
        QVERIFY(run.waitForFinished(40'000));
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QVERIFY2(run.exitCode() == 3, qPrintable(QStringLiteral("exit %1\n%2").arg(run.exitCode()).arg(err)));
        auto store = db::ResultStore::open(dbPath);
        QVERIFY(store.ok());
        auto campaigns = (*store)->listCampaigns();
        QVERIFY(campaigns.ok() && !campaigns->isEmpty());
        const int failed = kCells - campaigns->front().runsDone;
        QVERIFY(failed >= 1);
        QVERIFY2(err.contains(QStringLiteral("%1 of %2 runs failed").arg(failed).arg(kCells)),
                 qPrintable(err.right(700)));
        // Every cell ends once, also when the lost agent fails a reconnect
        // in two ways (closed, then no hello in time).
        QCOMPARE(err.count(QRegularExpression(QStringLiteral("(^|\\n)cell \\d+/%1 ").arg(kCells))), kCells);
    }

    void lockedDatabaseIsReported() {
        const QString dbPath = m_dir.filePath("locked.db");
        {
            auto store = db::ResultStore::open(dbPath);  // create the schema
            QVERIFY(store.ok());
        }
        // Another writer holds the lock for longer than the CLI waits.
        QSqlDatabase holder = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("holder"));
        holder.setDatabaseName(dbPath);
        QVERIFY(holder.open());
        QSqlQuery lock(holder);
        QVERIFY(lock.exec(QStringLiteral("BEGIN EXCLUSIVE")));
        const QString file = m_dir.filePath("locked.json");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(campaignFile(1));
        }
        const Outcome o = runSmclab({"run", file, "--agents", agents(), "--token-file", tokenFile(), "--db", dbPath});
        QVERIFY(lock.exec(QStringLiteral("ROLLBACK")));
        lock = QSqlQuery();
        holder.close();
        holder = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("holder"));
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains(QLatin1String("locked")), qPrintable(o.err));
    }

    void quickDemo() {
        const QString dbPath = m_dir.filePath("demo.db");
        const QString html = m_dir.filePath("demo.html");
        QElapsedTimer timer;
        timer.start();
        const Outcome o = runSmclab({"demo", "--quick", "--sizes", "1,64K", "--db", dbPath, "-o", html}, 55'000);
        QVERIFY2(o.exitCode == 0, qPrintable(o.err));
        QVERIFY(timer.elapsed() < 60'000);
        QVERIFY2(o.out.contains(QLatin1String("==== Bandwidth ====")), qPrintable(o.out));
        QVERIFY2(o.out.contains(QLatin1String("==== Latency ====")), qPrintable(o.out));
        QVERIFY(o.out.contains(QLatin1String("HTML report: ") + html));
        for (const char* column : {"SMC-NoCork", "TCP", "SMC-AutoCorking", "SMC with patches"})
            QVERIFY2(o.out.contains(QLatin1String(column)), column);
        QFile report(html);
        QVERIFY(report.open(QIODevice::ReadOnly));
        const QByteArray page = report.readAll();
        QVERIFY(page.contains("<html"));
        QVERIFY(page.contains("<svg"));
        // Stored like any campaign, and the agents are gone afterwards.
        auto store = db::ResultStore::open(dbPath);
        QVERIFY(store.ok());
        auto campaigns = (*store)->listCampaigns();
        QVERIFY(campaigns.ok());
        QCOMPARE(campaigns->size(), 1);
        QCOMPARE(campaigns->front().status, db::CampaignStatus::done);
        // 2 workloads x 2 sizes x 4 columns x the preset's 3 repetitions.
        QCOMPARE(campaigns->front().runsTotal, 48);
        QVERIFY(campaigns->front().runsDone >= 4);  // at least the TCP column
        QVERIFY(o.out.contains(QLatin1String("MB/s")));

        const Outcome help = runSmclab({"demo", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains(QLatin1String("--quick")));
    }
};

QTEST_GUILESS_MAIN(TestCliCampaigns)
#include "test_cli_campaigns.moc"
