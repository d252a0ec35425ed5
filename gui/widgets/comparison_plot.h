// One metric of a comparison against message size: one line per column on a
// log2 size axis, the baseline drawn thicker, error bars where a value has
// repetitions, optionally a log value axis; hovering a point shows its value,
// its error and its percentage against the baseline. The legend sits outside
// the data, below the plot.
#pragma once

#include <qcustomplot.h>

#include "data/comparison.h"

namespace smclab::gui {

class ComparisonPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit ComparisonPlot(QWidget* parent = nullptr);

    void setSection(const ComparisonSection& section, int baselineColumn);
    void setBaselineColumn(int column);
    const ComparisonSection& section() const { return m_section; }
    // A logarithmic value axis (setSection() picks the section's preference).
    void setLogScale(bool on);
    bool logScale() const { return m_log; }
    // Error bars drawn (values with more than one repetition).
    int errorBarCount() const { return m_errorBarCount; }

    // The text a hover at pixel position `pos` shows; empty when no point is near.
    QString tooltipAt(const QPointF& pos) const;
    // Legend entries narrower than their text as laid out now ("TC" for
    // "TCP"): none once fitLegend() has placed them.
    int legendEntriesCut() const;

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    // As many legend entries per row as fit the plot's width in full.
    void fitLegend();

    ComparisonSection m_section;
    int m_baseline = 0;
    bool m_log = false;
    int m_errorBarCount = 0;
};

}  // namespace smclab::gui
