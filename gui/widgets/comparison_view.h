// The comparison view: per metric a tab holding the plot against message
// size and, beside it, the cover-letter table; one baseline column chosen
// for both metrics.
#pragma once

#include <QWidget>

#include "data/comparison.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QTabWidget;
class QSplitter;
class QTableView;

namespace smclab::gui {

class ComparisonPlot;
class ComparisonTableModel;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);

    void setComparison(const Comparison& comparison);
    const Comparison& comparison() const { return m_comparison; }
    int baselineColumn() const { return m_baseline; }
    void setBaselineColumn(int column);
    void showMetric(Metric metric);

    // The first pane showing `metric` (null when the comparison has none).
    ComparisonPlot* plot(Metric metric) const;
    ComparisonTableModel* tableModel(Metric metric) const;
    QTableView* tableView(Metric metric) const;
    int paneCount() const { return static_cast<int>(m_panes.size()); }
    ComparisonPlot* plotAt(int index) const;
    // The column label the percentages are computed against.
    QString baselineLabel() const;
    // The notice above the plots (empty when hidden) and the hint below them.
    QString noticeText() const;
    // The shapes' verdicts under the notice (empty when hidden).
    QString verdictsText() const;
    QString hintText() const;
    // The "Log y axis" switch of the metric on show.
    QCheckBox* logScaleBox() const { return m_logBox; }

signals:
    void baselineChanged(int column);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Pane {
        Metric metric = Metric::invalid;
        ComparisonPlot* plot = nullptr;
        ComparisonTableModel* model = nullptr;
        QTableView* table = nullptr;
        QSplitter* splitter = nullptr;
        int tableWidth = 0;  // what the table's columns need, measured from their texts
    };
    const Pane* pane(Metric metric) const;
    void addPane(const ComparisonSection& section);
    // Gives each table the width its columns need while the plot keeps its
    // minimum, the plot the rest: no horizontal scrolling when it fits.
    void fitPanes();
    void updateWidgets();

    Comparison m_comparison;
    int m_baseline = 0;
    QLabel* m_title = nullptr;
    QComboBox* m_baselineBox = nullptr;
    QCheckBox* m_logBox = nullptr;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_hint = nullptr;
    QLabel* m_notice = nullptr;
    QLabel* m_verdicts = nullptr;
    QList<Pane> m_panes;
};

}  // namespace smclab::gui
