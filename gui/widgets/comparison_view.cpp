#include "widgets/comparison_view.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "models/comparison_table_model.h"
#include "widgets/comparison_plot.h"

namespace smclab::gui {

namespace {
// The plot keeps this much width before the table gives up columns to
// horizontal scrolling; the table shrinks no further than this.
constexpr int kPlotMinimumPx = 300;
constexpr int kTableMinimumPx = 420;
}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* bar = new QHBoxLayout;
    m_title = new QLabel(this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    bar->addWidget(m_title, 1);
    m_logBox = new QCheckBox(tr("&Log y axis"), this);
    m_logBox->setToolTip(
        tr("Logarithmic value axis: small-message bandwidth is readable beside 64K's "
           "(on by default for bandwidth over a 1 B..64 KiB sweep)"));
    bar->addWidget(m_logBox);
    auto* baselineLabel = new QLabel(tr("&Baseline:"), this);
    m_baselineBox = new QComboBox(this);
    m_baselineBox->setMinimumContentsLength(14);
    m_baselineBox->setToolTip(tr("Percentages are (x / baseline - 1) * 100, from unrounded values"));
    baselineLabel->setBuddy(m_baselineBox);
    bar->addWidget(baselineLabel);
    bar->addWidget(m_baselineBox);
    layout->addLayout(bar);

    m_notice = new QLabel(this);
    m_notice->setWordWrap(true);
    m_notice->setObjectName(QStringLiteral("comparisonNotice"));
    m_notice->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #222; padding: 4px; }"));
    m_notice->hide();
    layout->addWidget(m_notice);

    m_verdicts = new QLabel(this);
    m_verdicts->setObjectName(QStringLiteral("comparisonVerdicts"));
    m_verdicts->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // A shape's line is longer than the page is wide at 1280 px: wrap it
    // rather than widen the window.
    m_verdicts->setWordWrap(true);
    m_verdicts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdicts->hide();
    layout->addWidget(m_verdicts);

    m_tabs = new QTabWidget(this);
    layout->addWidget(m_tabs, 1);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { updateWidgets(); });
    connect(m_logBox, &QCheckBox::toggled, this, [this](bool on) {
        const int tab = m_tabs->currentIndex();
        if (tab >= 0 && tab < m_panes.size()) m_panes[tab].plot->setLogScale(on);
    });

    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);

    connect(m_baselineBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) setBaselineColumn(index);
    });
    updateWidgets();
}

void ComparisonView::addPane(const ComparisonSection& section) {
    auto* splitter = new QSplitter(Qt::Horizontal, m_tabs);
    Pane pane;
    pane.metric = section.metric;
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
    m_tabs->addTab(splitter, section.title);
    pane.model->setSection(section);
    pane.model->setBaselineColumn(m_baseline);
    pane.plot->setSection(section, m_baseline);
    // The table takes the width its columns need; the plot gets the rest.
    // Measured from the texts (the view is not laid out yet, so its own
    // column widths are not known here).
    const QFontMetrics cellMetrics(pane.table->font());
    const QFontMetrics headerMetrics(pane.table->horizontalHeader()->font());
    int tableWidth = 2 * pane.table->frameWidth() + pane.table->verticalScrollBar()->sizeHint().width() + 4;
    for (int c = 0; c < pane.model->columnCount(); ++c) {
        int widest = headerMetrics.horizontalAdvance(pane.model->headerData(c, Qt::Horizontal).toString()) + 24;
        for (int r = 0; r < pane.model->rowCount(); ++r) {
            widest = std::max(widest, cellMetrics.horizontalAdvance(pane.model->index(r, c).data().toString()) + 16);
        }
        tableWidth += widest;
    }
    // Small minimums, so the window can narrow; fitPanes() gives each side
    // its width while there is room.
    pane.table->setMinimumWidth(std::min(tableWidth, kTableMinimumPx));
    pane.table->setMaximumWidth(tableWidth);
    pane.tableWidth = tableWidth;
    pane.splitter = splitter;
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);
    m_panes.append(pane);
    fitPanes();
}

void ComparisonView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitPanes();
}

void ComparisonView::fitPanes() {
    for (const Pane& p : std::as_const(m_panes)) {
        // The splitter is as wide as the tab page: the view less its frame.
        const int total = std::max(p.splitter->width(), m_tabs->width() - 8) - p.splitter->handleWidth();
        const int table = std::min(p.tableWidth, std::max(kTableMinimumPx, total - kPlotMinimumPx));
        p.splitter->setSizes({std::max(0, total - table), table});
    }
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

ComparisonPlot* ComparisonView::plotAt(int index) const {
    return index >= 0 && index < m_panes.size() ? m_panes[index].plot : nullptr;
}

QString ComparisonView::baselineLabel() const {
    return m_comparison.columns().value(m_baseline);
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
    // Panes follow the comparison's tables (bandwidth and latency for the
    // datapath campaigns, requests/s for http and kv).
    const int current = m_tabs->currentIndex();
    while (m_tabs->count() > 0) {
        QWidget* tab = m_tabs->widget(0);
        m_tabs->removeTab(0);
        tab->deleteLater();
    }
    for (const Pane& p : m_panes) p.model->deleteLater();
    m_panes.clear();
    for (const ComparisonSection& section : comparison.sections) addPane(section);
    if (current >= 0 && current < m_tabs->count()) m_tabs->setCurrentIndex(current);
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
    updateWidgets();
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
    {
        const int tab = m_tabs->currentIndex();
        const QSignalBlocker blocker(m_logBox);
        const bool hasPlot = tab >= 0 && tab < m_panes.size();
        m_logBox->setEnabled(hasPlot);
        m_logBox->setChecked(hasPlot && m_panes[tab].plot->logScale());
    }
    m_notice->setText(QStringLiteral("\u2691 ") + m_comparison.notice);
    m_notice->setVisible(!empty && !m_comparison.notice.isEmpty());
    m_verdicts->setText(m_comparison.verdicts.trimmed());
    m_verdicts->setVisible(!empty && !m_comparison.verdicts.isEmpty());
    if (empty) {
        m_hint->setText(tr("Select one or more campaigns in the list to compare their columns."));
        return;
    }
    // The hint of the tab on show: each metric says its own direction.
    const int tab = m_tabs->currentIndex();
    const ComparisonSection* section =
        tab >= 0 && tab < m_comparison.sections.size() ? &m_comparison.sections[tab] : nullptr;
    if (section == nullptr) {
        m_hint->clear();
        return;
    }
    m_hint->setText(tr("%1: %2 is better (green). Percentages against %3. Hover a point for its value.")
                        .arg(section->title, section->lowerIsBetter ? tr("lower") : tr("higher"), baselineLabel()));
}

QString ComparisonView::noticeText() const {
    return m_notice->isVisibleTo(this) ? m_comparison.notice : QString();
}

QString ComparisonView::verdictsText() const {
    return m_verdicts->isVisibleTo(this) ? m_comparison.verdicts : QString();
}

QString ComparisonView::hintText() const {
    return m_hint->text();
}

}  // namespace smclab::gui
