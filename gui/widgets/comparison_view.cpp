#include "widgets/comparison_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "models/comparison_table_model.h"
#include "widgets/comparison_plot.h"

namespace smclab::gui {

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* bar = new QHBoxLayout;
    m_title = new QLabel(this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    bar->addWidget(m_title, 1);
    auto* baselineLabel = new QLabel(tr("&Baseline:"), this);
    m_baselineBox = new QComboBox(this);
    m_baselineBox->setMinimumContentsLength(14);
    m_baselineBox->setToolTip(tr("Percentages are (x / baseline - 1) * 100, from unrounded values"));
    baselineLabel->setBuddy(m_baselineBox);
    bar->addWidget(baselineLabel);
    bar->addWidget(m_baselineBox);
    layout->addLayout(bar);

    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);
    addPane(Metric::bandwidth);
    addPane(Metric::latency);

    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);

    connect(m_baselineBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) setBaselineColumn(index);
    });
    updateWidgets();
}

void ComparisonView::addPane(Metric metric) {
    auto* splitter = new QSplitter(Qt::Horizontal, m_tabs);
    Pane pane;
    pane.metric = metric;
    pane.plot = new ComparisonPlot(splitter);
    pane.model = new ComparisonTableModel(this);
    pane.table = new QTableView(splitter);
    pane.table->setModel(pane.model);
    pane.table->verticalHeader()->hide();
    pane.table->verticalHeader()->setDefaultSectionSize(pane.table->fontMetrics().height() + 4);
    pane.table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    pane.table->setSelectionBehavior(QAbstractItemView::SelectRows);
    pane.table->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    pane.table->setAlternatingRowColors(true);
    splitter->addWidget(pane.plot);
    splitter->addWidget(pane.table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    m_tabs->addTab(splitter, metricName(metric));
    m_panes.append(pane);
}

const ComparisonView::Pane* ComparisonView::pane(Metric metric) const {
    for (const Pane& p : m_panes) {
        if (p.metric == metric) return &p;
    }
    return nullptr;
}

ComparisonPlot* ComparisonView::plot(Metric metric) const {
    const Pane* p = pane(metric);
    return p ? p->plot : nullptr;
}

ComparisonTableModel* ComparisonView::tableModel(Metric metric) const {
    const Pane* p = pane(metric);
    return p ? p->model : nullptr;
}

QTableView* ComparisonView::tableView(Metric metric) const {
    const Pane* p = pane(metric);
    return p ? p->table : nullptr;
}

void ComparisonView::setComparison(const Comparison& comparison) {
    m_comparison = comparison;
    const QStringList columns = comparison.columns();
    if (m_baseline >= columns.size()) m_baseline = 0;
    {
        const QSignalBlocker blocker(m_baselineBox);
        m_baselineBox->clear();
        m_baselineBox->addItems(columns);
        m_baselineBox->setCurrentIndex(columns.isEmpty() ? -1 : m_baseline);
    }
    for (const Pane& p : m_panes) {
        const ComparisonSection* section = comparison.section(p.metric);
        const ComparisonSection empty;
        p.model->setSection(section ? *section : empty);
        p.model->setBaselineColumn(m_baseline);
        p.plot->setSection(section ? *section : empty, m_baseline);
    }
    updateWidgets();
}

void ComparisonView::setBaselineColumn(int column) {
    if (column < 0 || column >= m_comparison.columns().size()) return;
    const bool changed = column != m_baseline;
    m_baseline = column;
    {
        const QSignalBlocker blocker(m_baselineBox);
        m_baselineBox->setCurrentIndex(column);
    }
    for (const Pane& p : m_panes) {
        p.model->setBaselineColumn(column);
        p.plot->setBaselineColumn(column);
    }
    if (changed) emit baselineChanged(column);
}

void ComparisonView::showMetric(Metric metric) {
    for (int i = 0; i < m_panes.size(); ++i) {
        if (m_panes[i].metric == metric) m_tabs->setCurrentIndex(i);
    }
}

void ComparisonView::updateWidgets() {
    const bool empty = m_comparison.isEmpty();
    m_title->setText(empty ? tr("No comparison") : m_comparison.title);
    m_baselineBox->setEnabled(!empty);
    m_hint->setText(empty ? tr("Select one or more campaigns in the list to compare their columns.")
                          : tr("Latency: lower is better (green). Hover a point for its value."));
}

}  // namespace smclab::gui
