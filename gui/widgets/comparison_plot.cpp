#include "widgets/comparison_plot.h"

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
    setMinimumSize(360, 260);
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Vertical);
    axisRect()->setRangeZoom(Qt::Vertical);
    setMouseTracking(true);
    rebuild();
}

void ComparisonPlot::setSection(const ComparisonSection& section, int baselineColumn) {
    m_section = section;
    m_baseline = baselineColumn >= 0 && baselineColumn < section.columnCount() ? baselineColumn : 0;
    rebuild();
}

void ComparisonPlot::setBaselineColumn(int column) {
    if (column < 0 || column >= m_section.columnCount())
        return;
    m_baseline = column;
    rebuild();
}

void ComparisonPlot::rebuild() {
    clearGraphs();
    configureSizeAxis(xAxis, m_section.sizesBytes);
    yAxis->setLabel(m_section.title.isEmpty()
                        ? QString()
                        : QStringLiteral("%1 (%2)").arg(m_section.title, m_section.unit));
    double yMax = 0.0;
    for (int c = 0; c < m_section.columnCount(); ++c) {
        QCPGraph* g = addGraph();
        g->setName(c == m_baseline ? tr("%1 (base)").arg(m_section.columns[c]) : m_section.columns[c]);
        QPen pen(seriesColor(c));
        pen.setWidthF(c == m_baseline ? 2.5 : 1.6);
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        for (int r = 0; r < m_section.rowCount(); ++r) {
            const double v = m_section.value(c, r);
            if (std::isnan(v))
                continue;
            g->addData(static_cast<double>(m_section.sizesBytes[r]), v);
            yMax = std::max(yMax, v);
        }
    }
    yAxis->setRange(0.0, yMax > 0.0 ? yMax * 1.08 : 1.0);
    legend->setVisible(m_section.columnCount() > 0);
    replot();
}

QString ComparisonPlot::tooltipAt(const QPointF& pos) const {
    double best = std::numeric_limits<double>::max();
    int bestColumn = -1;
    int bestRow = -1;
    for (int c = 0; c < m_section.columnCount(); ++c) {
        for (int r = 0; r < m_section.rowCount(); ++r) {
            const double v = m_section.value(c, r);
            if (std::isnan(v))
                continue;
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
    if (bestColumn < 0 || best > kHoverRadiusPx)
        return {};
    QString text = QStringLiteral("%1\n%2 B: %3 %4")
                       .arg(m_section.columns[bestColumn])
                       .arg(m_section.sizesBytes[bestRow])
                       .arg(m_section.value(bestColumn, bestRow), 0, 'f', 3)
                       .arg(m_section.unit);
    if (bestColumn != m_baseline) {
        text += tr("\n%1% vs %2")
                    .arg(m_section.percent(bestColumn, bestRow, m_baseline), 0, 'f', 2)
                    .arg(m_section.columns[m_baseline]);
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
