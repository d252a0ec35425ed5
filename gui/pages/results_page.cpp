#include "pages/results_page.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "data/comparison.h"
#include "data/run_detail.h"
#include "data/run_environment.h"
#include "data/run_provenance.h"
#include "dialogs/database_dialog.h"
#include "orchestrator/campaign_analysis.h"
#include "orchestrator/runner_lock.h"
#include "smclab/db/database_location.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/connection_use.h"
#include "smclab/report/datapath_tables.h"
#include "widgets/comparison_view.h"
#include "widgets/run_view.h"
#include "workload.h"

namespace smclab::gui {

namespace {

constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kLoadedRole = Qt::UserRole + 2;
constexpr int kResumableRole = Qt::UserRole + 3;
constexpr int kRunIdRole = Qt::UserRole + 4;

constexpr int kColumnCount = 5;
constexpr int kNotesColumn = 4;
// Live changes make a run's numbers a mix of two configurations.
const QString kLiveFlag = QStringLiteral("\u2691 ");

}  // namespace

QString ResultsPage::campaignStatusText(db::CampaignStatus status, orchestrator::RunnerPresence runner) {
    using orchestrator::RunnerPresence;
    switch (status) {
        case db::CampaignStatus::planned:
            return QObject::tr("planned");
        case db::CampaignStatus::running:
            // The stored status says a runner started it; the lock says whether one still runs it.
            return runner == RunnerPresence::none ? QObject::tr("interrupted") : QObject::tr("running");
        case db::CampaignStatus::paused:
            return runner == RunnerPresence::alive ? QObject::tr("paused") : QObject::tr("stopped");
        case db::CampaignStatus::done:
            return QObject::tr("done");
        case db::CampaignStatus::failed:
            return QObject::tr("failed");
        case db::CampaignStatus::invalid:
            break;
    }
    return QStringLiteral("?");
}

namespace {

QString runStatusText(db::RunStatus status) {
    switch (status) {
        case db::RunStatus::planned:
            return QObject::tr("planned");
        case db::RunStatus::running:
            return QObject::tr("running");
        case db::RunStatus::done:
            return QObject::tr("done");
        case db::RunStatus::failed:
            return QObject::tr("failed");
        case db::RunStatus::invalid:
            break;
    }
    return QStringLiteral("?");
}

}  // namespace

ResultsPage::ResultsPage(LabContext* lab, QWidget* parent) : QWidget(parent), m_lab(lab) {
    // Campaign list above, comparison below at full width: at 1280x800 the
    // plot and the cover-letter table then both fit side by side.
    auto* layout = new QVBoxLayout(this);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    layout->addWidget(splitter);
    QWidget* top = makeCampaignList(splitter);
    m_lower = new QStackedWidget(splitter);
    m_view = new ComparisonView(m_lower);
    m_runView = new RunView(m_lower);
    m_lower->addWidget(m_view);
    m_lower->addWidget(m_runView);
    splitter->addWidget(top);
    splitter->addWidget(m_lower);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 4);
    splitter->setSizes({150, 600});
    connectViews();
    refresh();
}

QWidget* ResultsPage::makeCampaignList(QWidget* parent) {
    auto* top = new QWidget(parent);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* buttons = new QHBoxLayout;
    auto* refreshButton = new QPushButton(tr("Refresh"), top);
    refreshButton->setToolTip(tr("Reload campaigns from the database (F5)"));
    auto* compareButton = new QPushButton(tr("Compare checked"), top);
    m_resumeButton = new QPushButton(tr("Resume"), top);
    m_resumeButton->setToolTip(
        tr("Run the selected campaign's cells that are not done (stopped, interrupted or failed) "
           "on the connected agents"));
    m_hint = new QLabel(top);
    m_hint->setWordWrap(true);
    buttons->addWidget(refreshButton);
    buttons->addWidget(compareButton);
    buttons->addWidget(m_resumeButton);
    buttons->addWidget(m_hint, 1);
    auto* databaseButton = new QPushButton(tr("&Database..."), top);
    databaseButton->setToolTip(tr("The results database: an SQLite file, or a team's PostgreSQL server"));
    m_database = new QLabel(top);
    m_database->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buttons->addWidget(m_database);
    buttons->addWidget(databaseButton);
    topLayout->addLayout(buttons);
    m_tree = new QTreeWidget(top);
    m_tree->setColumnCount(kColumnCount);
    m_tree->setHeaderLabels({tr("Campaign / run"), tr("Status"), tr("Runs"), tr("Created"), tr("Notes")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->setRootIsDecorated(true);
    topLayout->addWidget(m_tree, 1);
    connect(databaseButton, &QPushButton::clicked, this, &ResultsPage::chooseDatabase);
    connect(refreshButton, &QPushButton::clicked, this, &ResultsPage::refresh);
    connect(compareButton, &QPushButton::clicked, this, &ResultsPage::compareChecked);
    connect(m_resumeButton, &QPushButton::clicked, this, &ResultsPage::resumeSelected);
    return top;
}

void ResultsPage::compareChecked() {
    const QList<qint64> ids = checkedCampaigns();
    if (ids.size() == 2) {
        showComparison(ids[0], ids[1]);
        return;
    }
    // Saying nothing looks like a broken button.
    m_lab->reportInfo(ids.isEmpty() ? tr("Compare checked: tick the boxes of two campaigns first.")
                                    : tr("Compare checked: %n campaign(s) ticked; tick exactly two.", nullptr,
                                         static_cast<int>(ids.size())));
    m_hint->setText(compareHint(static_cast<int>(ids.size())));
}

void ResultsPage::showItem(QTreeWidgetItem* item) {
    if (item == nullptr) return;
    const qint64 runId = item->data(0, kRunIdRole).toLongLong();
    if (runId > 0) {
        showRun(runId);
    } else if (const qint64 id = item->data(0, kIdRole).toLongLong(); id > 0) {
        m_lower->setCurrentWidget(m_view);
        showCampaign(id);
    }
    updateWidgets();
}

void ResultsPage::connectViews() {
    connect(m_tree, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) { loadRuns(item); });
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) { showItem(item); });
    connect(m_tree, &QTreeWidget::itemChanged, this, [this] { updateWidgets(); });
    connect(m_lab, &LabContext::databaseChanged, this, &ResultsPage::refresh);
    connect(m_view, &ComparisonView::baselineChanged, this, [this] { emit comparisonChanged(); });
    connect(m_runView, &RunView::exported, m_lab,
            [this](const QString& path) { m_lab->reportInfo(tr("Saved the run's samples to %1").arg(path)); });
    connect(m_runView, &RunView::exportFailed, m_lab, &LabContext::reportError);
}

void ResultsPage::setDatabase(const QString& location) {
    AppSettings::setDatabasePath(location);
    m_lab->setDatabasePath(location);  // databaseChanged refreshes the list
    m_lab->reportInfo(tr("Results database: %1").arg(databaseText()));
}

void ResultsPage::chooseDatabase() {
    DatabaseDialog dialog(this);
    dialog.setLocation(m_lab->databasePath());
    if (dialog.exec() == QDialog::Accepted) setDatabase(dialog.location());
}

QString ResultsPage::databaseText() const {
    const QString path = m_lab->databasePath();
    const auto location = db::parseDatabaseLocation(path);
    return location ? location->display() : path;
}

void ResultsPage::refresh() {
    m_database->setText(databaseText());
    db::ResultStore* store = m_lab->store();
    const qint64 selected = m_tree->currentItem() ? m_tree->currentItem()->data(0, kIdRole).toLongLong() : 0;
    const QSignalBlocker blocker(m_tree);
    m_tree->clear();
    if (store == nullptr) {
        updateWidgets();
        return;
    }
    const auto campaigns = store->listCampaigns();
    if (!campaigns) {
        m_lab->reportError(tr("Cannot list campaigns: %1").arg(QString::fromStdString(campaigns.error().message)));
        updateWidgets();
        return;
    }
    for (const db::Campaign& c : campaigns.value()) {
        auto* item = new QTreeWidgetItem(m_tree);
        item->setText(0, QStringLiteral("#%1 %2").arg(c.id).arg(c.name));
        const auto runner = orchestrator::campaignRunnerPresence(*store, c.id);
        // Ended without a single finished run (stored as done before the
        // orchestrator called such campaigns failed): it failed.
        const bool nothingRan = c.status == db::CampaignStatus::done && c.runsDone == 0 && c.runsFailed > 0;
        item->setText(1, campaignStatusText(nothingRan ? db::CampaignStatus::failed : c.status, runner));
        if (c.status == db::CampaignStatus::running && runner == orchestrator::RunnerPresence::none) {
            item->setToolTip(1, tr("Its runner went away before the campaign ended (the program quit or "
                                   "was killed). Resume runs the cells not done yet."));
        }
        item->setText(2, c.runsFailed > 0 ? tr("%1/%2 (%3 failed)").arg(c.runsDone).arg(c.runsTotal).arg(c.runsFailed)
                                          : tr("%1/%2").arg(c.runsDone).arg(c.runsTotal));
        item->setText(3, c.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        item->setToolTip(0, c.preset.isEmpty() ? c.name : tr("%1 (preset %2)").arg(c.name, c.preset));
        item->setData(0, kIdRole, c.id);
        // A campaign whose runner was killed is resumable; one that a live
        // runner has is not (the orchestrator refuses it too).
        item->setData(0, kResumableRole, c.runsDone < c.runsTotal && runner != orchestrator::RunnerPresence::alive);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(0, Qt::Unchecked);
        // A placeholder child so the item can be expanded; runs load on demand.
        new QTreeWidgetItem(item, {tr("loading...")});
        // The wire and busy-host runs (a few campaign-wide queries); the live
        // changes, which take a query per run, come when the campaign is opened.
        markLiveChanges(item, {});
        if (c.id == selected) m_tree->setCurrentItem(item);
    }
    for (int i = 1; i < kNotesColumn; ++i) m_tree->resizeColumnToContents(i);
    // The comparison follows the store (a campaign that ran on, or was
    // resumed, since it was shown).
    QList<qint64> shown = m_shownCampaigns;
    for (const qint64 id : std::as_const(m_shownCampaigns)) {
        // Another database (or a deleted campaign): nothing to follow.
        if (campaignItem(id) == nullptr) shown.clear();
    }
    m_shownCampaigns.clear();
    if (shown.size() == 1) showCampaign(shown[0]);
    if (shown.size() == 2) showComparison(shown[0], shown[1]);
    updateWidgets();
}

void ResultsPage::loadRuns(QTreeWidgetItem* campaignItem) {
    if (campaignItem->parent() != nullptr || campaignItem->data(0, kLoadedRole).toBool()) return;
    db::ResultStore* store = m_lab->store();
    if (store == nullptr) return;
    const auto runs = store->runs(campaignItem->data(0, kIdRole).toLongLong());
    if (!runs) {
        m_lab->reportError(tr("Cannot read runs: %1").arg(QString::fromStdString(runs.error().message)));
        return;
    }
    const qint64 campaignId = campaignItem->data(0, kIdRole).toLongLong();
    const auto live = campaignLiveChanges(*store, campaignId);
    QHash<qint64, RunLiveChanges> liveByRun;
    if (live) {
        for (const RunLiveChanges& entry : live.value()) liveByRun.insert(entry.runId, entry);
    }
    const auto environment = CampaignEnvironment::load(*store, campaignId);
    const QSignalBlocker blocker(m_tree);
    qDeleteAll(campaignItem->takeChildren());
    for (const db::Run& run : runs.value()) {
        auto* child = new QTreeWidgetItem(campaignItem);
        child->setData(0, kRunIdRole, run.id);
        child->setText(0, runCellText(run.cell));
        child->setText(1, runStatusText(run.status));
        QString notes;
        if (run.status == db::RunStatus::failed) {
            // The reason itself, not only "failed": the first line in the
            // column, all of it in the tooltip.
            notes = run.error.isEmpty() ? tr("no reason recorded") : run.error.section(QLatin1Char('\n'), 0, 0);
            child->setForeground(1, QBrush(QColor(0xb0, 0x22, 0x22)));
            child->setToolTip(kNotesColumn, run.error);
            child->setToolTip(1, run.error);
        }
        if (liveByRun.contains(run.id)) {
            const RunLiveChanges& entry = liveByRun.value(run.id);
            const QString text = tr("live change: %1").arg(liveChangesText(entry.changes));
            notes = notes.isEmpty() ? kLiveFlag + text : notes + QStringLiteral("; ") + kLiveFlag + text;
            child->setToolTip(kNotesColumn, tr("%1\nacknowledged by %2").arg(text, entry.acknowledgedBy));
        }
        if (run.status == db::RunStatus::done) {
            // What the run's connections did: a run of an SMC
            // column that fell back says so, with the reasons.
            if (const auto counters = store->counters(run.id)) {
                const report::ConnectionUse use = report::connectionUse(counters.value());
                QString text;
                if (use.overTcp()) {
                    text = tr("over TCP, not SMC-R: %1").arg(use.summary());
                    child->setForeground(1, QBrush(QColor(0xb0, 0x22, 0x22)));
                } else if (use.fellBack()) {
                    text = tr("fell back: %1").arg(use.summary());
                }
                if (!text.isEmpty()) {
                    notes = notes.isEmpty() ? kLiveFlag + text : notes + QStringLiteral("; ") + kLiveFlag + text;
                    child->setToolTip(kNotesColumn, text);
                }
            }
        }
        if (environment && environment->busyReasonByRun.contains(run.id)) {
            const QString reason = environment->busyReasonByRun.value(run.id);
            const QString text = reason.isEmpty() ? tr("busy host") : tr("busy host: %1").arg(reason);
            notes = notes.isEmpty() ? kLiveFlag + text : notes + QStringLiteral("; ") + kLiveFlag + text;
        }
        child->setText(kNotesColumn, notes);
    }
    campaignItem->setData(0, kLoadedRole, true);
    if (live) markLiveChanges(campaignItem, live.value());
}

void ResultsPage::markLiveChanges(QTreeWidgetItem* campaignItem, const QList<RunLiveChanges>& runs) {
    const QSignalBlocker blocker(m_tree);
    QStringList notes;
    QStringList tips;
    if (!runs.isEmpty()) {
        notes << kLiveFlag + tr("%n run(s) with live setting changes", nullptr, static_cast<int>(runs.size()));
        tips << liveChangesSummary(runs);
    }
    // The wire the runs crossed and the runs measured on a busy host.
    if (db::ResultStore* store = m_lab->store()) {
        if (const auto environment = CampaignEnvironment::load(*store, campaignItem->data(0, kIdRole).toLongLong())) {
            if (const QString summary = environment->summary(); !summary.isEmpty()) notes << summary;
            if (const QString tip = environment->toolTip(); !tip.isEmpty()) tips << tip;
        }
    }
    campaignItem->setText(kNotesColumn, notes.join(QStringLiteral("; ")));
    campaignItem->setToolTip(kNotesColumn, tips.join(QLatin1Char('\n')));
}

QTreeWidgetItem* ResultsPage::campaignItem(qint64 campaignId) const {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        if (m_tree->topLevelItem(i)->data(0, kIdRole).toLongLong() == campaignId) return m_tree->topLevelItem(i);
    }
    return nullptr;
}

QString ResultsPage::notesText(qint64 campaignId, qint64 runId) const {
    const QTreeWidgetItem* campaign = campaignItem(campaignId);
    if (campaign == nullptr) return {};
    if (runId <= 0) return campaign->text(kNotesColumn);
    for (int i = 0; i < campaign->childCount(); ++i) {
        if (campaign->child(i)->data(0, kRunIdRole).toLongLong() == runId)
            return campaign->child(i)->text(kNotesColumn);
    }
    return {};
}

bool ResultsPage::showRun(qint64 runId) {
    db::ResultStore* store = m_lab->store();
    if (store == nullptr) return false;
    const auto detail = RunDetail::load(*store, runId);
    if (!detail) {
        m_lab->reportError(tr("Cannot read run %1: %2").arg(runId).arg(QString::fromStdString(detail.error().message)));
        return false;
    }
    m_runView->setDetail(detail.value());
    m_lower->setCurrentWidget(m_runView);
    return true;
}

bool ResultsPage::runViewShown() const {
    return m_lower->currentWidget() == m_runView;
}

QTreeWidgetItem* ResultsPage::runItem(qint64 campaignId, qint64 runId) const {
    const QTreeWidgetItem* campaign = campaignItem(campaignId);
    for (int i = 0; campaign != nullptr && i < campaign->childCount(); ++i) {
        if (campaign->child(i)->data(0, kRunIdRole).toLongLong() == runId) return campaign->child(i);
    }
    return nullptr;
}

QString ResultsPage::statusText(qint64 campaignId) const {
    const QTreeWidgetItem* campaign = campaignItem(campaignId);
    return campaign ? campaign->text(1) : QString();
}

void ResultsPage::expandCampaign(qint64 campaignId) {
    if (QTreeWidgetItem* item = campaignItem(campaignId)) item->setExpanded(true);
}

bool ResultsPage::showCampaign(qint64 campaignId) {
    db::ResultStore* store = m_lab->store();
    if (store == nullptr) return false;
    auto document =
        db::campaignReport(*store, campaignId, workloads::headlineMetricsByWorkload(), QDateTime::currentDateTimeUtc());
    // The analysis the bench commands print (counters per message, latency
    // percentiles, a datapath campaign's shapes): in the document the
    // exports render, the tables as tabs and the shapes above the plots.
    QString verdictsText;
    if (document) {
        if (auto analysis = orchestrator::addCampaignAnalysis(*store, campaignId, *document); !analysis) {
            document = smcr::fail(analysis.error());
        } else if (analysis->verdicts) {
            verdictsText = report::shapesText(analysis->verdicts->shapes, analysis->verdicts->link);
        }
    }
    if (!document) {
        m_lab->reportError(tr("Cannot build the comparison of campaign %1: %2")
                               .arg(campaignId)
                               .arg(QString::fromStdString(document.error().message)));
        return false;
    }
    Comparison comparison = Comparison::fromDocument(document.value());
    comparison.verdicts = verdictsText;
    // Live changes travel with the numbers: into the view's notice and the
    // document the exports render.
    if (const auto live = campaignLiveChanges(*store, campaignId)) {
        flagLiveChanges(comparison.document, live.value());
        comparison.notice = liveChangesSummary(live.value());
        for (const RunLiveChanges& run : live.value())
            comparison.flagValue(run.cell.workload, run.cell.column, run.cell.msgSize);
        if (QTreeWidgetItem* item = campaignItem(campaignId)) markLiveChanges(item, live.value());
    }
    m_view->setComparison(comparison);
    m_shownCampaigns = {campaignId};
    emit comparisonChanged();
    return true;
}

bool ResultsPage::showComparison(qint64 campaignA, qint64 campaignB) {
    db::ResultStore* store = m_lab->store();
    if (store == nullptr) return false;
    const auto document = db::compareReport(*store, campaignA, campaignB, workloads::headlineMetricsByWorkload(),
                                            QDateTime::currentDateTimeUtc());
    if (!document) {
        m_lab->reportError(tr("Cannot compare campaigns %1 and %2: %3")
                               .arg(campaignA)
                               .arg(campaignB)
                               .arg(QString::fromStdString(document.error().message)));
        return false;
    }
    Comparison comparison = Comparison::fromDocument(document.value());
    QList<RunLiveChanges> live;
    for (const qint64 id : {campaignA, campaignB}) {
        if (const auto runs = campaignLiveChanges(*store, id)) {
            live += runs.value();
            // Columns of a two-campaign comparison are "#id label" (db/ compareReport()).
            for (const RunLiveChanges& run : runs.value())
                comparison.flagValue(run.cell.workload, QStringLiteral("#%1 %2").arg(id).arg(run.cell.column),
                                     run.cell.msgSize);
        }
    }
    flagLiveChanges(comparison.document, live);
    comparison.notice = liveChangesSummary(live);
    m_view->setComparison(comparison);
    m_shownCampaigns = {campaignA, campaignB};
    emit comparisonChanged();
    return true;
}

QList<qint64> ResultsPage::checkedCampaigns() const {
    QList<qint64> ids;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_tree->topLevelItem(i);
        if (item->checkState(0) == Qt::Checked) ids.append(item->data(0, kIdRole).toLongLong());
    }
    return ids;
}

bool ResultsPage::canResumeSelected() const {
    const QTreeWidgetItem* item = m_tree->currentItem();
    if (item == nullptr) return false;
    const QTreeWidgetItem* campaign = item->parent() ? item->parent() : item;
    return campaign->data(0, kResumableRole).toBool();
}

void ResultsPage::resumeSelected() {
    if (!canResumeSelected()) return;
    const QTreeWidgetItem* item = m_tree->currentItem();
    const QTreeWidgetItem* campaign = item->parent() ? item->parent() : item;
    emit resumeRequested(campaign->data(0, kIdRole).toLongLong());
}

void ResultsPage::updateWidgets() {
    m_resumeButton->setEnabled(canResumeSelected());
    const int checked = static_cast<int>(checkedCampaigns().size());
    if (!m_lab->storeError().isEmpty()) {
        // Nothing could be read: an empty list says nothing about the campaigns there.
        m_hint->setText(tr("Cannot read %1: %2. Choose another database with \"Database...\".")
                            .arg(databaseText(), m_lab->storeError()));
    } else if (m_tree->topLevelItemCount() == 0) {
        m_hint->setText(tr("No campaigns in %1 yet. Run one from the Campaign page.").arg(databaseText()));
    } else {
        m_hint->setText(compareHint(checked));
    }
}

QString ResultsPage::compareHint(int checked) const {
    if (checked == 2) return tr("Two campaigns checked: \"Compare checked\" shows them side by side.");
    if (checked == 1) return tr("One campaign checked: check a second one to compare the two side by side.");
    if (checked > 2) return tr("%1 campaigns checked: Compare shows exactly two; uncheck the others.").arg(checked);
    return tr("Select a campaign to see its tables, a run for its samples; check two campaigns to compare them.");
}

QString ResultsPage::hintText() const {
    return m_hint->text();
}

}  // namespace smclab::gui
