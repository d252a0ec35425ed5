#include "app/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "app/page_id.h"
#include "pages/campaign_page.h"
#include "pages/export_page.h"
#include "pages/hosts_page.h"
#include "pages/results_page.h"
#include "pages/run_page.h"
#include "widgets/message_bar.h"

namespace smclab::gui {

namespace {
constexpr int kStatusTimeoutMs = 8000;
// How long quitting waits for a stopped campaign to settle.
constexpr int kStopGraceMs = 5000;
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("smclab"));
    setObjectName(QStringLiteral("smclabMainWindow"));
    m_lab = new LabContext(this);

    auto* central = new QWidget(this);
    auto* outer = new QVBoxLayout(central);
    outer->setContentsMargins(6, 6, 6, 6);
    m_messageBar = new MessageBar(central);  // floats over the pages, outside the layout
    auto* row = new QHBoxLayout;
    m_nav = new QListWidget(central);
    m_nav->setFixedWidth(120);
    m_nav->setSpacing(2);
    QFont navFont = m_nav->font();
    navFont.setPointSizeF(navFont.pointSizeF() * 1.1);
    m_nav->setFont(navFont);
    m_stack = new QStackedWidget(central);
    row->addWidget(m_nav);
    row->addWidget(m_stack, 1);
    outer->addLayout(row, 1);
    setCentralWidget(central);

    createPages();
    createMenus();
    connectPages();

    connect(m_lab, &LabContext::errorReported, this, [this](const QString& text) {
        m_messageBar->showMessage(MessageBar::Level::error, text);
        statusBar()->showMessage(text, kStatusTimeoutMs);
    });
    connect(m_lab, &LabContext::infoReported, this,
            [this](const QString& text) { statusBar()->showMessage(text, kStatusTimeoutMs); });

    AppSettings::restoreWindow(*this);
    const int last = AppSettings::lastPage();
    showPage(static_cast<PageId>(last >= 0 && last < static_cast<int>(PageId::count) ? last : 0));
    statusBar()->showMessage(tr("Ready"));
}

MainWindow::~MainWindow() = default;

void MainWindow::createPages() {
    m_hostsPage = new HostsPage(m_lab, m_stack);
    m_campaignPage = new CampaignPage(m_lab, m_stack);
    m_runPage = new RunPage(m_lab, m_stack);
    m_resultsPage = new ResultsPage(m_lab, m_stack);
    m_exportPage = new ExportPage(m_lab, m_stack);
    const QList<QPair<QString, QWidget*>> pages = {{tr("Hosts"), m_hostsPage},
                                                   {tr("Campaign"), m_campaignPage},
                                                   {tr("Run"), m_runPage},
                                                   {tr("Results"), m_resultsPage},
                                                   {tr("Export"), m_exportPage}};
    for (const auto& [name, widget] : pages) {
        m_stack->addWidget(widget);
        auto* item = new QListWidgetItem(name, m_nav);
        item->setSizeHint(QSize(0, 34));
    }
    connect(m_nav, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0) return;
        m_stack->setCurrentIndex(row);
        AppSettings::setLastPage(row);
    });
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New campaign"), QKeySequence::New, this, [this] {
        m_campaignPage->newCampaign();
        showPage(PageId::campaign);
    });
    file->addAction(tr("&Open campaign..."), QKeySequence::Open, this, [this] {
        showPage(PageId::campaign);
        m_campaignPage->openFile();
    });
    file->addAction(tr("&Save campaign"), QKeySequence::Save, this, [this] { m_campaignPage->saveFile(); });
    file->addAction(tr("Save campaign &as..."), QKeySequence::SaveAs, this, [this] { m_campaignPage->saveFileAs(); });
    file->addSeparator();
    file->addAction(tr("&Export..."), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] { showPage(PageId::exporter); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Run campaign"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                   [this] { m_campaignPage->requestRun(); });
    run->addAction(tr("&Pause"), QKeySequence(Qt::CTRL | Qt::Key_P), this, [this] { m_runPage->pause(); });
    run->addAction(tr("Re&sume"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), this,
                   [this] { m_runPage->resume(); });
    run->addAction(tr("S&top"), QKeySequence(Qt::CTRL | Qt::Key_Period), this, [this] { m_runPage->stop(); });
    run->addSeparator();
    run->addAction(tr("Start &local lab"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                   [this] { m_hostsPage->startLocalLab(); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Refresh"), QKeySequence::Refresh, this, [this] {
        m_resultsPage->refresh();
        m_lab->reportInfo(tr("Results refreshed"));
    });
    view->addSeparator();
    const QStringList names = {tr("&Hosts"), tr("&Campaign"), tr("R&un"), tr("Re&sults"), tr("&Export")};
    for (int i = 0; i < names.size(); ++i) {
        view->addAction(names[i], QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)), this,
                        [this, i] { showPage(static_cast<PageId>(i)); });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About smclab"), this, [this] {
        QMessageBox::about(
            this, tr("About smclab"),
            tr("<b>smclab</b> %1<br>A performance lab for SMC-R (RFC 7609).").arg(QApplication::applicationVersion()));
    });
}

void MainWindow::connectPages() {
    // Without a connected agent nothing can run: the Run page says why and
    // the window stays where the user asked from (it jumped to an empty Run
    // page under the error before).
    connect(m_campaignPage, &CampaignPage::runRequested, this, [this] {
        const QList<AgentEndpoint> agents = m_hostsPage->connectedAgents();
        if (!agents.isEmpty()) showPage(PageId::run);
        m_runPage->startCampaign(m_campaignPage->campaignJson(), agents);
    });
    connect(m_runPage, &RunPage::campaignFinished, this, [this] { m_resultsPage->refresh(); });
    connect(m_hostsPage, &HostsPage::agentsChanged, this, [this] {
        m_campaignPage->setConnectedAgentCount(static_cast<int>(m_hostsPage->connectedAgents().size()));
    });
    // A stopped or interrupted campaign resumes on the agents connected now
    // (local lab agents get new ports each time they start).
    auto resumeOnConnectedAgents = [this](qint64 campaignId) {
        const QList<AgentEndpoint> agents = m_hostsPage->connectedAgents();
        if (!agents.isEmpty()) showPage(PageId::run);
        m_runPage->resumeCampaign(campaignId, agents);
    };
    connect(m_runPage, &RunPage::resumeRequested, this, resumeOnConnectedAgents);
    connect(m_resultsPage, &ResultsPage::resumeRequested, this, resumeOnConnectedAgents);
    connect(m_resultsPage, &ResultsPage::comparisonChanged, this,
            [this] { m_exportPage->setSource(m_resultsPage->comparisonView()); });
    m_exportPage->setSource(m_resultsPage->comparisonView());
}

void MainWindow::showPage(PageId page) {
    m_nav->setCurrentRow(static_cast<int>(page));
}

QWidget* MainWindow::page(PageId page) const {
    return m_stack->widget(static_cast<int>(page));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_runPage->isRunning() && !m_quitAfterStop) {
        // Quitting abandons the runs in flight: ask, without blocking the
        // event loop (the campaign keeps running while the question shows).
        event->ignore();
        askQuitDuringRun();
        return;
    }
    if (m_runPage->isRunning()) {
        // Stop was asked; close once the runner has let go of its campaign
        // (stored as stopped and resumable), or after a grace period.
        event->ignore();
        return;
    }
    AppSettings::saveWindow(*this);
    m_hostsPage->saveHosts();
    m_campaignPage->saveDraft();
    event->accept();
}

void MainWindow::askQuitDuringRun() {
    if (m_quitQuestion != nullptr && m_quitQuestion->isVisible()) {
        m_quitQuestion->raise();
        return;
    }
    const auto question = [this](const QString& inFlight) {
        return tr("A campaign is running: %1\n\nQuitting stops it; the runs not finished are "
                  "lost and the campaign stays resumable from Results.")
            .arg(inFlight);
    };
    auto* box = new QMessageBox(QMessageBox::Question, tr("Quit during a campaign?"), question(m_runPage->statusText()),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("quitConfirmation"));
    // The campaign goes on while the question shows: it names the run in
    // flight when the user answers, not the one when it opened.
    connect(m_runPage, &RunPage::statusTextChanged, box,
            [box, question](const QString& text) { box->setText(question(text)); });
    QPushButton* quit = box->addButton(tr("Stop and quit"), QMessageBox::DestructiveRole);
    box->addButton(tr("Keep running"), QMessageBox::RejectRole);
    box->setDefaultButton(qobject_cast<QPushButton*>(box->buttons().back()));
    box->setAttribute(Qt::WA_DeleteOnClose);
    m_quitQuestion = box;
    connect(box, &QMessageBox::buttonClicked, this, [this, quit](QAbstractButton* button) {
        if (button != quit) return;
        m_quitAfterStop = true;
        connect(m_runPage, &RunPage::runnerStateChanged, this, [this] {
            if (!m_runPage->isRunning()) close();
        });
        m_runPage->stop();
        // Agents that do not answer must not keep the window open forever.
        QTimer::singleShot(kStopGraceMs, this, [this] {
            m_runPage->abandon();
            close();
        });
    });
    box->open();
}

}  // namespace smclab::gui
