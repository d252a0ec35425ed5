#include "widgets/comparison_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QToolTip>

#include "widgets/size_axis.h"

namespace smclab::gui {

namespace {
// A hover farther than this from every point shows nothing.
constexpr double kHoverRadiusPx = 12.0;
}  // namespace

ComparisonPlot::ComparisonPlot(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(300, 260);
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    // Below the axis rect, in a row of its own: inside the plot it covered
    // points of two-campaign comparisons.
    auto* legendRect = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, legendRect);
    legendRect->setMargins(QMargins(5, 0, 5, 5));
    legendRect->addElement(0, 0, legend);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(4);
    plotLayout()->setRowStretchFactor(1, 0.001);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Vertical);
    axisRect()->setRangeZoom(Qt::Vertical);
    setMouseTracking(true);
    rebuild();
}

void ComparisonPlot::setSection(const ComparisonSection& section, int baselineColumn) {
    m_section = section;
    m_log = section.prefersLogScale();
    m_baseline = baselineColumn >= 0 && baselineColumn < section.columnCount() ? baselineColumn : 0;
    rebuild();
}

void ComparisonPlot::setLogScale(bool on) {
    if (on == m_log) return;
    m_log = on;
    rebuild();
}

void ComparisonPlot::setBaselineColumn(int column) {
    if (column < 0 || column >= m_section.columnCount()) return;
    m_baseline = column;
    rebuild();
}

void ComparisonPlot::rebuild() {
    clearGraphs();
    clearPlottables();
    m_errorBarCount = 0;
    configureSizeAxis(xAxis, m_section.sizesBytes);
    yAxis->setLabel(
        m_section.title.isEmpty()
            ? QString()
            : QStringLiteral("%1 (%2)%3").arg(m_section.title, m_section.unit, m_log ? tr(", log scale") : QString()));
    double yMax = 0.0;
    double yMinPositive = std::numeric_limits<double>::max();
    for (int c = 0; c < m_section.columnCount(); ++c) {
        QCPGraph* g = addGraph();
        g->setName(c == m_baseline ? tr("%1 (base)").arg(m_section.columns[c]) : m_section.columns[c]);
        QPen pen(seriesColor(c));
        pen.setWidthF(c == m_baseline ? 2.5 : 1.6);
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        // Error bars from the 95% interval of each median (asymmetric).
        QVector<double> below;
        QVector<double> above;
        int withInterval = 0;
        for (int r = 0; r < m_section.rowCount(); ++r) {
            const double v = m_section.value(c, r);
            if (std::isnan(v)) continue;
            g->addData(static_cast<double>(m_section.sizesBytes[r]), v);
            const auto interval = m_section.interval(c, r);
            const double low = interval ? std::min(interval->low, v) : v;
            const double high = interval ? std::max(interval->high, v) : v;
            below.append(v - low);
            above.append(high - v);
            withInterval += interval ? 1 : 0;
            yMax = std::max(yMax, high);
            if (low > 0.0)
                yMinPositive = std::min(yMinPositive, low);
            else if (v > 0.0)
                yMinPositive = std::min(yMinPositive, v);
        }
        if (withInterval > 0) {
            auto* bars = new QCPErrorBars(xAxis, yAxis);
            bars->removeFromLegend();
            bars->setDataPlottable(g);
            bars->setData(below, above);
            bars->setPen(QPen(seriesColor(c), 1.0));
            bars->setWhiskerWidth(6);
            m_errorBarCount += withInterval;
        }
    }
    if (m_log) {
        yAxis->setScaleType(QCPAxis::stLogarithmic);
        yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        yAxis->setNumberFormat(QStringLiteral("gb"));
        const double lo = yMinPositive < std::numeric_limits<double>::max() ? yMinPositive / 1.6 : 0.01;
        yAxis->setRange(lo, yMax > lo ? yMax * 1.6 : lo * 10.0);
    } else {
        yAxis->setScaleType(QCPAxis::stLinear);
        yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        yAxis->setNumberFormat(QStringLiteral("gbd"));
        yAxis->setRange(0.0, yMax > 0.0 ? yMax * 1.08 : 1.0);
    }
    legend->setVisible(m_section.columnCount() > 0);
    fitLegend();
    replot();
}

void ComparisonPlot::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    const int wrap = legend->wrap();
    fitLegend();
    if (legend->wrap() != wrap) replot(QCustomPlot::rpQueuedReplot);
}

void ComparisonPlot::fitLegend() {
    // Four to a row cut the labels of a narrow plot ("TC", "SMC-NoCork
    // (bas"): fewer per row, widest entry per column, until they fit.
    // The grid's cells in order; a wrap leaves empty cells at the end.
    QList<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (const QCPAbstractLegendItem* item = legend->item(i)) widths.append(item->minimumOuterSizeHint().width());
    }
    if (widths.isEmpty()) return;
    const QMargins outer = legend->margins() + plotLayout()->element(1, 0)->margins();
    const int available = width() - outer.left() - outer.right();
    int columns = std::min(4, static_cast<int>(widths.size()));
    for (; columns > 1; --columns) {
        int needed = (columns - 1) * legend->columnSpacing();
        for (int c = 0; c < columns; ++c) {
            int widest = 0;
            for (int i = c; i < widths.size(); i += columns) widest = std::max(widest, widths[i]);
            needed += widest;
        }
        if (needed <= available) break;
    }
    if (columns == legend->wrap()) return;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-places the entries
}

int ComparisonPlot::legendEntriesCut() const {
    int cut = 0;
    for (int i = 0; i < legend->itemCount(); ++i) {
        const QCPAbstractLegendItem* item = legend->item(i);
        if (item != nullptr && item->outerRect().width() < item->minimumOuterSizeHint().width()) ++cut;
    }
    return cut;
}

QString ComparisonPlot::tooltipAt(const QPointF& pos) const {
    double best = std::numeric_limits<double>::max();
    int bestColumn = -1;
    int bestRow = -1;
    for (int c = 0; c < m_section.columnCount(); ++c) {
        for (int r = 0; r < m_section.rowCount(); ++r) {
            const double v = m_section.value(c, r);
            if (std::isnan(v)) continue;
            const double px = xAxis->coordToPixel(static_cast<double>(m_section.sizesBytes[r]));
            const double py = yAxis->coordToPixel(v);
            const double d = std::hypot(px - pos.x(), py - pos.y());
            if (d < best) {
                best = d;
                bestColumn = c;
                bestRow = r;
            }
        }
    }
    if (bestColumn < 0 || best > kHoverRadiusPx) return {};
    QString text = QStringLiteral("%1\n%2 B: %3 %4")
                       .arg(m_section.columns[bestColumn])
                       .arg(m_section.sizesBytes[bestRow])
                       .arg(m_section.value(bestColumn, bestRow), 0, 'f', 3)
                       .arg(m_section.unit);
    if (const auto interval = m_section.interval(bestColumn, bestRow))
        text += QLatin1Char('\n') + intervalToolTip(*interval, m_section.repetitionCount(bestColumn, bestRow));
    if (bestColumn != m_baseline) {
        text += tr("\n%1 vs %2")
                    .arg(signedPercent(m_section.percent(bestColumn, bestRow, m_baseline)))
                    .arg(m_section.columns[m_baseline]);
        if (const auto change = m_section.change(bestColumn, bestRow, m_baseline); change && change->interval)
            text += QLatin1Char('\n') + changeToolTip(*change);
    }
    return text;
}

void ComparisonPlot::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    const QString text = tooltipAt(event->position());
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
}

}  // namespace smclab::gui
