// The main window at 1280x800: every page renders (a PNG per page, plus the
// results of a campaign with error bars, the single-run view of a run and
// of a failed run, and the Database dialog, is saved
// under the build tree for review), the shortcuts are there, the campaign
// editor validates with a hint, offers a tool workload's parameters as the
// agent's schema has them, and hosts and window state persist.
#include <functional>
#include <utility>

#include <smcr/settings.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "app/main_window.h"
#include "app/page_id.h"
#include "dialogs/add_host_dialog.h"
#include "dialogs/database_dialog.h"
#include "models/counter_table_model.h"
#include "models/host_table_model.h"
#include "orchestrator/cell_matrix.h"
#include "pages/campaign_page.h"
#include "pages/export_page.h"
#include "pages/hosts_page.h"
#include "pages/results_page.h"
#include "pages/run_page.h"
#include "protocol/hello.h"
#include "seed_store.h"
#include "smclab/db/result_store.h"
#include "widgets/comparison_plot.h"
#include "widgets/comparison_view.h"
#include "widgets/live_plot.h"
#include "widgets/message_bar.h"
#include "widgets/param_editor.h"
#include "widgets/run_view.h"
#include "widgets/settings_panel.h"
#include "workload.h"

using namespace smclab::gui;

namespace {

// A page drawn with its tables, forms and plots has hundreds of colours
// (anti-aliased text and lines, even the sparest page, Export); an empty or
// unpainted page has a handful.
constexpr int kMinPageColours = 100;

int distinctColours(const QImage& image, const QRect& area) {
    QSet<QRgb> colours;
    const QRect inside = area.intersected(image.rect());
    for (int y = inside.top(); y <= inside.bottom(); y += 2)
        for (int x = inside.left(); x <= inside.right(); x += 2) colours.insert(image.pixel(x, y));
    return int(colours.size());
}

}  // namespace

class TestGuiPages : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void shortcutsExist();
    void shortcutsWorkFromTheExportText();
    void campaignEditorValidates();
    void campaignFileRoundTrip();
    void campaignEditorKeepsClientSettings();
    void warmupAndPerWorkloadSizesAreExact();
    void campaignEditorOffersToolParams();
    void addHostDialogExplains();
    void errorsReachTheWindow();
    void settingsPanelOffersTheLabToggles();
    void ksmcRunsOfferTheKernelSysctls();
    void pagesRenderToPng();
    void resultsFitTheWindowWithFourColumns();
    void hostsAndGeometryPersist();
    void cleanupTestCase();

private:
    QTemporaryDir m_dir;
    MainWindow* m_window = nullptr;
    qint64 m_repeated = 0;
};

void TestGuiPages::initTestCase() {
    QVERIFY(m_dir.isValid());
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    const QString db = m_dir.filePath(QStringLiteral("results.db"));
    QVERIFY(testing::seedStore(db, QStringLiteral("datapath (seed 000)")) > 0);
    m_repeated = testing::seedRepeatedCampaign(db);
    QVERIFY(m_repeated > 0);
    AppSettings::setDatabasePath(db);
    // A host that is not there: it shows as failed, with the reason.
    AppSettings::setHosts({{QStringLiteral("127.0.0.1:1"), false, m_dir.filePath(QStringLiteral("missing-token"))}});
    m_window = new MainWindow;
    connect(m_window->lab(), &LabContext::errorReported, this,
            [](const QString& text) { qWarning("error shown: %s", qPrintable(text)); });
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
}

void TestGuiPages::shortcutsExist() {
    QStringList found;
    for (const QAction* action : m_window->findChildren<QAction*>()) {
        if (!action->shortcut().isEmpty()) found.append(action->shortcut().toString());
    }
    for (const char* key : {"Ctrl+N", "Ctrl+O", "Ctrl+S", "Ctrl+R", "Ctrl+E", "F5", "Ctrl+L", "Ctrl+P"}) {
        QVERIFY2(found.contains(QString::fromLatin1(key)), key);
    }
    // Ctrl+E shows the Export page.
    QTest::keyClick(m_window, Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(m_window->page(PageId::exporter)->isVisible(), true);
}

void TestGuiPages::shortcutsWorkFromTheExportText() {
    // The Export page's text box has the focus: the window's shortcuts still
    // reach their pages and the Run action.
    m_window->showPage(PageId::exporter);
    auto* text = m_window->page(PageId::exporter)->findChild<QPlainTextEdit*>();
    QVERIFY(text != nullptr);
    m_window->activateWindow();
    text->setFocus();
    QCoreApplication::processEvents();
    QVERIFY(text->hasFocus());
    for (int i = 0; i < static_cast<int>(PageId::count); ++i) {
        m_window->showPage(PageId::exporter);
        text->setFocus();
        QTest::keyClick(text, static_cast<Qt::Key>(Qt::Key_1 + i), Qt::AltModifier);
        QVERIFY2(m_window->page(static_cast<PageId>(i))->isVisible(), qPrintable(QStringLiteral("Alt+%1").arg(i + 1)));
    }
    m_window->showPage(PageId::exporter);
    text->setFocus();
    QSignalSpy run(m_window->campaignPage(), &CampaignPage::runRequested);
    QTest::keyClick(text, Qt::Key_R, Qt::ControlModifier);
    QCOMPARE(run.count(), 1);
}

void TestGuiPages::campaignEditorValidates() {
    CampaignPage* page = m_window->campaignPage();
    page->loadPreset(QStringLiteral("datapath"));
    QVERIFY(page->isValid());
    // 2 workloads x 4 columns x 17 sizes x 3 repetitions (presets repeat their cells).
    QVERIFY2(page->estimateText().startsWith(QStringLiteral("408 runs")), qPrintable(page->estimateText()));
    page->sizesEdit()->setText(QStringLiteral("1:64Q:*2"));
    QVERIFY(!page->isValid());
    QVERIFY2(page->hintText().startsWith(QStringLiteral("sizes:")), qPrintable(page->hintText()));
    page->sizesEdit()->setText(QStringLiteral("64,4K"));
    QVERIFY(page->isValid());
    QVERIFY2(page->estimateText().startsWith(QStringLiteral("48 runs")), qPrintable(page->estimateText()));
    QVERIFY2(page->estimateText().contains(QStringLiteral("x 2 sizes x")), qPrintable(page->estimateText()));
    // The preset's description named its 1:64K sweep; the notes now say what
    // will run first, and keep the preset's own description after it.
    const QString notes = page->campaignJson().value(QStringLiteral("description")).toString();
    QVERIFY2(notes.startsWith(QStringLiteral("Edited from preset datapath: sizes 64,4K,")) &&
                 notes.indexOf(QStringLiteral("1:64K")) > notes.indexOf(QStringLiteral(". The preset: ")),
             qPrintable(notes));
    page->sizesEdit()->setText(QStringLiteral("64,4K,64K"));
    QVERIFY2(page->campaignJson().value(QStringLiteral("description")).toString().contains(QStringLiteral("64,4K,64K")),
             qPrintable(page->campaignJson().value(QStringLiteral("description")).toString()));
    page->sizesEdit()->setText(QStringLiteral("64,4K"));
    page->columnsTable()->item(1, 3)->setText(QStringLiteral("autocorking_size"));
    QVERIFY(!page->isValid());
    QVERIFY2(page->hintText().contains(QStringLiteral("columns[1].settings")), qPrintable(page->hintText()));
    page->columnsTable()->item(1, 3)->setText(QString());
    QVERIFY(page->isValid());
    // "Ready to run" says whether anything can run it yet.
    page->setConnectedAgentCount(0);
    QVERIFY2(page->hintText().contains(QStringLiteral("No agent is connected yet")), qPrintable(page->hintText()));
    page->setConnectedAgentCount(2);
    QVERIFY2(page->hintText().contains(QStringLiteral("Ctrl+R runs it on the 2 connected agents")),
             qPrintable(page->hintText()));
    page->setConnectedAgentCount(0);
}

void TestGuiPages::campaignFileRoundTrip() {
    CampaignPage* page = m_window->campaignPage();
    page->loadPreset(QStringLiteral("credits"));
    const QString path = m_dir.filePath(QStringLiteral("credits.json"));
    QVERIFY(page->savePath(path));
    const QJsonObject saved = page->campaignJson();
    page->newCampaign();
    QVERIFY(page->campaignJson() != saved);
    QVERIFY(page->openPath(path));
    QCOMPARE(page->campaignJson(), saved);
    QCOMPARE(AppSettings::lastCampaignFile(), path);
    page->loadPreset(QStringLiteral("datapath"));
}

void TestGuiPages::campaignEditorKeepsClientSettings() {
    // A libsmcr client's experiments against a kernel server (the interop
    // columns): the editor shows them in their own column and a campaign
    // opened, edited elsewhere and saved keeps them. Before the column the
    // editor dropped them, and the client ran without its settings.
    CampaignPage* page = m_window->campaignPage();
    page->loadPreset(QStringLiteral("interop"));
    QTableWidget* columns = page->columnsTable();
    QCOMPARE(columns->item(1, 0)->text(), QStringLiteral("libsmcr->kernel"));
    const int clientSettings = 4;
    columns->item(1, clientSettings)->setText(QStringLiteral("lab.rq_credits=1, lab.fast_fallback=1"));
    QVERIFY2(page->isValid(), qPrintable(page->hintText()));
    const QString path = m_dir.filePath(QStringLiteral("interop.json"));
    QVERIFY(page->savePath(path));
    page->newCampaign();
    QVERIFY(page->openPath(path));
    const QJsonObject mixed = page->campaignJson().value(QStringLiteral("columns")).toArray().at(1).toObject();
    QCOMPARE(mixed.value(QStringLiteral("clientSettings")).toObject(),
             (QJsonObject{{QStringLiteral("lab.rq_credits"), 1}, {QStringLiteral("lab.fast_fallback"), 1}}));
    QCOMPARE(columns->item(1, clientSettings)->text(), QStringLiteral("lab.fast_fallback=1, lab.rq_credits=1"));
    // Where both ends run one transport there is no other client to set up:
    // the campaign's own validation says so.
    columns->item(0, clientSettings)->setText(QStringLiteral("lab.rq_credits=1"));
    QVERIFY(!page->isValid());
    QVERIFY2(page->hintText().contains(QStringLiteral("columns[0].clientSettings")), qPrintable(page->hintText()));
    page->loadPreset(QStringLiteral("datapath"));
}

namespace {

// Every parameter the editor shows has the widget its schema entry asks for,
// with the schema's range, choices and help.
void checkFieldsFollowSchema(const ParamEditor* editor, const smclab::workloads::ParamSchema& schema) {
    using smclab::workloads::ParamType;
    for (const smclab::workloads::ParamSpec& spec : schema) {
        const QString name = QString::fromStdString(spec.name);
        QWidget* field = editor->field(name);
        if (field == nullptr) continue;
        QCOMPARE(field->toolTip(), QString::fromStdString(spec.help));
        if (spec.type == ParamType::integer || spec.type == ParamType::size) {
            if (auto* box = qobject_cast<QSpinBox*>(field)) {
                QCOMPARE(qint64(box->minimum()), spec.minValue);
                QCOMPARE(qint64(box->maximum()), spec.maxValue);
            } else {
                auto* wide = qobject_cast<QDoubleSpinBox*>(field);
                QVERIFY2(wide != nullptr, qPrintable(name));
                QCOMPARE(qint64(wide->maximum()), spec.maxValue);
            }
        } else if (spec.type == ParamType::boolean) {
            auto* box = qobject_cast<QCheckBox*>(field);
            QVERIFY2(box != nullptr, qPrintable(name));
            QCOMPARE(box->isChecked(), spec.defaultValue.toBool());
        } else if (spec.type == ParamType::string && !spec.choices.empty()) {
            auto* box = qobject_cast<QComboBox*>(field);
            QVERIFY2(box != nullptr, qPrintable(name));
            QCOMPARE(size_t(box->count()), spec.choices.size());
        }
    }
}

}  // namespace

void TestGuiPages::campaignEditorOffersToolParams() {
    using namespace smclab;
    CampaignPage* page = m_window->campaignPage();
    page->loadPreset(QStringLiteral("seed004-redis"));
    QCOMPARE(page->workloadsTable()->currentRow(), 0);
    ParamEditor* client = page->clientParamEditor();
    ParamEditor* server = page->serverParamEditor();
    const workloads::Workload* redis = workloads::findWorkload("redis");
    QVERIFY(redis != nullptr);
    checkFieldsFollowSchema(client, redis->schema(smcr::Side::client));
    checkFieldsFollowSchema(server, redis->schema(smcr::Side::server));
    // The campaign sets the size (-d) and the time itself; the preset's values show.
    QVERIFY(client->field("data_size") == nullptr && client->field("duration_ms") == nullptr);
    auto* clients = qobject_cast<QSpinBox*>(client->field("clients"));
    QVERIFY(clients != nullptr);
    QCOMPARE(clients->value(), 200);
    QVERIFY(qobject_cast<QSpinBox*>(server->field("io_threads")) != nullptr);
    QVERIFY(qobject_cast<QCheckBox*>(server->field("io_threads_do_reads"))->isChecked());
    // An edit lands in the campaign; the preset's other parameters stay.
    clients->setValue(300);
    QString error;
    orchestrator::CampaignSpec spec = page->campaign(&error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(spec.workloads.front().params.value("clients").toInt(), 300);
    QCOMPARE(spec.workloads.front().params.value("pipeline").toInt(), 1);
    // Another tool: its own schema, from its defaults.
    auto* combo = qobject_cast<QComboBox*>(page->workloadsTable()->cellWidget(0, 1));
    combo->setCurrentText(QStringLiteral("iperf3"));
    checkFieldsFollowSchema(client, workloads::findWorkload("iperf3")->schema(smcr::Side::client));
    auto* streams = qobject_cast<QSpinBox*>(client->field("streams"));
    QVERIFY(streams != nullptr && streams->minimum() == 1 && streams->maximum() == 128);
    QVERIFY(client->field("length") == nullptr && client->field("reverse") != nullptr);
    QVERIFY(page->campaign().workloads.front().params.isEmpty());
    page->loadPreset(QStringLiteral("datapath"));
}

void TestGuiPages::addHostDialogExplains() {
    AddHostDialog dialog;
    QVERIFY(dialog.hintText().contains(QStringLiteral("HOST:PORT")));
    dialog.setAddress(QStringLiteral("10.0.0.1"));
    QVERIFY(dialog.hintText().contains(QStringLiteral("not HOST:PORT")));
    dialog.setAddress(QStringLiteral("10.0.0.1:7600"));
    QVERIFY(dialog.hintText().contains(QStringLiteral("token")));
    dialog.setToken(QStringLiteral("secret"));
    QVERIFY(dialog.hintText().contains(QStringLiteral("connected as soon as")));
}

void TestGuiPages::errorsReachTheWindow() {
    // The remembered host has an unreadable token file: the window says so.
    HostTableModel* hosts = m_window->hostsPage()->model();
    QCOMPARE(hosts->rowCount(), 1);
    QCOMPARE(hosts->host(0).state, HostState::failed);
    // The banner floats: the controls stay where the pointer is.
    m_window->showPage(PageId::results);
    QCoreApplication::processEvents();
    QWidget* tree = m_window->resultsPage()->campaignTree();
    const QPoint before = tree->mapTo(m_window, QPoint(0, 0));
    m_window->lab()->reportError(QStringLiteral("agent 10.0.0.9:7600 refused the token"));
    QCoreApplication::processEvents();
    QCOMPARE(tree->mapTo(m_window, QPoint(0, 0)), before);
    QCOMPARE(m_window->messageBar()->isVisible(), true);
    QCOMPARE(m_window->messageBar()->text(), QStringLiteral("agent 10.0.0.9:7600 refused the token"));
    m_window->messageBar()->hide();
    // Running or resuming with no agent connected says why and stays where
    // it was asked from (it used to jump to an empty Run page under the error).
    auto* nav = m_window->findChild<QListWidget*>();
    QVERIFY(nav != nullptr);
    emit m_window->resultsPage()->resumeRequested(m_repeated);
    QCoreApplication::processEvents();
    QCOMPARE(nav->currentRow(), static_cast<int>(PageId::results));
    QVERIFY(m_window->messageBar()->isVisible());
    m_window->messageBar()->hide();
    m_window->showPage(PageId::campaign);
    m_window->campaignPage()->loadPreset(QStringLiteral("datapath"));
    emit m_window->campaignPage()->runRequested();
    QCoreApplication::processEvents();
    QCOMPARE(nav->currentRow(), static_cast<int>(PageId::campaign));
    QVERIFY2(m_window->messageBar()->text().startsWith(QStringLiteral("No agent connected")),
             qPrintable(m_window->messageBar()->text()));
    m_window->messageBar()->hide();
}

void TestGuiPages::ksmcRunsOfferTheKernelSysctls() {
    // A ksmc run's live settings are the kernel's net.smc sysctls, under the
    // names the agent's ksmc transport takes, enabled; a tcp run greys the
    // engine's out; between runs the engine's are back.
    RunPage* run = m_window->runPage();
    SettingsPanel* engine = run->settingsPanel();
    run->showTransport(QStringLiteral("ksmc"));
    SettingsPanel* kernel = run->settingsPanel();
    QVERIFY(kernel != engine);
    QVERIFY(!kernel->isHidden() && engine->isHidden());
    QVERIFY2(kernel->unavailableReason().isEmpty(), qPrintable(kernel->unavailableReason()));
    QCOMPARE(QStringList(kernel->values().keys()).size(), 3);
    for (const char* name : {"autocorking_size", "wmem", "rmem"}) {
        QWidget* editor = kernel->editor(QLatin1String(name));
        QVERIFY2(editor != nullptr && editor->isEnabled(), name);
        QVERIFY2(editor->toolTip().contains(QStringLiteral("net.smc.") + QLatin1String(name)), name);
    }
    QCOMPARE(kernel->values().value(QStringLiteral("autocorking_size")).toInt(), 64 << 10);
    // Nothing runs: the change is not sent, and the editor keeps what is in force.
    QSignalSpy sent(run, &RunPage::settingsSent);
    auto* spin = qobject_cast<QSpinBox*>(kernel->editor(QStringLiteral("wmem")));
    QVERIFY(spin != nullptr);
    spin->setValue(512 << 10);
    QCOMPARE(sent.count(), 0);
    QCOMPARE(spin->value(), 256 << 10);
    run->showTransport(QStringLiteral("tcp"));
    QCOMPARE(run->settingsPanel(), engine);
    QVERIFY(kernel->isHidden() && !engine->isHidden());
    QVERIFY(engine->unavailableReason().contains(QStringLiteral("kernel TCP")));
    run->showTransport(QString());
    QCOMPARE(run->settingsPanel(), engine);
    QVERIFY(engine->unavailableReason().isEmpty());
}

void TestGuiPages::settingsPanelOffersTheLabToggles() {
    // Exactly the run page's toggles, under the engine's names, offering
    // the value spellings the agent and the presets use.
    SettingsPanel* panel = m_window->runPage()->settingsPanel();
    const QStringList expected = {QStringLiteral("autocorking_size"),      QStringLiteral("lab.cork_timer_ms"),
                                  QStringLiteral("lab.wnd_update_limit"),  QStringLiteral("lab.cq_mode"),
                                  QStringLiteral("lab.tx_defer_to_owner"), QStringLiteral("lab.rq_credits"),
                                  QStringLiteral("lab.fast_fallback"),     QStringLiteral("lab.busy_poll_us")};
    QCOMPARE(QStringList(panel->values().keys()).size(), expected.size());
    for (const QString& name : expected) QVERIFY2(panel->editor(name) != nullptr, qPrintable(name));
    auto choices = [panel](const QString& name) {
        QStringList items;
        auto* combo = qobject_cast<QComboBox*>(panel->editor(name));
        for (int i = 0; combo != nullptr && i < combo->count(); ++i) items << combo->itemText(i);
        items.sort();
        return items;
    };
    QCOMPARE(choices(QStringLiteral("lab.wnd_update_limit")), (QStringList{"max", "min"}));
    QCOMPARE(choices(QStringLiteral("lab.cq_mode")), (QStringList{"arm_first", "drain_then_arm"}));
    QVERIFY(qobject_cast<QSpinBox*>(panel->editor(QStringLiteral("autocorking_size"))) != nullptr);
    QVERIFY(qobject_cast<QSpinBox*>(panel->editor(QStringLiteral("lab.cork_timer_ms"))) != nullptr);
    QVERIFY(qobject_cast<QSpinBox*>(panel->editor(QStringLiteral("lab.busy_poll_us"))) != nullptr);
    // The spin boxes take what the engine takes: its bounds, not a copy of them.
    for (const smcr::SettingInfo& info : smcr::allSettings()) {
        auto* spin = qobject_cast<QSpinBox*>(panel->editor(QString::fromLatin1(info.name)));
        if (spin == nullptr) continue;
        QCOMPARE(qint64(spin->minimum()), qint64(info.minValue));
        QCOMPARE(qint64(spin->maximum()), qint64(info.maxValue));
    }
    QCOMPARE(qobject_cast<QSpinBox*>(panel->editor(QStringLiteral("autocorking_size")))->maximum(), 1 << 30);
    QCOMPARE(qobject_cast<QSpinBox*>(panel->editor(QStringLiteral("lab.cork_timer_ms")))->maximum(), 60000);
    // Toggles send on|off. Nothing is running, so nothing takes a change:
    // the editor goes straight back to the value in force (the default),
    // with a note in the status bar rather than an error.
    const QJsonObject inForce = m_window->runPage()->settingsInForce();
    QCOMPARE(inForce, panel->values());
    QSignalSpy errors(m_window->lab(), &LabContext::errorReported);
    QSignalSpy infos(m_window->lab(), &LabContext::infoReported);
    for (const char* name : {"lab.tx_defer_to_owner", "lab.rq_credits", "lab.fast_fallback"}) {
        auto* check = qobject_cast<QCheckBox*>(panel->editor(QLatin1String(name)));
        QVERIFY2(check != nullptr, name);
        QSignalSpy changed(panel, &SettingsPanel::settingChanged);
        panel->setValue(QLatin1String(name), QStringLiteral("on"));
        check->toggle();
        panel->setValue(QLatin1String(name), QStringLiteral("off"));
        check->toggle();
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.at(0).at(1).toJsonValue().toString(), QStringLiteral("off"));
        QCOMPARE(changed.at(1).at(1).toJsonValue().toString(), QStringLiteral("on"));
        QCOMPARE(panel->values().value(QLatin1String(name)), inForce.value(QLatin1String(name)));
    }
    QCOMPARE(errors.count(), 0);
    QVERIFY(!infos.isEmpty());
    QVERIFY2(infos.back().front().toString().startsWith(QStringLiteral("Nothing is running")),
             qPrintable(infos.back().front().toString()));
}

void TestGuiPages::pagesRenderToPng() {
    QDir().mkpath(QStringLiteral(SMCLAB_GUI_SCREENS_DIR));
    // Content for the pages: the seeded campaign, and a run view with samples and markers.
    ResultsPage* results = m_window->resultsPage();
    results->refresh();
    QCOMPARE(results->campaignTree()->topLevelItemCount(), 2);
    results->campaignTree()->setCurrentItem(results->campaignTree()->topLevelItem(1));  // seed 000
    QCOMPARE(results->comparisonView()->paneCount(), 2);
    LivePlot* plot = m_window->runPage()->plot();
    for (int i = 0; i <= 40; ++i) {
        const double t = i * 0.25;
        const double corked = t >= 4.0 && t < 7.0 ? 1.0 : 3.2;
        plot->addSample(t, 180.0 * corked + 6.0 * (i % 3), 10.4 + 0.3 * (i % 4));
    }
    plot->addMarker(4.0, QStringLiteral("autocorking_size=0"));
    plot->addMarker(7.0, QStringLiteral("autocorking_size=65536"));
    m_window->runPage()->counters()->update(QJsonObject{{QStringLiteral("smcr.cdc_msgs_sent"), 120000},
                                                        {QStringLiteral("smcr.rdma_writes"), 118000},
                                                        {QStringLiteral("smcr.corked_pushes"), 3400},
                                                        {QStringLiteral("smcr.cq_wakeups"), 9000}},
                                            1000);
    m_window->runPage()->counters()->update(QJsonObject{{QStringLiteral("smcr.cdc_msgs_sent"), 151000},
                                                        {QStringLiteral("smcr.rdma_writes"), 149500},
                                                        {QStringLiteral("smcr.corked_pushes"), 4100},
                                                        {QStringLiteral("smcr.cq_wakeups"), 11200}},
                                            1000);

    // The Hosts page's capabilities form, from a hello as an agent sends it.
    {
        smclab::protocol::Hello hello;
        hello.protocolVersion = QStringLiteral("1.0");
        hello.agentVersion = QStringLiteral("0.9.0");
        hello.capabilities.host = {QStringLiteral("labhost-a"),
                                   QStringLiteral("Intel Xeon Gold 6338"),
                                   2,
                                   QStringLiteral("Linux"),
                                   QStringLiteral("6.1.0-18-amd64"),
                                   QString(),
                                   QStringLiteral("x86_64"),
                                   QString()};
        hello.capabilities.transports = {
            {QStringLiteral("tcp"), true, {}},
            {QStringLiteral("smcr"), true, {}},
            {QStringLiteral("ksmc"), false, QStringLiteral("kernel SMC not available: Address family not supported")}};
        hello.capabilities.fabrics = {{QStringLiteral("sim"), true, {}},
                                      {QStringLiteral("verbs"), false, QStringLiteral("no RDMA device")}};
        hello.capabilities.workloads = {QStringLiteral("tcp_bw"), QStringLiteral("tcp_lat"), QStringLiteral("http"),
                                        QStringLiteral("kv")};
        hello.capabilities.nics = {
            {QStringLiteral("eth0"), QStringLiteral("52:54:00:12:34:56"), 1500, true, {QStringLiteral("10.0.0.5/24")}}};
        hello.capabilities.limits = {4, 3600000, 100};
        m_window->hostsPage()->model()->setHello(0, hello);
        m_window->hostsPage()->table()->clearSelection();
        m_window->hostsPage()->table()->selectRow(0);
        const QString form = m_window->hostsPage()->capabilitiesText();
        QVERIFY2(form.contains(QStringLiteral("ksmc unavailable: kernel SMC not available")), qPrintable(form));
        QVERIFY2(!form.contains(QStringLiteral("Kernel SMC-R")), qPrintable(form));  // not reported: not shown
        // A VM lab host with kernel SMC-R: its UEIDs, pnet table and the
        // kernel's fallbacks, through the hello's JSON as an agent sends them.
        smclab::protocol::Hello vm = hello;
        vm.capabilities.kernelSmcr = {true,
                                      QString(),
                                      {},
                                      {QStringLiteral("SMCLAB: eth1, rxe0 port 1")},
                                      {QStringLiteral("client 0x03030000 NOSMCDEV: 3")}};
        m_window->hostsPage()->model()->setHello(0, smclab::protocol::Hello::fromJson(vm.toJson()));
        m_window->hostsPage()->table()->clearSelection();
        m_window->hostsPage()->table()->selectRow(0);
        const QString vmForm = m_window->hostsPage()->capabilitiesText();
        for (const char* part : {"Kernel SMC-R", "no UEID", "SMCLAB: eth1, rxe0 port 1", "NOSMCDEV: 3"})
            QVERIFY2(vmForm.contains(QLatin1String(part)), part);
        vm.capabilities.kernelSmcr.ueids = {QStringLiteral("SMCLAB")};
        m_window->hostsPage()->model()->setHello(0, smclab::protocol::Hello::fromJson(vm.toJson()));
        m_window->hostsPage()->table()->clearSelection();
        m_window->hostsPage()->table()->selectRow(0);
        QVERIFY2(m_window->hostsPage()->capabilitiesText().contains(QStringLiteral("UEID SMCLAB")),
                 qPrintable(m_window->hostsPage()->capabilitiesText()));
    }
    // Earlier tests' notes would otherwise sit in the status bar of every shot.
    m_window->statusBar()->clearMessage();
    const QStringList names = {QStringLiteral("hosts"), QStringLiteral("campaign"), QStringLiteral("run"),
                               QStringLiteral("results"), QStringLiteral("export")};
    // What each page must show in its shot: the widget that carries its content, with that content.
    ExportPage* exporter = m_window->exportPage();
    auto* preview = exporter->findChild<QPlainTextEdit*>();
    QVERIFY(preview != nullptr);
    const QList<std::pair<QWidget*, std::function<bool()>>> content = {
        {m_window->hostsPage()->table(),
         [this] {
             return m_window->hostsPage()->model()->rowCount() >= 1 &&
                    m_window->hostsPage()->capabilitiesText().contains(QStringLiteral("labhost-a"));
         }},
        {m_window->campaignPage()->sizesEdit(),
         [this] {
             return !m_window->campaignPage()->sizesEdit()->text().isEmpty() &&
                    m_window->campaignPage()->estimateText().contains(QStringLiteral(" runs"));
         }},
        {m_window->runPage()->plot(), [this] { return m_window->runPage()->plot()->sampleCount() == 41; }},
        {results->comparisonView(), [results] { return results->comparisonView()->paneCount() == 2; }},
        {preview, [preview] { return !preview->toPlainText().trimmed().isEmpty(); }},
    };
    QImage previous;
    for (int i = 0; i < names.size(); ++i) {
        m_window->showPage(static_cast<PageId>(i));
        QCoreApplication::processEvents();
        const QPixmap shot = m_window->grab();
        QCOMPARE(shot.size(), QSize(1280, 800));
        const QString path = QDir(QStringLiteral(SMCLAB_GUI_SCREENS_DIR)).filePath(names[i] + QStringLiteral(".png"));
        QVERIFY2(shot.save(path), qPrintable(path));
        QWidget* page = m_window->page(static_cast<PageId>(i));
        // The page is laid out inside the window: nothing pushed it wider than 1280.
        QVERIFY(page->width() < 1280);
        QVERIFY2(page->isVisible(), qPrintable(names[i]));
        // Its content widget is on screen, within the page, with its content.
        QWidget* shown = content[i].first;
        QVERIFY2(shown->isVisible() && page->isAncestorOf(shown), qPrintable(names[i]));
        const QRect area(shown->mapTo(m_window, QPoint(0, 0)), shown->size());
        QVERIFY2(QRect(QPoint(0, 0), shot.size()).contains(area), qPrintable(names[i]));
        QVERIFY2(content[i].second(), qPrintable(names[i]));
        // The shot draws the page: not a blank area, and not the page before it.
        const QImage image = shot.toImage();
        const QRect pageArea(page->mapTo(m_window, QPoint(0, 0)), page->size());
        QVERIFY2(distinctColours(image, pageArea) >= kMinPageColours,
                 qPrintable(QStringLiteral("%1: %2 colours").arg(names[i]).arg(distinctColours(image, pageArea))));
        QVERIFY2(image != previous, qPrintable(names[i]));
        previous = image;
    }
    // The Results table is not cut: every column of the bandwidth table is
    // within the visible width of its view.
    m_window->showPage(PageId::results);
    results->campaignTree()->setCurrentItem(results->campaignTree()->topLevelItem(1));
    QCoreApplication::processEvents();
    QTableView* table = results->comparisonView()->tableView(Metric::bandwidth);
    QVERIFY(table != nullptr);
    const int last = table->model()->columnCount() - 1;
    QVERIFY2(table->columnViewportPosition(last) + table->columnWidth(last) <= table->viewport()->width(),
             qPrintable(QStringLiteral("%1 + %2 > %3")
                            .arg(table->columnViewportPosition(last))
                            .arg(table->columnWidth(last))
                            .arg(table->viewport()->width())));

    auto save = [this](const QString& name) {
        QCoreApplication::processEvents();
        const QPixmap shot = m_window->grab();
        const QString path = QDir(QStringLiteral(SMCLAB_GUI_SCREENS_DIR)).filePath(name + QStringLiteral(".png"));
        return shot.save(path);
    };
    // A campaign with repetitions: error bars, log axis for a 1 B..64 KiB sweep, live-change notice.
    results->campaignTree()->setCurrentItem(results->campaignTree()->topLevelItem(0));
    QVERIFY(results->comparisonView()->plot(Metric::bandwidth)->errorBarCount() > 0);
    QVERIFY(results->comparisonView()->plot(Metric::bandwidth)->logScale());
    QVERIFY(!results->comparisonView()->noticeText().isEmpty());
    QVERIFY(save(QStringLiteral("results-error-bars")));
    // The single-run view of its first run (samples, a marker, counters).
    results->expandCampaign(m_repeated);
    QTreeWidgetItem* run = results->campaignTree()->topLevelItem(0)->child(0);
    QVERIFY(run != nullptr);
    results->campaignTree()->setCurrentItem(run);
    QVERIFY(results->runViewShown());
    QVERIFY(results->runView()->plot()->graphCount() >= 3);
    QVERIFY(save(QStringLiteral("run-view")));
    // A failed run: its error, and the samples and counters seen before it failed.
    QTreeWidgetItem* failed = nullptr;
    for (int i = 0; i < results->campaignTree()->topLevelItem(0)->childCount(); ++i) {
        QTreeWidgetItem* child = results->campaignTree()->topLevelItem(0)->child(i);
        if (child->text(1).contains(QStringLiteral("failed"))) failed = child;
    }
    QVERIFY(failed != nullptr);
    results->campaignTree()->setCurrentItem(failed);
    QVERIFY(results->runViewShown());
    RunView* view = results->runView();
    QVERIFY2(view->errorText().contains(QStringLiteral("connection reset by peer")), qPrintable(view->errorText()));
    QVERIFY(view->plot()->graphCount() >= 1);
    QVERIFY2(view->plotNote().isEmpty(), qPrintable(view->plotNote()));
    QVERIFY2(view->countersTabText().contains(QStringLiteral("of 2")), qPrintable(view->countersTabText()));
    // The time axis is the run's 1.2 s, with readable ticks (not collapsed onto one spot).
    QVERIFY(view->plot()->xAxis->range().upper >= 1.2);
    QVERIFY(view->plot()->xAxis->range().upper < 2.0);
    QVERIFY(save(QStringLiteral("run-view-failed")));
    // A failed run with nothing seen says so in place of the plot and counters.
    {
        RunDetail nothing = view->detail();
        nothing.samples.clear();
        nothing.counters.clear();
        view->setDetail(nothing);
        QCOMPARE(view->plot()->graphCount(), 0);
        // The axes keep the plot's width (they collapsed to their minimum,
        // ticks on top of each other, when the legend was empty).
        view->plot()->replot();
        QVERIFY2(view->plot()->axisRect()->outerRect().width() > view->plot()->width() / 2,
                 qPrintable(QStringLiteral("axes %1 px of %2")
                                .arg(view->plot()->axisRect()->outerRect().width())
                                .arg(view->plot()->width())));
        QVERIFY2(view->plotNote().contains(QStringLiteral("before the run failed")), qPrintable(view->plotNote()));
        QVERIFY2(view->countersTabText().contains(QStringLiteral("none before the failure")),
                 qPrintable(view->countersTabText()));
        QVERIFY(save(QStringLiteral("run-view-failed-empty")));
    }
    // The Database dialog, on a PostgreSQL server, as it opens from Results.
    {
        DatabaseDialog dialog(m_window);
        dialog.setLocation(QStringLiteral("postgresql://lab@db.lab.example:5433/smclab"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY2(dialog.hintText().contains(QStringLiteral("db.lab.example")), qPrintable(dialog.hintText()));
        const QString path =
            QDir(QStringLiteral(SMCLAB_GUI_SCREENS_DIR)).filePath(QStringLiteral("database-dialog.png"));
        QVERIFY2(dialog.grab().save(path), qPrintable(path));
    }
    m_window->showPage(PageId::exporter);
}

void TestGuiPages::resultsFitTheWindowWithFourColumns() {
    // The datapath preset's four columns, long labels and five-digit values
    // with their percentages: the table needs no horizontal scrolling at
    // 1280 px, and the legend shows every label in full.
    {
        auto store = smclab::db::ResultStore::open(m_dir.filePath(QStringLiteral("results.db")));
        QVERIFY(store);
        const QStringList columns = {QStringLiteral("SMC-NoCork"), QStringLiteral("TCP"),
                                     QStringLiteral("SMC-AutoCorking"), QStringLiteral("SMC with patches")};
        const QStringList transports = {QStringLiteral("smcr"), QStringLiteral("tcp"), QStringLiteral("smcr"),
                                        QStringLiteral("smcr")};
        smclab::db::NewCampaign campaign;
        campaign.name = QStringLiteral("datapath, four columns");
        for (qint64 size = 1; size <= 65536; size *= 2) {
            for (int c = 0; c < 4; ++c)
                campaign.cells.append({QStringLiteral("tcp_bw"), transports[c], columns[c], size, 0});
        }
        const auto id = (*store)->createCampaign(campaign);
        QVERIFY(id);
        for (const smclab::db::RunCell& cell : campaign.cells) {
            smclab::db::RunRecord record;
            record.campaignId = *id;
            record.cell = cell;
            record.startedAt = QDateTime::currentDateTimeUtc();
            record.finishedAt = record.startedAt;
            const double scale = 1.0 + 0.37 * static_cast<double>(columns.indexOf(cell.column));
            record.results.insert(QStringLiteral("bw_mbps"), 12345.678 * scale * static_cast<double>(cell.msgSize) /
                                                                 (static_cast<double>(cell.msgSize) + 900.0));
            QVERIFY((*store)->recordRun(record));
        }
        QVERIFY((*store)->updateCampaignStatus(*id, smclab::db::CampaignStatus::done));
    }
    m_window->showPage(PageId::results);
    ResultsPage* results = m_window->resultsPage();
    results->refresh();
    results->campaignTree()->setCurrentItem(results->campaignTree()->topLevelItem(0));
    QCoreApplication::processEvents();
    QCOMPARE(results->comparisonView()->paneCount(), 1);
    QTableView* table = results->comparisonView()->tableView(Metric::bandwidth);
    QVERIFY(table != nullptr);
    QCOMPARE(table->model()->columnCount(), 5);
    const int last = table->model()->columnCount() - 1;
    QVERIFY2(table->columnViewportPosition(last) + table->columnWidth(last) <= table->viewport()->width(),
             qPrintable(QStringLiteral("%1 + %2 > %3")
                            .arg(table->columnViewportPosition(last))
                            .arg(table->columnWidth(last))
                            .arg(table->viewport()->width())));
    QVERIFY(!table->horizontalScrollBar()->isVisible());
    ComparisonPlot* plot = results->comparisonView()->plot(Metric::bandwidth);
    plot->replot();
    QCOMPARE(plot->legendEntriesCut(), 0);
    QVERIFY(m_window->page(PageId::results)->width() < 1280);
    QCoreApplication::processEvents();
    const QString path =
        QDir(QStringLiteral(SMCLAB_GUI_SCREENS_DIR)).filePath(QStringLiteral("results-four-columns.png"));
    QVERIFY2(m_window->grab().save(path), qPrintable(path));
    m_window->showPage(PageId::exporter);
}

void TestGuiPages::hostsAndGeometryPersist() {
    CampaignPage* page = m_window->campaignPage();
    page->loadPreset(QStringLiteral("credits"));
    page->sizesEdit()->setText(QStringLiteral("64,4K"));
    const QJsonObject draft = page->campaignJson();
    m_window->close();  // saves geometry, state, hosts and the editor's campaign
    QCOMPARE(AppSettings::hosts().size(), 1);
    QCOMPARE(AppSettings::hosts().front().address, QStringLiteral("127.0.0.1:1"));
    QCOMPARE(AppSettings::lastPage(), static_cast<int>(PageId::exporter));
    MainWindow again;
    QCOMPARE(again.size(), QSize(1280, 800));
    QCOMPARE(again.hostsPage()->model()->rowCount(), 1);
    QCOMPARE(again.page(PageId::exporter)->isVisibleTo(&again), true);
    // The editor continues where the last session left it.
    QCOMPARE(again.campaignPage()->campaignJson(), draft);
}

void TestGuiPages::cleanupTestCase() {
    delete m_window;
}

// The warm-up as stored (250 ms is not "0s"), the
// estimate and notes of a preset whose workload has its own sizes, a
// parameter edit in the notes, the preset's description kept.
void TestGuiPages::warmupAndPerWorkloadSizesAreExact() {
    CampaignPage* page = m_window->campaignPage();
    page->loadPreset(QStringLiteral("seed004-redis"));
    QVERIFY2(page->isValid(), qPrintable(page->hintText()));
    QVERIFY2(page->estimateText().contains(QStringLiteral("(1 workloads x 2 columns x 1 sizes x ")),
             qPrintable(page->estimateText()));
    auto* requests = qobject_cast<QSpinBox*>(page->clientParamEditor()->field(QStringLiteral("requests")));
    QVERIFY(requests != nullptr);
    requests->setValue(20000);
    const QString notes = page->campaignJson().value(QStringLiteral("description")).toString();
    QVERIFY2(notes.startsWith(QStringLiteral("Edited from preset seed004-redis: sizes SET/GET 10,")),
             qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral("; parameters SET/GET requests=20000")), qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral(". The preset: SMC-R receive-queue credits")), qPrintable(notes));

    smclab::orchestrator::CampaignSpec spec = page->campaign();
    spec.warmupMs = 250;
    spec.durationMs = 1500;
    page->setCampaign(spec);
    QCOMPARE(page->campaign().warmupMs, 250);  // not rounded to the spin box's tenths
    QVERIFY2(page->estimateText().contains(QStringLiteral(", 1.5 s each with 250 ms warm-up;")),
             qPrintable(page->estimateText()));
    page->sizesEdit()->setText(QStringLiteral("16,1K"));
    const QString edited = page->campaignJson().value(QStringLiteral("description")).toString();
    QVERIFY2(edited.contains(QStringLiteral("sizes 16,1K, 1.5 s per cell after 250 ms warm-up")), qPrintable(edited));
    QCOMPARE(smclab::orchestrator::formatExactDurationMs(500), QStringLiteral("500 ms"));
    QCOMPARE(smclab::orchestrator::formatExactDurationMs(2000), QStringLiteral("2 s"));
    QCOMPARE(smclab::orchestrator::formatExactDurationMs(2250), QStringLiteral("2.25 s"));
    QCOMPARE(smclab::orchestrator::formatExactDurationMs(0), QStringLiteral("0 s"));
    page->loadPreset(QStringLiteral("datapath"));
}

QTEST_MAIN(TestGuiPages)
#include "test_gui_pages.moc"
