// One metric of a comparison against message size: one line per column on a
// log2 size axis, the baseline drawn thicker; hovering a point shows its
// value and its percentage against the baseline.
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

    // The text a hover at pixel position `pos` shows; empty when no point is near.
    QString tooltipAt(const QPointF& pos) const;

protected:
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void rebuild();

    ComparisonSection m_section;
    int m_baseline = 0;
};

}  // namespace smclab::gui
