// Results: the campaigns and their runs from the database, and the
// comparison view of the selected campaign, or of two checked campaigns
// side by side (their columns labelled "#id label"); a run selected in the
// list opens the single-run view instead.
#pragma once

#include <QList>
#include <QWidget>

#include "orchestrator/runner_lock.h"
#include "smclab/db/types.h"

class QLabel;
class QPushButton;
class QStackedWidget;
class QTreeWidget;
class QTreeWidgetItem;

namespace smclab::gui {

class LabContext;
class ComparisonView;
class RunView;
struct RunLiveChanges;

class ResultsPage : public QWidget {
    Q_OBJECT
public:
    explicit ResultsPage(LabContext* lab, QWidget* parent = nullptr);

    void refresh();
    // Switches the results database (an SQLite file or a postgresql:// URL),
    // remembered in the app settings; "Database..." asks for it in a dialog.
    void setDatabase(const QString& location);
    void chooseDatabase();
    QString databaseText() const;
    // Shows one campaign, or two side by side; false (error reported) if the store cannot.
    bool showCampaign(qint64 campaignId);
    bool showComparison(qint64 campaignA, qint64 campaignB);
    ComparisonView* comparisonView() const { return m_view; }
    QTreeWidget* campaignTree() const { return m_tree; }
    RunView* runView() const { return m_runView; }
    // Shows one stored run in the single-run view; false (error reported) if it cannot be read.
    bool showRun(qint64 runId);
    // The tree item of a run (after its campaign was expanded), for tests and selection.
    QTreeWidgetItem* runItem(qint64 campaignId, qint64 runId) const;
    bool runViewShown() const;

    // The selected campaign has cells not done (stopped, interrupted or failed).
    bool canResumeSelected() const;
    void resumeSelected();

    // What the list shows (tests read it as the user does).
    QString statusText(qint64 campaignId) const;
    // The Notes column of a campaign (runId 0) or of one of its runs
    // (expand the campaign first): failure reasons, live-change flags.
    QString notesText(qint64 campaignId, qint64 runId = 0) const;
    void expandCampaign(qint64 campaignId);
    QString hintText() const;

    // "interrupted" for a stored "running" whose runner is gone, "stopped"
    // for a paused one without a runner.
    static QString campaignStatusText(db::CampaignStatus status, orchestrator::RunnerPresence runner);

signals:
    void comparisonChanged();
    void resumeRequested(qint64 campaignId);

private:
    // The constructor's parts: the campaign list with its buttons above,
    // then the connections of the tree and the views below.
    QWidget* makeCampaignList(QWidget* parent);
    void connectViews();
    // "Compare checked": the two ticked campaigns, or a hint why not.
    void compareChecked();
    // The tree's current item: a run's samples or a campaign's comparison.
    void showItem(QTreeWidgetItem* item);
    void loadRuns(QTreeWidgetItem* campaignItem);
    QList<qint64> checkedCampaigns() const;
    void updateWidgets();
    QString compareHint(int checked) const;
    void markLiveChanges(QTreeWidgetItem* campaignItem, const QList<RunLiveChanges>& runs);
    QTreeWidgetItem* campaignItem(qint64 campaignId) const;

    LabContext* m_lab = nullptr;
    QTreeWidget* m_tree = nullptr;
    QLabel* m_hint = nullptr;
    QLabel* m_database = nullptr;
    QPushButton* m_resumeButton = nullptr;
    ComparisonView* m_view = nullptr;
    // The campaign(s) the comparison shows (one, or the two compared):
    // refresh() rebuilds it from the store, so a resumed campaign's new runs
    // appear without picking it again.
    QList<qint64> m_shownCampaigns;
    RunView* m_runView = nullptr;
    QStackedWidget* m_lower = nullptr;
};

}  // namespace smclab::gui
