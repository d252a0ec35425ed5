// The Run page against a REAL local smclab-agent (started by the GUI's
// "Local lab" code): a tcp_bw run over libsmcr on the sim fabric, followed
// by the page; flipping a toggle sends set_settings for that run, the agent
// applies it, and a marker appears on the live plot where it took effect.
// Skips (77) when the agent is not built or has no smcr transport.
#include <cstdio>

#include <QCheckBox>
#include <QComboBox>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app/lab_context.h"
#include "pages/run_page.h"
#include "protocol/agent_client.h"
#include "run/local_lab.h"
#include "seed_store.h"
#include "widgets/live_plot.h"
#include "widgets/settings_panel.h"

using namespace smclab;
using namespace smclab::gui;

namespace {

constexpr int kWaitMs = 8000;

QJsonObject startRunMessage(const QString& runId, const QString& role, const QString& peerOrListen, int durationMs) {
    QJsonObject message{
        {QStringLiteral("type"), QStringLiteral("start_run")},
        {QStringLiteral("run_id"), runId},
        {QStringLiteral("role"), role},
        {QStringLiteral("workload"), QStringLiteral("tcp_bw")},
        {QStringLiteral("transport"), QStringLiteral("smcr")},
        {QStringLiteral("transport_options"), QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")}}},
        {QStringLiteral("duration_ms"), durationMs},
        {QStringLiteral("sample_interval_ms"), 200}};
    if (role == QLatin1String("server")) {
        message.insert(QStringLiteral("listen"), peerOrListen);
        message.insert(QStringLiteral("params"), QJsonObject{{QStringLiteral("max_tests"), 1}});
    } else {
        message.insert(QStringLiteral("peer"), peerOrListen);
        message.insert(QStringLiteral("warmup_ms"), 0);
        message.insert(QStringLiteral("params"), QJsonObject{{QStringLiteral("msg_size"), 1024}});
    }
    return message;
}

}  // namespace

class TestRunLiveSettings : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void toggleSendsSetSettingsAndDrawsMarker();
    void choiceSettingToo();
    void refusedChangeShowsTheAgentsError();
    void cleanupTestCase();

private:
    QTemporaryDir m_dir;
    LocalLab* m_localLab = nullptr;
    AgentClient* m_client = nullptr;
    LabContext* m_lab = nullptr;
    RunPage* m_page = nullptr;
    QString m_clientRun;
    QString m_serverRun;
};

void TestRunLiveSettings::initTestCase() {
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    m_localLab = new LocalLab(this);
    QSignalSpy started(m_localLab, &LocalLab::allStarted);
    QSignalSpy failed(m_localLab, &LocalLab::failed);
    QVERIFY(m_localLab->start(QStringLiteral("ideal"), 1));
    QVERIFY2(started.wait(kWaitMs), failed.isEmpty() ? "no address" : qPrintable(failed.front().front().toString()));
    const QString address = m_localLab->addresses().front();
    QVERIFY(address.startsWith(QStringLiteral("127.0.0.1:")));

    m_client = new AgentClient(this);
    QSignalSpy hello(m_client, &AgentClient::helloReceived);
    AgentConnectOptions options;
    options.token = m_localLab->token();
    m_client->connectToAgent(QStringLiteral("127.0.0.1"), static_cast<quint16>(address.section(':', 1).toUInt()),
                             options);
    QVERIFY(hello.wait(kWaitMs));
    if (!m_client->hello().capabilities.transportAvailable(QStringLiteral("smcr"))) {
        std::fprintf(stderr, "SKIP: the local agent has no smcr transport; live engine settings need it\n");
        std::exit(77);
    }

    const QString pid = QString::number(QCoreApplication::applicationPid());
    m_serverRun = QStringLiteral("gui-srv-") + pid;
    m_clientRun = QStringLiteral("gui-cli-") + pid;
    QSignalSpy ready(m_client, &AgentClient::runReady);
    QJsonObject reply;
    m_client->sendRequest(startRunMessage(m_serverRun, QStringLiteral("server"), QStringLiteral("127.0.0.1:0"), 20000),
                          [&reply](const QJsonObject& r) { reply = r; });
    QVERIFY2(ready.wait(kWaitMs), qPrintable(QJsonDocument(reply).toJson()));
    const auto serverReady = ready.front().front().value<protocol::RunReady>();
    m_client->sendRequest(startRunMessage(m_clientRun, QStringLiteral("client"),
                                          QStringLiteral("127.0.0.1:%1").arg(serverReady.port), 15000),
                          [&reply](const QJsonObject& r) { reply = r; });

    m_lab = new LabContext(this);
    connect(m_lab, &LabContext::errorReported, this,
            [](const QString& text) { qWarning("error shown: %s", qPrintable(text)); });
    m_page = new RunPage(m_lab);
    m_page->resize(1150, 650);
    m_page->monitorRun(m_client, m_clientRun);
    // Samples arrive and are plotted.
    QTRY_VERIFY_WITH_TIMEOUT(m_page->plot()->sampleCount() >= 2, kWaitMs);
}

void TestRunLiveSettings::toggleSendsSetSettingsAndDrawsMarker() {
    QSignalSpy sent(m_page, &RunPage::settingsSent);
    QSignalSpy applied(m_client, &AgentClient::settingsApplied);
    auto* spin = qobject_cast<QSpinBox*>(m_page->settingsPanel()->editor(QStringLiteral("autocorking_size")));
    QVERIFY(spin != nullptr);
    QCOMPARE(spin->value(), 65536);
    spin->setValue(0);  // what a user's edit does (keyboard tracking is off)

    QCOMPARE(sent.count(), 1);
    QCOMPARE(sent.front().front().toJsonObject(), (QJsonObject{{QStringLiteral("autocorking_size"), 0}}));
    QVERIFY(applied.count() > 0 || applied.wait(kWaitMs));
    const auto ack = applied.front().front().value<protocol::SettingsApplied>();
    QCOMPARE(ack.runId, m_clientRun);
    QVERIFY2(ack.applied.contains(QStringLiteral("autocorking_size")), qPrintable(QJsonDocument(ack.applied).toJson()));
    QCOMPARE(ack.applied.value(QStringLiteral("autocorking_size")).toVariant().toString(), QStringLiteral("0"));

    QCOMPARE(m_page->plot()->markers().size(), 1);
    const LivePlot::Marker marker = m_page->plot()->markers().front();
    QCOMPARE(marker.label, QStringLiteral("autocorking_size=0"));
    QCOMPARE(marker.timeSec, static_cast<double>(ack.atMs) / 1000.0);
    // The marker is drawn: a vertical line and its label.
    QCOMPARE(m_page->plot()->itemCount(), 2);
}

void TestRunLiveSettings::choiceSettingToo() {
    QSignalSpy applied(m_client, &AgentClient::settingsApplied);
    auto* combo = qobject_cast<QComboBox*>(m_page->settingsPanel()->editor(QStringLiteral("lab.wnd_update_limit")));
    QVERIFY(combo != nullptr);
    combo->setCurrentText(QStringLiteral("min"));
    QVERIFY(applied.count() > 0 || applied.wait(kWaitMs));
    QCOMPARE(m_page->plot()->markers().size(), 2);
    QCOMPARE(m_page->plot()->markers().back().label, QStringLiteral("wnd_update_limit=min"));
    QVERIFY(m_page->plot()->markers().back().timeSec >= m_page->plot()->markers().front().timeSec);
}

void TestRunLiveSettings::refusedChangeShowsTheAgentsError() {
    // A value the engine refuses: the window shows the agent's error (with
    // the engine's reason), no marker appears, and the editor goes back to
    // what still runs.
    QSignalSpy errors(m_lab, &LabContext::errorReported);
    const qsizetype markers = m_page->plot()->markers().size();
    auto* combo = qobject_cast<QComboBox*>(m_page->settingsPanel()->editor(QStringLiteral("lab.cq_mode")));
    QVERIFY(combo != nullptr);
    const QString before = combo->currentText();
    combo->addItem(QStringLiteral("sideways"));  // not a CQ mode
    combo->setCurrentText(QStringLiteral("sideways"));
    QVERIFY(errors.count() > 0 || errors.wait(kWaitMs));
    const QString text = errors.front().front().toString();
    QVERIFY2(text.contains(QStringLiteral("lab.cq_mode")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("refused")), qPrintable(text));
    if (text.contains(QStringLiteral("cannot set")))  // the engine knows the setting: its reason names the value
        QVERIFY2(text.contains(QStringLiteral("sideways")), qPrintable(text));
    QCOMPARE(m_page->plot()->markers().size(), markers);
    QCOMPARE(combo->currentText(), before);
}

void TestRunLiveSettings::cleanupTestCase() {
    if (m_client && m_client->isReady()) {
        m_client->stopRun(m_clientRun);
        m_client->stopRun(m_serverRun);
        QTest::qWait(200);
    }
    delete m_page;
    m_localLab->shutdown();
}

QTEST_MAIN(TestRunLiveSettings)
#include "test_run_live_settings.moc"
