// End to end through the GUI's own pieces: "Local lab" starts two real
// agents, the Hosts page connects to them, the Run page runs a small
// campaign in its worker thread (orchestrator + store off the UI thread),
// and the Results page shows what was stored. The agents must not outlive
// the window that started them, nor the application (checked by pid).
// Skips (77) without the agent.
#include <csignal>
#include <cstdio>
#include <limits>

#include <unistd.h>

#include <QComboBox>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "app/lab_context.h"
#include "models/comparison_table_model.h"
#include "models/counter_table_model.h"
#include "models/host_table_model.h"
#include "orchestrator/campaign_json.h"
#include "pages/campaign_page.h"
#include "pages/hosts_page.h"
#include "pages/results_page.h"
#include "pages/run_page.h"
#include "run/local_lab.h"
#include "seed_store.h"
#include "smclab/db/result_store.h"
#include "tool_workloads.h"
#include "widgets/comparison_view.h"
#include "widgets/live_plot.h"
#include "widgets/run_view.h"
#include "widgets/settings_panel.h"

using namespace smclab;
using namespace smclab::gui;

class TestCampaignRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void localLabConnects();
    void hostsShowRolesAndReadableCapabilities();
    void campaignRunsAndIsStored();
    void stopThenResumeRunsTheRest();
    void liveToggleDuringCampaign();
    void refusedToggleDuringCampaignReverts();
    void tcpRunGreysTheSettingsOutAndPauseShows();
    void toolRunsAndFailedRunsSayWhy();
    void destroyingTheWindowStopsItsAgents();
    void quittingStopsLocalAgents();
    void cleanupTestCase() { delete m_window; }

private:
    QTemporaryDir m_dir;
    QWidget* m_window = nullptr;  // owns the pages, as the main window does
    LabContext* m_lab = nullptr;
    HostsPage* m_hosts = nullptr;
    CampaignPage* m_campaign = nullptr;
    RunPage* m_run = nullptr;
    ResultsPage* m_results = nullptr;
    QStringList m_errors;
};

void TestCampaignRun::initTestCase() {
    if (!QFileInfo(LocalLab::agentProgram()).isExecutable()) {
        std::fprintf(stderr, "SKIP: %s is not built\n", qPrintable(LocalLab::agentProgram()));
        std::exit(77);
    }
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    m_lab = new LabContext(this);
    m_lab->setDatabasePath(m_dir.filePath(QStringLiteral("results.db")));
    connect(m_lab, &LabContext::errorReported, this, [this](const QString& text) {
        qWarning("error shown: %s", qPrintable(text));
        m_errors.append(text);
    });
    m_window = new QWidget;
    m_hosts = new HostsPage(m_lab, m_window);
    m_campaign = new CampaignPage(m_lab, m_window);
    m_run = new RunPage(m_lab, m_window);
    m_results = new ResultsPage(m_lab, m_window);
}

void TestCampaignRun::localLabConnects() {
    m_hosts->startLocalLab();
    QTRY_COMPARE_WITH_TIMEOUT(m_hosts->connectedAgents().size(), 2, 10000);
    const HostRow& row = m_hosts->model()->host(0);
    QVERIFY(row.local);
    QVERIFY(!row.hello.agentVersion.isEmpty());
    QVERIFY(row.hello.capabilities.transportAvailable(QStringLiteral("tcp")));
    QCOMPARE(m_hosts->model()->data(m_hosts->model()->index(0, HostTableModel::stateColumn)).toString(),
             QStringLiteral("connected"));
    // The CLI demo's local lab: the wire of the chosen link model, said on
    // the page and carried by both agents to the campaigns.
    QCOMPARE(m_hosts->localLinkModel(), LocalLab::defaultLinkModel());
    const QString wire = m_hosts->localWireText();
    QVERIFY2(wire.contains(LocalLab::defaultLinkModel()), qPrintable(wire));
    const QList<AgentEndpoint> agents = m_hosts->connectedAgents();
    QCOMPARE(agents[0].wire, agents[1].wire);
    QCOMPARE(agents[0].wire.value(QLatin1String("model")).toString(), LocalLab::defaultLinkModel());
    if (::geteuid() == 0) {
        // Root may make namespaces: the server agent is behind the shaped veth.
        QCOMPARE(agents[0].wire.value(QLatin1String("tcp_path")).toString(),
                 QStringLiteral("veth between network namespaces"));
        QVERIFY2(!agents[0].address.startsWith(QStringLiteral("127.")), qPrintable(agents[0].address));
    } else {
        QCOMPARE(agents[0].wire.value(QLatin1String("tcp_path")).toString(), QStringLiteral("loopback"));
    }
}

void TestCampaignRun::hostsShowRolesAndReadableCapabilities() {
    HostTableModel* model = m_hosts->model();
    QCOMPARE(model->data(model->index(0, HostTableModel::roleColumn)).toString(), QStringLiteral("server (pair 1)"));
    QCOMPARE(model->data(model->index(1, HostTableModel::roleColumn)).toString(), QStringLiteral("client (pair 1)"));
    m_hosts->table()->selectRow(0);
    const QString form = m_hosts->capabilitiesText();
    QVERIFY2(form.contains(QStringLiteral("Transports")) && form.contains(QStringLiteral("tcp available")),
             qPrintable(form));
    QVERIFY(!m_hosts->jsonShown());
    m_hosts->setJsonShown(true);
    QVERIFY(m_hosts->jsonShown());
    m_hosts->setJsonShown(false);

    const QList<AgentEndpoint> before = m_hosts->connectedAgents();
    if (before[0].wire.value(QLatin1String("tcp_path")).toString().contains(QStringLiteral("namespaces"))) {
        // The server agent lives in the wire's namespace: its role is fixed.
        m_hosts->swapSelectedRoles();
        QCOMPARE(m_hosts->connectedAgents()[0].address, before[0].address);
    }
    // Swapping a pair of lab hosts (stand-ins marked connected; nothing listens).
    for (const char* address : {"192.0.2.1:7600", "192.0.2.2:7600"}) {
        HostRow row;
        row.address = QLatin1String(address);
        model->setState(model->addHost(row), HostState::connected);
    }
    m_hosts->table()->selectRow(model->findAddress(QStringLiteral("192.0.2.1:7600")));
    m_hosts->swapSelectedRoles();
    const QList<AgentEndpoint> after = m_hosts->connectedAgents();
    QCOMPARE(after.size(), 4);
    QCOMPARE(after[0].address, before[0].address);                 // the local pair stays
    QCOMPARE(after[2].address, QStringLiteral("192.0.2.2:7600"));  // the campaigns' server is now the other host
    QCOMPARE(after[3].address, QStringLiteral("192.0.2.1:7600"));
    QCOMPARE(model->roleText(model->findAddress(QStringLiteral("192.0.2.1:7600"))), QStringLiteral("client (pair 2)"));
    QVERIFY(after[2].wire.isEmpty());  // lab hosts carry no local wire
    model->removeHost(model->findAddress(QStringLiteral("192.0.2.1:7600")));
    model->removeHost(model->findAddress(QStringLiteral("192.0.2.2:7600")));
    QCOMPARE(m_hosts->connectedAgents().size(), 2);
}

void TestCampaignRun::campaignRunsAndIsStored() {
    orchestrator::CampaignSpec spec;
    spec.name = QStringLiteral("gui-e2e");
    spec.workloads = {{QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}},
                    {QStringLiteral("TCP again"), QStringLiteral("tcp"), {}, {}, {}, {}}};
    spec.sizes = {1024, 4096};
    spec.durationMs = 300;
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 100;
    m_campaign->setCampaign(spec);
    QVERIFY2(m_campaign->isValid(), qPrintable(m_campaign->hintText()));

    QSignalSpy finished(m_run, &RunPage::campaignFinished);
    connect(m_campaign, &CampaignPage::runRequested, this,
            [this] { m_run->startCampaign(m_campaign->campaignJson(), m_hosts->connectedAgents()); });
    m_campaign->requestRun();
    QVERIFY(m_run->isRunning());
    QVERIFY(finished.wait(25000));
    QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join('\n')));
    QVERIFY2(m_run->statusText().contains(QStringLiteral("finished")), qPrintable(m_run->statusText()));
    QVERIFY(m_run->plot()->sampleCount() > 0);

    const qint64 id = finished.front().front().toLongLong();
    m_results->refresh();
    QCOMPARE(m_results->campaignTree()->topLevelItemCount(), 1);
    QVERIFY(m_results->showCampaign(id));
    const ComparisonTableModel* model = m_results->comparisonView()->tableModel(Metric::bandwidth);
    QVERIFY(model != nullptr);
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->columnCount(), 3);
    QVERIFY(model->data(model->index(0, 1), ComparisonTableModel::valueRole).toDouble() > 0.0);
    QVERIFY(model->data(model->index(1, 2), ComparisonTableModel::valueRole).toDouble() > 0.0);

    // Every run records the local lab's wire; the single-run view and the
    // campaign's notes say it, with the host-load verdict.
    const auto runs = m_lab->store()->runs(id);
    QVERIFY(runs && !runs->isEmpty());
    const auto facts = m_lab->store()->hostFacts(runs->front().id);
    QVERIFY(facts.ok());
    QCOMPARE(facts->client.value(QStringLiteral("wire.model")), LocalLab::defaultLinkModel());
    QCOMPARE(facts->client.value(QStringLiteral("wire")),
             m_hosts->connectedAgents()[0].wire.value(QLatin1String("note")).toString());
    QVERIFY(m_results->showRun(runs->front().id));
    const QString environment = m_results->runView()->environmentText();
    QVERIFY2(environment.contains(QStringLiteral("Wire: SMC link %1").arg(LocalLab::defaultLinkModel())),
             qPrintable(environment));
    QVERIFY2(environment.contains(facts->client.value(QStringLiteral("wire.tcp_path"))), qPrintable(environment));
    if (facts->client.contains(QStringLiteral("host_state.busy")))
        QVERIFY2(environment.contains(QStringLiteral("Host: ")), qPrintable(environment));
    const QString notes = m_results->notesText(id);
    QVERIFY2(notes.contains(QStringLiteral("wire %1").arg(LocalLab::defaultLinkModel())), qPrintable(notes));
    const auto campaign = m_lab->store()->campaign(id);
    QVERIFY2(campaign->notes.contains(QStringLiteral("Wire: ")), qPrintable(campaign->notes));
}

void TestCampaignRun::stopThenResumeRunsTheRest() {
    // Stop mid-campaign: the finished runs stay, the Results page offers
    // Resume for it, and Resume on the Run page runs exactly the rest.
    orchestrator::CampaignSpec spec;
    spec.name = QStringLiteral("gui-resume");
    spec.workloads = {{QStringLiteral("Latency"), QStringLiteral("tcp_lat"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}}};
    spec.sizes = {1, 2, 4, 8, 16};
    spec.durationMs = 400;
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 100;
    m_campaign->setCampaign(spec);
    QVERIFY2(m_campaign->isValid(), qPrintable(m_campaign->hintText()));
    QSignalSpy finished(m_run, &RunPage::campaignFinished);
    m_run->startCampaign(m_campaign->campaignJson(), m_hosts->connectedAgents());
    qint64 id = 0;
    auto firstRunStored = [&] {
        const auto campaigns = m_lab->store()->listCampaigns();
        if (!campaigns || campaigns->isEmpty() || campaigns->front().name != spec.name) return false;
        id = campaigns->front().id;
        return campaigns->front().runsDone >= 1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(firstRunStored(), 15000);
    m_run->stop();
    QVERIFY(finished.wait(15000));
    QCOMPARE(finished.front().front().toLongLong(), id);
    QVERIFY2(m_run->statusText().contains(QStringLiteral("stopped")), qPrintable(m_run->statusText()));
    const auto stopped = m_lab->store()->campaign(id);
    QVERIFY(stopped.ok());
    const int doneAtStop = stopped->runsDone;
    QVERIFY2(doneAtStop >= 1 && doneAtStop < 5, qPrintable(QString::number(doneAtStop)));
    QVERIFY(m_run->canResumeStored());

    m_results->refresh();
    m_results->campaignTree()->setCurrentItem(m_results->campaignTree()->topLevelItem(0));
    QVERIFY(m_results->canResumeSelected());
    QSignalSpy fromResults(m_results, &ResultsPage::resumeRequested);
    m_results->resumeSelected();
    QCOMPARE(fromResults.count(), 1);
    QCOMPARE(fromResults.front().front().toLongLong(), id);

    QSignalSpy requested(m_run, &RunPage::resumeRequested);
    connect(m_run, &RunPage::resumeRequested, this,
            [this](qint64 campaignId) { m_run->resumeCampaign(campaignId, m_hosts->connectedAgents()); });
    finished.clear();
    m_run->resume();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.front().front().toLongLong(), id);
    QVERIFY(m_run->isRunning());
    QVERIFY(finished.wait(20000));
    disconnect(m_run, &RunPage::resumeRequested, this, nullptr);
    QVERIFY2(m_run->statusText().contains(QStringLiteral("finished")), qPrintable(m_run->statusText()));
    const auto done = m_lab->store()->campaign(id);
    QVERIFY(done.ok());
    QCOMPARE(done->runsDone, 5);
    QCOMPARE(done->status, db::CampaignStatus::done);
    // Its notes say it was resumed, when, and on what wire.
    const QString resumedLine = done->notes.section(QLatin1Char('\n'), -1);
    QVERIFY2(
        resumedLine.startsWith(
            QStringLiteral("Resumed %1").arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd")))),
        qPrintable(done->notes));
    QVERIFY2(resumedLine.contains(QStringLiteral(" cells on agents ")), qPrintable(done->notes));
    if (!m_hosts->connectedAgents().front().wire.isEmpty())
        QVERIFY2(resumedLine.contains(QStringLiteral("; wire: ")), qPrintable(done->notes));
    m_results->refresh();
    m_results->campaignTree()->setCurrentItem(m_results->campaignTree()->topLevelItem(0));
    QVERIFY(!m_results->canResumeSelected());
    QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join('\n')));
}

void TestCampaignRun::liveToggleDuringCampaign() {
    QVERIFY2(m_hosts->model()->host(0).hello.capabilities.transportAvailable(QStringLiteral("smcr")),
             "the smcr transport is built in but the local agents do not offer it");
    orchestrator::CampaignSpec spec;
    spec.name = QStringLiteral("gui-live");
    spec.workloads = {{QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("SMC"), QStringLiteral("smcr"), {}, {}, {}, {}}};
    spec.sizes = {64};
    spec.durationMs = 2500;
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 100;
    spec.transportOptions = QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")}};
    m_campaign->setCampaign(spec);
    QVERIFY2(m_campaign->isValid(), qPrintable(m_campaign->hintText()));
    QSignalSpy finished(m_run, &RunPage::campaignFinished);
    QSignalSpy sent(m_run, &RunPage::settingsSent);
    m_run->startCampaign(m_campaign->campaignJson(), m_hosts->connectedAgents());
    // Samples flowing means the cell's runs are live on both agents.
    QTRY_VERIFY_WITH_TIMEOUT(m_run->plot()->sampleCount() >= 2, 10000);
    auto* spin = qobject_cast<QSpinBox*>(m_run->settingsPanel()->editor(QStringLiteral("autocorking_size")));
    QVERIFY(spin != nullptr);
    spin->setValue(spin->value() == 0 ? 65536 : 0);
    QCOMPARE(sent.count(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(m_run->plot()->markers().size(), 1, 5000);
    QVERIFY(m_run->plot()->markers().front().label.startsWith(QStringLiteral("autocorking_size=")));
    QVERIFY(finished.wait(20000));
    QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join('\n')));
}

void TestCampaignRun::refusedToggleDuringCampaignReverts() {
    QVERIFY2(m_hosts->model()->host(0).hello.capabilities.transportAvailable(QStringLiteral("smcr")),
             "the smcr transport is built in but the local agents do not offer it");
    // The column runs with arm_first (not the engine's default): the panel
    // shows it while the cell runs, a value the engine refuses is reported
    // with the agents' reason, no marker appears, and the editor goes back
    // to arm_first, the value in force.
    orchestrator::CampaignSpec spec;
    spec.name = QStringLiteral("gui-refused");
    spec.workloads = {{QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("SMC arm_first"),
                     QStringLiteral("smcr"),
                     {},
                     QJsonObject{{QStringLiteral("lab.cq_mode"), QStringLiteral("arm_first")}},
                     {},
                     {}}};
    spec.sizes = {64};
    spec.durationMs = 2500;
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 100;
    spec.transportOptions = QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")}};
    m_campaign->setCampaign(spec);
    QVERIFY2(m_campaign->isValid(), qPrintable(m_campaign->hintText()));
    m_errors.clear();
    QSignalSpy finished(m_run, &RunPage::campaignFinished);
    QSignalSpy sent(m_run, &RunPage::settingsSent);
    m_run->startCampaign(m_campaign->campaignJson(), m_hosts->connectedAgents());
    QTRY_VERIFY_WITH_TIMEOUT(m_run->plot()->sampleCount() >= 2, 10000);
    auto* combo = qobject_cast<QComboBox*>(m_run->settingsPanel()->editor(QStringLiteral("lab.cq_mode")));
    QVERIFY(combo != nullptr);
    QCOMPARE(combo->currentText(), QStringLiteral("arm_first"));
    QCOMPARE(m_run->settingsInForce().value(QStringLiteral("lab.cq_mode")).toString(), QStringLiteral("arm_first"));

    combo->addItem(QStringLiteral("sideways"));  // not a CQ mode
    combo->setCurrentText(QStringLiteral("sideways"));
    QCOMPARE(sent.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!m_errors.isEmpty(), 8000);
    const QString text = m_errors.front();
    QVERIFY2(text.contains(QStringLiteral("refused")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("cq_mode=sideways")), qPrintable(text));
    QCOMPARE(combo->currentText(), QStringLiteral("arm_first"));
    QCOMPARE(m_run->settingsPanel()->values().value(QStringLiteral("lab.cq_mode")).toString(),
             QStringLiteral("arm_first"));
    QVERIFY(m_run->plot()->markers().isEmpty());
    combo->removeItem(combo->findText(QStringLiteral("sideways")));

    QVERIFY(finished.wait(20000));
    // Nothing runs any more: the panel shows the engine's defaults again,
    // and a change made now is not sent and does not stick.
    QCOMPARE(combo->currentText(), QStringLiteral("drain_then_arm"));
    combo->setCurrentText(QStringLiteral("arm_first"));
    QCOMPARE(sent.count(), 1);
    QCOMPARE(combo->currentText(), QStringLiteral("drain_then_arm"));
    m_errors.clear();
}

void TestCampaignRun::tcpRunGreysTheSettingsOutAndPauseShows() {
    // SMC-R engine settings mean nothing to kernel TCP: the panel says so and
    // sends nothing. Pausing shows in words; the time axis follows the
    // planned length of a cell, the latency axis stays away from a tcp_bw
    // run, and the plot says when it is a record rather than live.
    orchestrator::CampaignSpec spec;
    spec.name = QStringLiteral("gui-tcp-panel");
    spec.workloads = {{QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}}};
    spec.sizes = {1024, 2048};
    spec.durationMs = 1500;
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 100;
    m_campaign->setCampaign(spec);
    QVERIFY2(m_campaign->isValid(), qPrintable(m_campaign->hintText()));
    m_errors.clear();
    QSignalSpy finished(m_run, &RunPage::campaignFinished);
    QSignalSpy sent(m_run, &RunPage::settingsSent);
    QSignalSpy infos(m_lab, &LabContext::infoReported);
    m_run->startCampaign(m_campaign->campaignJson(), m_hosts->connectedAgents());
    QTRY_VERIFY_WITH_TIMEOUT(m_run->plot()->sampleCount() >= 2, 10000);
    SettingsPanel* panel = m_run->settingsPanel();
    QVERIFY2(panel->unavailableReason().contains(QStringLiteral("kernel TCP")), qPrintable(panel->unavailableReason()));
    auto* spin = qobject_cast<QSpinBox*>(panel->editor(QStringLiteral("autocorking_size")));
    QVERIFY(!spin->isEnabled());
    const int before = spin->value();
    spin->setValue(before == 0 ? 4096 : 0);  // as a script would: still not sent
    QCOMPARE(sent.count(), 0);
    QCOMPARE(spin->value(), before);
    QVERIFY(!infos.isEmpty());
    QVERIFY2(infos.back().front().toString().contains(QStringLiteral("was not sent")),
             qPrintable(infos.back().front().toString()));
    QCOMPARE(m_run->plot()->timeAxisUpperSec(), 1.5);
    QVERIFY(!m_run->plot()->latencyAxisVisible());
    QVERIFY(m_run->plot()->latencyAxisLabel().contains(QStringLiteral("mean")));
    // A bandwidth run names no latency series in its legend.
    QCOMPARE(m_run->plot()->legendNames(), QStringList{QStringLiteral("throughput")});

    m_run->pause();
    QTRY_COMPARE_WITH_TIMEOUT(m_run->stateText(), QStringLiteral("paused"), 10000);
    m_run->resume();
    QTRY_COMPARE_WITH_TIMEOUT(m_run->stateText(), QStringLiteral("running"), 5000);
    QVERIFY(finished.wait(20000));
    QCOMPARE(m_run->stateText(), QStringLiteral("finished"));
    QVERIFY(panel->unavailableReason().isEmpty());
    QVERIFY2(m_run->plot()->caption().contains(QStringLiteral("nothing runs now")),
             qPrintable(m_run->plot()->caption()));
    QVERIFY(m_run->counters()->isFrozen());
    QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join('\n')));
}

namespace {

// A live smclab-agent with this pid (not a reaped one, nor a reused pid).
bool agentAlive(qint64 pid) {
    if (::kill(static_cast<pid_t>(pid), 0) != 0) return false;
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    return cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains("smclab-agent");
}

}  // namespace

void TestCampaignRun::toolRunsAndFailedRunsSayWhy() {
    // qperf over TCP prints its figures only when it ends: the empty live
    // plot says so. A column the agents refuse fails, and the Run page
    // shows the reason, not only a count.
    orchestrator::CampaignSpec spec;
    spec.name = QStringLiteral("gui-tool-and-failure");
    spec.workloads = {{QStringLiteral("Bandwidth"),
                       QStringLiteral("qperf"),
                       QJsonObject{{QStringLiteral("test"), QStringLiteral("tcp_bw")}},
                       {},
                       {}}};
    // The good column last, so that its plot stays on screen when the campaign ends.
    spec.columns = {
        {QStringLiteral("Bad"), QStringLiteral("tcp"), {}, QJsonObject{{QStringLiteral("no_such_setting"), 1}}, {}, {}},
        {QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}}};
    spec.sizes = {1024};
    spec.durationMs = 1000;
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 200;
    QSignalSpy finished(m_run, &RunPage::campaignFinished);
    m_run->startCampaign(orchestrator::campaignToJson(spec), m_hosts->connectedAgents());
    QTRY_VERIFY_WITH_TIMEOUT(m_run->plot()->emptyNote().contains(QStringLiteral("only when it ends")), 10000);
    QVERIFY2(m_run->plot()->emptyNote().contains(QStringLiteral("qperf")), qPrintable(m_run->plot()->emptyNote()));
    QVERIFY(finished.wait(30000));
    // When qperf ended, its figure became one point at the run's end, and
    // the note stays, saying what the point is.
    QCOMPARE(m_run->plot()->sampleCount(), 1);
    QVERIFY2(m_run->plot()->emptyNote().contains(QStringLiteral("only when it ends")),
             qPrintable(m_run->plot()->emptyNote()));
    QVERIFY2(m_run->plot()->emptyNote().contains(QStringLiteral("The point at the end is what qperf printed")) &&
                 m_run->plot()->emptyNote().contains(QStringLiteral(" MB/s")),
             qPrintable(m_run->plot()->emptyNote()));
    QVERIFY2(m_run->plot()->lastTimeSec() >= 0.5, qPrintable(QString::number(m_run->plot()->lastTimeSec())));
    QCOMPARE(m_run->failedRuns().size(), 1);
    QVERIFY2(m_run->failedRuns().front().startsWith(QStringLiteral("Bandwidth / Bad / 1024 B / rep 1: ")),
             qPrintable(m_run->failedRuns().front()));
    QVERIFY2(m_run->failedRuns().front().contains(QStringLiteral("no_such_setting")),
             qPrintable(m_run->failedRuns().front()));
    // A built-in workload streams samples: no such note.
    LivePlot plot;
    plot.setEmptyNote(QStringLiteral("waiting"));
    QCOMPARE(plot.emptyNote(), QStringLiteral("waiting"));
    plot.addSample(0.5, 10.0, std::numeric_limits<double>::quiet_NaN());
    QVERIFY(plot.emptyNote().isEmpty());
    QVERIFY(!workloads::reportsOnlyAtEnd("tcp_bw"));
    QVERIFY(!workloads::reportsOnlyAtEnd("iperf3"));
    QVERIFY(workloads::reportsOnlyAtEnd("redis"));
    m_errors.clear();
}

void TestCampaignRun::destroyingTheWindowStopsItsAgents() {
    auto* lab = m_hosts->findChild<LocalLab*>();
    QVERIFY(lab != nullptr);
    const QList<qint64> pids = lab->processIds();
    QCOMPARE(pids.size(), 2);
    for (qint64 pid : pids) QVERIFY(agentAlive(pid));
    delete m_window;  // the pages and their local lab go with it
    m_window = nullptr;
    for (qint64 pid : pids)
        QVERIFY2(!agentAlive(pid), qPrintable(QStringLiteral("agent %1 survived its window").arg(pid)));
}

void TestCampaignRun::quittingStopsLocalAgents() {
    // A lab whose owner is never destroyed (like a window on main()'s
    // stack): quitting the application stops its agents.
    auto* lab = new LocalLab(qApp);
    QSignalSpy started(lab, &LocalLab::allStarted);
    QVERIFY(lab->start(LocalLab::defaultLinkModel(), 2));
    QVERIFY(started.wait(10000));
    const QList<qint64> pids = lab->processIds();
    QCOMPARE(pids.size(), 2);
    QTimer::singleShot(0, qApp, &QCoreApplication::quit);
    QCoreApplication::exec();  // returns at once, after aboutToQuit
    for (qint64 pid : pids)
        QVERIFY2(!agentAlive(pid), qPrintable(QStringLiteral("agent %1 survived the quit").arg(pid)));
    QVERIFY(!lab->isRunning());
}

QTEST_MAIN(TestCampaignRun)
#include "test_campaign_run.moc"
