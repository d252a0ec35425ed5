// A campaign and the programs that run it: when its runner is killed
// (SIGKILL of `smclab run`), Results shows it as interrupted and resumable,
// never as running; quitting the window during a campaign asks first, and
// "Stop and quit" leaves it stopped and resumable. Real agents (local lab),
// real CLI. Skips (77) without the agent or the CLI.
#include <csignal>
#include <cstdio>

#include <QDir>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "app/main_window.h"
#include "orchestrator/campaign_json.h"
#include "pages/hosts_page.h"
#include "pages/results_page.h"
#include "pages/run_page.h"
#include "run/local_lab.h"
#include "seed_store.h"
#include "smclab/db/result_store.h"

using namespace smclab;
using namespace smclab::gui;

class TestQuitDuringRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void killedRunnerShowsInterrupted();
    void quitQuestionNamesTheRunInFlight();
    void quitDuringRunAsks();
    void cleanupTestCase() { delete m_window; }

private:
    orchestrator::CampaignSpec longCampaign(const QString& name) const;
    // The newest campaign's id and status as Results shows it.
    qint64 newestCampaign() const;

    QTemporaryDir m_dir;
    QString m_db;
    MainWindow* m_window = nullptr;
};

void TestQuitDuringRun::initTestCase() {
    const QString cli = QFileInfo(LocalLab::agentProgram()).dir().filePath(QStringLiteral("smclab"));
    if (!QFileInfo(LocalLab::agentProgram()).isExecutable() || !QFileInfo(cli).isExecutable()) {
        std::fprintf(stderr, "SKIP: the agent or the CLI is not built\n");
        std::exit(77);
    }
    QVERIFY(m_dir.isValid());
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    m_db = m_dir.filePath(QStringLiteral("results.db"));
    AppSettings::setDatabasePath(m_db);
    m_window = new MainWindow;
    connect(m_window->lab(), &LabContext::errorReported, this,
            [](const QString& text) { qWarning("error shown: %s", qPrintable(text)); });
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    m_window->hostsPage()->startLocalLab();
    QTRY_COMPARE_WITH_TIMEOUT(m_window->hostsPage()->connectedAgents().size(), 2, 10000);
}

orchestrator::CampaignSpec TestQuitDuringRun::longCampaign(const QString& name) const {
    orchestrator::CampaignSpec spec;
    spec.name = name;
    spec.workloads = {{QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}}};
    spec.sizes = {1024, 4096};
    spec.durationMs = 20000;  // far longer than the test waits: it is cut short
    spec.warmupMs = 0;
    spec.sampleIntervalMs = 200;
    return spec;
}

qint64 TestQuitDuringRun::newestCampaign() const {
    auto store = db::ResultStore::open(m_db);
    if (!store) return 0;
    const auto campaigns = store.value()->listCampaigns();
    return campaigns && !campaigns->isEmpty() ? campaigns->front().id : 0;
}

void TestQuitDuringRun::killedRunnerShowsInterrupted() {
    const QList<AgentEndpoint> agents = m_window->hostsPage()->connectedAgents();
    const QString tokenFile = m_dir.filePath(QStringLiteral("token"));
    QFile token(tokenFile);
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write(agents.front().token.toUtf8());
    token.close();
    const QString campaignFile = m_dir.filePath(QStringLiteral("long.json"));
    QFile file(campaignFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(orchestrator::campaignToJson(longCampaign(QStringLiteral("cli-killed")))).toJson());
    file.close();

    QProcess cli;
    cli.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    cli.start(QFileInfo(LocalLab::agentProgram()).dir().filePath(QStringLiteral("smclab")),
              {QStringLiteral("run"), campaignFile, QStringLiteral("--agents"),
               agents[0].address + QLatin1Char(',') + agents[1].address, QStringLiteral("--token-file"), tokenFile,
               QStringLiteral("--db"), m_db});
    QVERIFY(cli.waitForStarted(5000));
    ResultsPage* results = m_window->resultsPage();
    qint64 id = 0;
    QTRY_VERIFY_WITH_TIMEOUT((id = newestCampaign()) > 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT((results->refresh(), results->statusText(id) == QStringLiteral("running")), 10000);

    // The runner dies without a word: no status update reaches the store.
    ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
    QVERIFY(cli.waitForFinished(5000));
    results->refresh();
    QCOMPARE(results->statusText(id), QStringLiteral("interrupted"));
    auto store = db::ResultStore::open(m_db);
    QVERIFY(store);
    QCOMPARE(store.value()->campaign(id)->status, db::CampaignStatus::running);  // what the store still says
    QTreeWidget* tree = results->campaignTree();
    tree->setCurrentItem(tree->topLevelItem(0));
    QVERIFY(results->canResumeSelected());
}

void TestQuitDuringRun::quitQuestionNamesTheRunInFlight() {
    // Short runs: the next one starts while the question is open, and the
    // question names it when the user answers.
    orchestrator::CampaignSpec spec = longCampaign(QStringLiteral("gui-quit-next"));
    spec.sizes = {1024, 4096, 16384};
    spec.durationMs = 1500;
    RunPage* run = m_window->runPage();
    run->startCampaign(orchestrator::campaignToJson(spec), m_window->hostsPage()->connectedAgents());
    QTRY_VERIFY_WITH_TIMEOUT(run->statusText().contains(QStringLiteral("1024 B")), 10000);
    m_window->close();
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = m_window->findChild<QMessageBox*>(QStringLiteral("quitConfirmation"))) != nullptr &&
                box->isVisible());
    QVERIFY2(box->text().contains(QStringLiteral("1024 B")), qPrintable(box->text()));
    QTRY_VERIFY_WITH_TIMEOUT(run->statusText().contains(QStringLiteral("4096 B")), 10000);
    QVERIFY2(box->text().contains(run->statusText()), qPrintable(box->text() + " / " + run->statusText()));
    QVERIFY2(!box->text().contains(QStringLiteral("1024 B")), qPrintable(box->text()));
    for (QAbstractButton* b : box->buttons()) {
        if (b->text() == QLatin1String("Keep running")) b->click();
    }
    QVERIFY(m_window->isVisible());
    run->stop();
    QTRY_VERIFY_WITH_TIMEOUT(!run->isRunning(), 10000);
}

void TestQuitDuringRun::quitDuringRunAsks() {
    RunPage* run = m_window->runPage();
    run->startCampaign(orchestrator::campaignToJson(longCampaign(QStringLiteral("gui-quit"))),
                       m_window->hostsPage()->connectedAgents());
    QTRY_COMPARE_WITH_TIMEOUT(run->stateText(), QStringLiteral("running"), 10000);

    auto question = [this]() -> QMessageBox* {
        for (QMessageBox* box : m_window->findChildren<QMessageBox*>(QStringLiteral("quitConfirmation"))) {
            if (box->isVisible()) return box;
        }
        return static_cast<QMessageBox*>(nullptr);
    };
    auto button = [](QMessageBox* box, const QString& text) -> QAbstractButton* {
        for (QAbstractButton* b : box->buttons()) {
            if (b->text() == text) return b;
        }
        return nullptr;
    };
    m_window->close();
    QTRY_VERIFY(question() != nullptr);
    QVERIFY(m_window->isVisible());
    QVERIFY(question()->text().contains(QStringLiteral("gui-quit")) ||
            question()->text().contains(QStringLiteral("TCP")));
    button(question(), QStringLiteral("Keep running"))->click();
    QTRY_VERIFY(question() == nullptr);
    QVERIFY(m_window->isVisible());
    QVERIFY(run->isRunning());

    m_window->close();
    QTRY_VERIFY(question() != nullptr);
    button(question(), QStringLiteral("Stop and quit"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->isVisible(), 8000);
    QVERIFY(!run->isRunning());
    const qint64 id = newestCampaign();
    m_window->resultsPage()->refresh();
    QCOMPARE(m_window->resultsPage()->statusText(id), QStringLiteral("stopped"));
}

QTEST_MAIN(TestQuitDuringRun)
#include "test_quit_during_run.moc"
