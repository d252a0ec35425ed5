#include "pages/results_page.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/lab_context.h"
#include "data/comparison.h"
#include "smclab/db/comparison_query.h"
#include "smclab/db/result_store.h"
#include "widgets/comparison_view.h"

namespace smclab::gui {

namespace {

constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kLoadedRole = Qt::UserRole + 2;
constexpr int kResumableRole = Qt::UserRole + 3;

QString campaignStatusText(db::CampaignStatus status) {
    switch (status) {
        case db::CampaignStatus::planned:
            return QObject::tr("planned");
        case db::CampaignStatus::running:
            return QObject::tr("running");
        case db::CampaignStatus::paused:
            return QObject::tr("paused");
        case db::CampaignStatus::done:
            return QObject::tr("done");
        case db::CampaignStatus::failed:
            return QObject::tr("failed");
        case db::CampaignStatus::invalid:
            break;
    }
    return QStringLiteral("?");
}

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

    auto* top = new QWidget(splitter);
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
    topLayout->addLayout(buttons);
    m_tree = new QTreeWidget(top);
    m_tree->setColumnCount(4);
    m_tree->setHeaderLabels({tr("Campaign / run"), tr("Status"), tr("Runs"), tr("Created")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->setRootIsDecorated(true);
    topLayout->addWidget(m_tree, 1);

    m_view = new ComparisonView(splitter);
    splitter->addWidget(top);
    splitter->addWidget(m_view);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 4);
    splitter->setSizes({150, 600});

    connect(refreshButton, &QPushButton::clicked, this, &ResultsPage::refresh);
    connect(compareButton, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = checkedCampaigns();
        if (ids.size() == 2)
            showComparison(ids[0], ids[1]);
    });
    connect(m_resumeButton, &QPushButton::clicked, this, &ResultsPage::resumeSelected);
    connect(m_tree, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) { loadRuns(item); });
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item == nullptr)
            return;
        QTreeWidgetItem* campaign = item->parent() ? item->parent() : item;
        const qint64 id = campaign->data(0, kIdRole).toLongLong();
        if (id > 0)
            showCampaign(id);
        updateWidgets();
    });
    connect(m_tree, &QTreeWidget::itemChanged, this, [this] { updateWidgets(); });
    connect(m_lab, &LabContext::databaseChanged, this, &ResultsPage::refresh);
    connect(m_view, &ComparisonView::baselineChanged, this, [this] { emit comparisonChanged(); });
    refresh();
}

void ResultsPage::refresh() {
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
        m_lab->reportError(
            tr("Cannot list campaigns: %1").arg(QString::fromStdString(campaigns.error().message)));
        updateWidgets();
        return;
    }
    for (const db::Campaign& c : campaigns.value()) {
        auto* item = new QTreeWidgetItem(m_tree);
        item->setText(0, QStringLiteral("#%1 %2").arg(c.id).arg(c.name));
        item->setText(1, campaignStatusText(c.status));
        item->setText(2, c.runsFailed > 0
                             ? tr("%1/%2 (%3 failed)").arg(c.runsDone).arg(c.runsTotal).arg(c.runsFailed)
                             : tr("%1/%2").arg(c.runsDone).arg(c.runsTotal));
        item->setText(3, c.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        item->setToolTip(0, c.preset.isEmpty() ? c.name : tr("%1 (preset %2)").arg(c.name, c.preset));
        item->setData(0, kIdRole, c.id);
        // A campaign whose runner was killed still says "running": it can
        // be resumed too (the run page refuses while it runs one itself).
        item->setData(0, kResumableRole, c.runsDone < c.runsTotal);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(0, Qt::Unchecked);
        // A placeholder child so the item can be expanded; runs load on demand.
        new QTreeWidgetItem(item, {tr("loading...")});
        if (c.id == selected)
            m_tree->setCurrentItem(item);
    }
    for (int i = 1; i < 4; ++i)
        m_tree->resizeColumnToContents(i);
    updateWidgets();
}

void ResultsPage::loadRuns(QTreeWidgetItem* campaignItem) {
    if (campaignItem->parent() != nullptr || campaignItem->data(0, kLoadedRole).toBool())
        return;
    db::ResultStore* store = m_lab->store();
    if (store == nullptr)
        return;
    const auto runs = store->runs(campaignItem->data(0, kIdRole).toLongLong());
    if (!runs) {
        m_lab->reportError(tr("Cannot read runs: %1").arg(QString::fromStdString(runs.error().message)));
        return;
    }
    const QSignalBlocker blocker(m_tree);
    qDeleteAll(campaignItem->takeChildren());
    for (const db::Run& run : runs.value()) {
        auto* child = new QTreeWidgetItem(campaignItem);
        child->setText(0, QStringLiteral("%1 / %2 / %3 B / rep %4")
                              .arg(run.cell.workload, run.cell.column)
                              .arg(run.cell.msgSize)
                              .arg(run.cell.repetition + 1));
        child->setText(1, runStatusText(run.status));
        if (!run.error.isEmpty())
            child->setToolTip(1, run.error);
    }
    campaignItem->setData(0, kLoadedRole, true);
}

bool ResultsPage::showCampaign(qint64 campaignId) {
    db::ResultStore* store = m_lab->store();
    if (store == nullptr)
        return false;
    const auto document = db::campaignReport(*store, campaignId, QDateTime::currentDateTimeUtc());
    if (!document) {
        m_lab->reportError(tr("Cannot build the comparison of campaign %1: %2")
                               .arg(campaignId)
                               .arg(QString::fromStdString(document.error().message)));
        return false;
    }
    m_view->setComparison(Comparison::fromDocument(document.value()));
    emit comparisonChanged();
    return true;
}

bool ResultsPage::showComparison(qint64 campaignA, qint64 campaignB) {
    db::ResultStore* store = m_lab->store();
    if (store == nullptr)
        return false;
    const auto document = db::compareReport(*store, campaignA, campaignB, QDateTime::currentDateTimeUtc());
    if (!document) {
        m_lab->reportError(tr("Cannot compare campaigns %1 and %2: %3")
                               .arg(campaignA)
                               .arg(campaignB)
                               .arg(QString::fromStdString(document.error().message)));
        return false;
    }
    m_view->setComparison(Comparison::fromDocument(document.value()));
    emit comparisonChanged();
    return true;
}

QList<qint64> ResultsPage::checkedCampaigns() const {
    QList<qint64> ids;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = m_tree->topLevelItem(i);
        if (item->checkState(0) == Qt::Checked)
            ids.append(item->data(0, kIdRole).toLongLong());
    }
    return ids;
}

bool ResultsPage::canResumeSelected() const {
    const QTreeWidgetItem* item = m_tree->currentItem();
    if (item == nullptr)
        return false;
    const QTreeWidgetItem* campaign = item->parent() ? item->parent() : item;
    return campaign->data(0, kResumableRole).toBool();
}

void ResultsPage::resumeSelected() {
    if (!canResumeSelected())
        return;
    const QTreeWidgetItem* item = m_tree->currentItem();
    const QTreeWidgetItem* campaign = item->parent() ? item->parent() : item;
    emit resumeRequested(campaign->data(0, kIdRole).toLongLong());
}

void ResultsPage::updateWidgets() {
    m_resumeButton->setEnabled(canResumeSelected());
    const int checked = static_cast<int>(checkedCampaigns().size());
    if (m_tree->topLevelItemCount() == 0) {
        m_hint->setText(
            tr("No campaigns in %1 yet. Run one from the Campaign page.").arg(m_lab->databasePath()));
    } else if (checked == 2) {
        m_hint->setText(tr("Two campaigns checked: \"Compare checked\" shows them side by side."));
    } else {
        m_hint->setText(tr("Select a campaign to see its tables; check two to compare across campaigns."));
    }
}

}  // namespace smclab::gui
