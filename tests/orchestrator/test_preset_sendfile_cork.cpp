// The sendfile-cork preset end to end on two real agents: its three columns
// ("sendfile off", "sendfile on (orig)", "sendfile on (this)") each reach
// the http server as its `sendfile` parameter and the engine's cork timer,
// and every cell serves requests. Shortened (short cells, 10 connections);
// run once with the columns moved to kernel TCP (no engine settings there)
// and once as the preset stands, over libsmcr on the sim fabric.
#include <QTemporaryDir>
#include <QTest>

#include "agent_pair.h"
#include "agent_process.h"
#include "orchestrator/orchestrator.h"
#include "orchestrator/presets.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "transport.h"
#include "workload.h"

using namespace smclab;
using namespace smclab::orchestrator;

namespace {

constexpr QByteArrayView kToken = "sendfile-cork-test-token";

CampaignSpec shortened(const QString& server, const QString& client) {
    CampaignSpec spec = *presetCampaign(QStringLiteral("sendfile-cork"));
    spec.durationMs = 700;
    spec.warmupMs = 100;
    spec.sampleIntervalMs = 200;
    spec.repetitions = 1;  // presets repeat 3 times; one run per column checks the preset here
    spec.workloads[0].params.insert(QStringLiteral("connections"), 10);
    spec.agents = {{server, client}};
    return spec;
}

bool waitForEnd(Orchestrator& o, int timeoutMs) {
    QEventLoop loop;
    QObject::connect(&o, &Orchestrator::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (o.state() != RunnerState::finished && o.state() != RunnerState::failed) loop.exec();
    return o.state() == RunnerState::finished;
}

}  // namespace

class TestPresetSendfileCork : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    test::AgentPair m_agents{kToken.toByteArray()};

    // Runs `spec` into a fresh database; every cell must finish with
    // requests served. Returns the stored comparison table.
    void runAndCheck(const CampaignSpec& spec, const QString& dbName) {
        auto store = db::ResultStore::open(m_dir.filePath(dbName));
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
        Orchestrator o(**store);
        AgentConnectOptions options;
        options.token = QString::fromLatin1(kToken.toByteArray());
        o.setConnectOptions(options);
        QVERIFY(o.start(spec).ok());
        QVERIFY(waitForEnd(o, 60000));
        auto runs = (*store)->runs(o.campaignId());
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), 3);
        for (const db::Run& run : *runs) {
            QVERIFY2(run.status == db::RunStatus::done, qPrintable(run.cell.column + ": " + run.error));
            auto results = (*store)->results(run.id);
            QVERIFY(results.ok());
            QVERIFY2(results->value(QStringLiteral("rps")) > 0.0, qPrintable(run.cell.column));
            auto settings = (*store)->settings(run.id);
            QVERIFY(settings.ok());
            QCOMPARE(settings->value(QStringLiteral("transport")), spec.columns[0].transport);
            if (spec.columns[0].transport == QLatin1String("smcr")) {
                // The engine ran with the column's cork timer.
                const QString expected = run.cell.column == QLatin1String("sendfile on (orig)") ? "250" : "0";
                QCOMPARE(settings->value(QStringLiteral("lab.cork_timer_ms")), expected);
            }
        }
        auto tables = db::comparisonTables(**store, o.campaignId(), workloads::headlineMetricsByWorkload());
        QVERIFY(tables.ok());
        QCOMPARE(tables->size(), 1);
        QCOMPARE(tables->front().metric, QStringLiteral("rps"));
        QCOMPARE(tables->front().columns, (QStringList{"sendfile off", "sendfile on (orig)", "sendfile on (this)"}));
        QCOMPARE(tables->front().rows.size(), 1);
        QCOMPARE(tables->front().rows[0].msgSize, 4096);
    }

private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(test::agentBinary()), "smclab-agent is not built");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_agents.start(), qPrintable(m_agents.error()));
    }
    void cleanupTestCase() { m_agents.stop(); }

    void presetShape() {
        const CampaignSpec spec = *presetCampaign(QStringLiteral("sendfile-cork"));
        QCOMPARE(spec.columns.size(), size_t(3));
        QCOMPARE(spec.columns[0].serverParams.value("sendfile").toBool(true), false);
        QCOMPARE(spec.columns[1].serverParams.value("sendfile").toBool(false), true);
        QCOMPARE(spec.columns[2].serverParams.value("sendfile").toBool(false), true);
    }

    void overKernelTcp() {
        CampaignSpec spec = shortened(m_agents.server().address(), m_agents.client().address());
        for (ColumnSpec& column : spec.columns) {
            column.transport = QStringLiteral("tcp");
            column.settings = {};  // the cork timer is an engine setting
        }
        runAndCheck(spec, QStringLiteral("tcp.db"));
    }

    void overLibsmcrAsThePresetStands() {
        auto probe = transports::createTransport("smcr", {{"fabric", "sim"}});
        QVERIFY2(probe, "the smcr transport is built in; createTransport(smcr) failed");
        bool hasCorkTimer = false;
        for (const transports::SettingInfo& info : (*probe)->settings())
            hasCorkTimer |= info.name == "lab.cork_timer_ms";
        QVERIFY2(hasCorkTimer, "the engine lists no lab.cork_timer_ms setting");
        runAndCheck(shortened(m_agents.server().address(), m_agents.client().address()), QStringLiteral("smcr.db"));
    }
};

QTEST_GUILESS_MAIN(TestPresetSendfileCork)
#include "test_preset_sendfile_cork.moc"
