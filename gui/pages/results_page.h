// Results: the campaigns and their runs from the database, and the
// comparison view of the selected campaign, or of two checked campaigns
// side by side (their columns labelled "#id label").
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace smclab::gui {

class LabContext;
class ComparisonView;

class ResultsPage : public QWidget {
    Q_OBJECT
public:
    explicit ResultsPage(LabContext* lab, QWidget* parent = nullptr);

    void refresh();
    // Shows one campaign, or two side by side; false (error reported) if the store cannot.
    bool showCampaign(qint64 campaignId);
    bool showComparison(qint64 campaignA, qint64 campaignB);
    ComparisonView* comparisonView() const { return m_view; }
    QTreeWidget* campaignTree() const { return m_tree; }

    // The selected campaign has cells not done (stopped, interrupted or failed).
    bool canResumeSelected() const;
    void resumeSelected();

signals:
    void comparisonChanged();
    void resumeRequested(qint64 campaignId);

private:
    void loadRuns(QTreeWidgetItem* campaignItem);
    QList<qint64> checkedCampaigns() const;
    void updateWidgets();

    LabContext* m_lab = nullptr;
    QTreeWidget* m_tree = nullptr;
    QLabel* m_hint = nullptr;
    QPushButton* m_resumeButton = nullptr;
    ComparisonView* m_view = nullptr;
};

}  // namespace smclab::gui
