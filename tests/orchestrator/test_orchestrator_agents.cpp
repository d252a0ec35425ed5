// The orchestrator against real smclab-agent processes on loopback: a tiny
// tcp campaign end to end into a temporary database (an smcr column fails
// with the agent's reason while the rest runs), live settings recorded with
// their run, and an agent killed mid-campaign under both loss policies.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "agent_pair.h"
#include "agent_process.h"
#include "orchestrator/campaign_json.h"
#include "orchestrator/orchestrator.h"
#include "smclab/db/result_store.h"

using namespace smclab;
using namespace smclab::orchestrator;

namespace {

constexpr QByteArrayView kToken = "orchestrator-test-token";

CampaignSpec tinyCampaign(const QString& server, const QString& client) {
    CampaignSpec spec;
    spec.name = QStringLiteral("tiny");
    spec.workloads = {{QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}},
                      {QStringLiteral("Latency"), QStringLiteral("tcp_lat"), {}, {}, {}}};
    spec.columns = {
        {QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}},
        {QStringLiteral("SMC"), QStringLiteral("smcr"), {}, {{QStringLiteral("autocorking_size"), 0}}, {}, {}},
        // A column the agents must refuse: its cells fail with the agent's reason.
        {QStringLiteral("Bad"), QStringLiteral("smcr"), {}, {{QStringLiteral("lab.no_such_setting"), 1}}, {}, {}}};
    spec.sizes = {1, 4096};
    spec.durationMs = 200;
    spec.sampleIntervalMs = 100;
    spec.transportOptions = {{QStringLiteral("fabric"), QStringLiteral("sim")}};
    spec.agents = {{server, client}};
    return spec;
}

// Runs the event loop until the orchestrator reports finished (or paused).
bool waitForEnd(Orchestrator& o, int timeoutMs) {
    QEventLoop loop;
    QObject::connect(&o, &Orchestrator::finished, &loop, &QEventLoop::quit);
    QObject::connect(&o, &Orchestrator::stateChanged, &loop, [&](RunnerState s) {
        if (s == RunnerState::paused) loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (o.state() != RunnerState::finished && o.state() != RunnerState::failed && o.state() != RunnerState::paused)
        loop.exec();
    return o.state() == RunnerState::finished || o.state() == RunnerState::failed || o.state() == RunnerState::paused;
}

}  // namespace

class TestOrchestratorAgents : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    test::AgentPair m_agents{kToken.toByteArray()};
    QString server() { return m_agents.server().address(); }
    QString client() { return m_agents.client().address(); }

    AgentConnectOptions options() const {
        AgentConnectOptions o;
        o.token = QString::fromLatin1(kToken.toByteArray());
        o.connectTimeoutMs = 5000;
        return o;
    }

private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(test::agentBinary()), "smclab-agent is not built");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_agents.start(), qPrintable(m_agents.error()));
    }
    void cleanupTestCase() { m_agents.stop(); }

    void tinyCampaignEndToEnd() {
        auto store = db::ResultStore::open(m_dir.filePath("e2e.db"));
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
        Orchestrator o(**store);
        o.setConnectOptions(options());
        QSignalSpy started(&o, &Orchestrator::cellStarted);
        QSignalSpy finishedCells(&o, &Orchestrator::cellFinished);
        QSignalSpy samples(&o, &Orchestrator::samplesReceived);
        QSignalSpy progress(&o, &Orchestrator::progressChanged);
        const CampaignSpec spec = tinyCampaign(server(), client());
        QVERIFY(o.start(spec).ok());
        QVERIFY(waitForEnd(o, 50000));
        QCOMPARE(o.state(), RunnerState::finished);
        QCOMPARE(started.count(), 12);
        QCOMPARE(finishedCells.count(), 12);
        QVERIFY(samples.count() > 0);
        QVERIFY(progress.count() > 0);
        const Progress p = o.progress();
        QCOMPARE(p.totalCells, 12);
        QCOMPARE(p.doneCells, 8);
        QCOMPARE(p.failedCells, 4);
        QCOMPARE(p.remainingCells, 0);

        const qint64 id = o.campaignId();
        QVERIFY(id > 0);
        auto campaign = (*store)->campaign(id);
        QVERIFY(campaign.ok());
        QCOMPARE(campaign->status, db::CampaignStatus::done);
        QCOMPARE(campaign->runsTotal, 12);
        QCOMPARE(campaign->runsDone, 8);
        QCOMPARE(campaign->runsFailed, 4);
        // The stored spec is the campaign file it ran from.
        auto reread = campaignFromJson(campaign->spec);
        QVERIFY(reread.ok());
        QCOMPARE(reread->durationMs, 200);

        auto runs = (*store)->runs(id);
        QVERIFY(runs.ok());
        for (const db::Run& run : *runs) {
            if (run.cell.column != QLatin1String("Bad")) {
                QCOMPARE(run.status, db::RunStatus::done);
                auto results = (*store)->results(run.id);
                QVERIFY(results.ok());
                const QString headline = run.cell.workload == QLatin1String("tcp_bw") ? "bw_mbps" : "latency_us";
                QVERIFY2(results->value(headline) > 0.0, qPrintable(run.cell.workload + " " + headline));
                auto facts = (*store)->hostFacts(run.id);
                QVERIFY(facts.ok());
                QVERIFY(!facts->client.value("kernel").isEmpty());
                auto settings = (*store)->settings(run.id);
                QVERIFY(settings.ok());
                QCOMPARE(settings->value("transport"),
                         run.cell.column == QLatin1String("TCP") ? QStringLiteral("tcp") : QStringLiteral("smcr"));
                auto series = (*store)->samples(run.id);
                QVERIFY(series.ok());
                QVERIFY(!series->isEmpty());
            } else {
                // The refused column fails with the agent's own reason.
                QCOMPARE(run.status, db::RunStatus::failed);
                QVERIFY2(run.error.contains(QLatin1String("no_such_setting")), qPrintable(run.error));
                QVERIFY2(run.error.contains(server()) || run.error.contains(client()), qPrintable(run.error));
                // Refused before it ran: nothing seen, nothing stored.
                auto seen = (*store)->samples(run.id);
                QVERIFY(seen.ok());
                QVERIFY(seen->isEmpty());
            }
        }
        // Every cell has a run row; nothing is pending but the failed ones.
        auto pending = (*store)->pendingCells(id);
        QVERIFY(pending.ok());
        QCOMPARE(pending->size(), 4);
        for (const db::RunCell& cell : *pending) QCOMPARE(cell.column, QStringLiteral("Bad"));
    }

    void hostStateIsRecordedAndBusyCellsRunAgain() {
        auto store = db::ResultStore::open(m_dir.filePath("busy.db"));
        QVERIFY(store.ok());
        Orchestrator o(**store);
        o.setConnectOptions(options());
        QSignalSpy started(&o, &Orchestrator::cellStarted);
        QSignalSpy messages(&o, &Orchestrator::message);
        CampaignSpec spec = tinyCampaign(server(), client());
        spec.workloads.resize(1);
        spec.columns.resize(1);  // TCP
        spec.sizes = {1};
        spec.repetitions = 2;
        // Every run with any CPU time of other processes counts as busy, and
        // a busy cell runs once more after 100 ms.
        spec.quietHost.busyOtherCpuPct = 0.0;
        spec.quietHost.busyStealPct = 0.0;
        spec.quietHost.repeatBusy = 1;
        spec.quietHost.waitMs = 100;
        QVERIFY(o.start(spec).ok());
        QVERIFY(waitForEnd(o, 30000));
        QCOMPARE(o.state(), RunnerState::finished);
        int again = 0;
        for (const QList<QVariant>& m : messages)
            again += m.at(0).toString().startsWith(QLatin1String("running cell")) ? 1 : 0;
        QVERIFY(again <= 2);  // at most once per cell
        QCOMPARE(started.count(), 2 + again);
        auto runs = (*store)->runs(o.campaignId());
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), 2);
        for (const db::Run& run : *runs) {
            QCOMPARE(run.status, db::RunStatus::done);
            auto facts = (*store)->hostFacts(run.id);
            QVERIFY(facts.ok());
            // Both agents report the host's state; the verdict is on the client side.
            QVERIFY(facts->client.contains(QStringLiteral("host_state.cpu_busy_pct")));
            QVERIFY(facts->client.contains(QStringLiteral("host_state.agent_cpu_pct")));
            QVERIFY(facts->server.contains(QStringLiteral("host_state.load1_end")));
            QVERIFY(facts->client.value(QStringLiteral("host_state.busy")) == QLatin1String("yes") ||
                    facts->client.value(QStringLiteral("host_state.busy")) == QLatin1String("no"));
        }
    }

    void unreachableAgentFailsClearly() {
        auto store = db::ResultStore::open(m_dir.filePath("unreachable.db"));
        QVERIFY(store.ok());
        Orchestrator o(**store);
        o.setConnectOptions(options());
        QSignalSpy errors(&o, &Orchestrator::errorOccurred);
        const QString dead = QStringLiteral("127.0.0.1:%1").arg(test::freePort());
        QVERIFY(o.start(tinyCampaign(server(), dead)).ok());
        QVERIFY(waitForEnd(o, 20000));
        QCOMPARE(o.state(), RunnerState::failed);
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.at(0).at(0).toString().contains(dead), qPrintable(errors.at(0).at(0).toString()));
        // Nothing half-made is left in the store.
        auto campaigns = (*store)->listCampaigns();
        QVERIFY(campaigns.ok());
        QCOMPARE(campaigns->size(), 0);
    }

    void wrongTokenFailsClearly() {
        auto store = db::ResultStore::open(m_dir.filePath("token.db"));
        QVERIFY(store.ok());
        Orchestrator o(**store);
        AgentConnectOptions wrong = options();
        wrong.token = QStringLiteral("not-the-token");
        o.setConnectOptions(wrong);
        QSignalSpy errors(&o, &Orchestrator::errorOccurred);
        QVERIFY(o.start(tinyCampaign(server(), client())).ok());
        QVERIFY(waitForEnd(o, 20000));
        QCOMPARE(o.state(), RunnerState::failed);
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.at(0).at(0).toString().contains(QLatin1String("token")),
                 qPrintable(errors.at(0).at(0).toString()));
    }

    void invalidSpecIsRefusedAtOnce() {
        auto store = db::ResultStore::open(m_dir.filePath("invalid.db"));
        QVERIFY(store.ok());
        Orchestrator o(**store);
        CampaignSpec spec = tinyCampaign(server(), client());
        spec.columns[1].transport = QStringLiteral("rdma");
        auto status = o.start(spec);
        QVERIFY(!status.ok());
        QVERIFY(QString::fromStdString(status.error().message).contains(QLatin1String("columns[1].transport")));
        spec = tinyCampaign(server(), client());
        spec.agents.clear();
        Orchestrator o2(**store);
        QVERIFY(!o2.start(spec).ok());
    }

    void liveSettingsAreAppliedAndRecorded() {
        // The tcp transport's live settings are host sysctls; write the value
        // it already has so the host does not change.
        QFile sysctl(QStringLiteral("/proc/sys/net/ipv4/tcp_autocorking"));
        if (!sysctl.open(QIODevice::ReadWrite)) QSKIP("net.ipv4.tcp_autocorking is not writable here");
        const int current = sysctl.readAll().trimmed().toInt();
        sysctl.close();

        auto store = db::ResultStore::open(m_dir.filePath("live.db"));
        QVERIFY(store.ok());
        Orchestrator o(**store);
        o.setConnectOptions(options());
        CampaignSpec spec = tinyCampaign(server(), client());
        spec.workloads.resize(1);
        spec.columns.resize(1);
        spec.sizes = {1024};
        spec.durationMs = 1500;
        QVERIFY(!o.setSettings({{QStringLiteral("tcp_autocorking"), current}}).ok());  // nothing running yet
        QSignalSpy applied(&o, &Orchestrator::settingsApplied);
        QSignalSpy failed(&o, &Orchestrator::settingsFailed);
        // Once traffic flows (the first sample), flip the setting.
        bool sent = false;
        connect(&o, &Orchestrator::samplesReceived, this, [&](const CellInfo&, const protocol::Samples&, bool) {
            if (sent) return;
            sent = true;
            QVERIFY(o.setSettings({{QStringLiteral("tcp_autocorking"), current}}).ok());
        });
        QVERIFY(o.start(spec).ok());
        QVERIFY(waitForEnd(o, 30000));
        QCOMPARE(o.state(), RunnerState::finished);
        QVERIFY(sent);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(applied.count(), 1);
        const qint64 atMs = applied.at(0).at(3).toLongLong();
        QVERIFY(atMs > 0);
        QVERIFY(applied.at(0).at(2).toDateTime().isValid());
        auto runs = (*store)->runs(o.campaignId());
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), 1);
        auto changes = (*store)->settingChanges(runs->front().id);
        QVERIFY(changes.ok());
        QCOMPARE(changes->size(), 1);
        QCOMPARE(changes->front().name, QStringLiteral("tcp_autocorking"));
        QCOMPARE(changes->front().value, QString::number(current));
        QCOMPARE(changes->front().tMs, atMs);
    }

    void agentKilledMidCampaign_data() {
        QTest::addColumn<bool>("pausePolicy");
        QTest::newRow("continue") << false;
        QTest::newRow("pause") << true;
    }
    void agentKilledMidCampaign() {
        QFETCH(bool, pausePolicy);
        auto store = db::ResultStore::open(m_dir.filePath(pausePolicy ? "loss-pause.db" : "loss-continue.db"));
        QVERIFY(store.ok());
        Orchestrator o(**store);
        o.setConnectOptions(options());
        CampaignSpec spec = tinyCampaign(server(), client());
        spec.workloads.resize(1);
        spec.columns.resize(1);
        spec.sizes = {1, 2, 4, 8};
        spec.durationMs = 1000;
        spec.onAgentLoss = pausePolicy ? AgentLossPolicy::pause : AgentLossPolicy::continueCampaign;
        // Kill the server agent once cell 1 is streaming, and bring a new
        // one up on the same port before the event loop sees the loss, so
        // the next cell reconnects.
        bool killed = false;
        connect(&o, &Orchestrator::samplesReceived, this, [&](const CellInfo& cell, const protocol::Samples&, bool) {
            if (killed || cell.cell.index != 1) return;
            killed = true;
            m_agents.server().kill();
            QVERIFY2(m_agents.server().restart(), qPrintable(m_agents.server().error()));
        });
        QVERIFY(o.start(spec).ok());
        QVERIFY(waitForEnd(o, 40000));
        QVERIFY(killed);
        if (pausePolicy) {
            QCOMPARE(o.state(), RunnerState::paused);
            QCOMPARE(o.progress().remainingCells, 2);
            auto paused = (*store)->campaign(o.campaignId());
            QVERIFY(paused.ok());
            QCOMPARE(paused->status, db::CampaignStatus::paused);
            o.unpause();
            QVERIFY(waitForEnd(o, 40000));
        }
        QCOMPARE(o.state(), RunnerState::finished);
        auto runs = (*store)->runs(o.campaignId());
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), 4);
        for (const db::Run& run : *runs) {
            if (run.cell.msgSize == 2) {
                QCOMPARE(run.status, db::RunStatus::failed);
                QVERIFY2(run.error.contains(QLatin1String("disconnected")), qPrintable(run.error));
                // What streamed before the kill stays with the failed run.
                auto seen = (*store)->samples(run.id);
                QVERIFY(seen.ok());
                QVERIFY2(!seen->isEmpty(), "the failed run kept no samples");
                auto results = (*store)->results(run.id);
                QVERIFY(results.ok());
                QVERIFY2(results->isEmpty(), "a failed run has no results to compare");
            } else {
                QVERIFY2(run.status == db::RunStatus::done, qPrintable(run.error));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestOrchestratorAgents)
#include "test_orchestrator_agents.moc"
