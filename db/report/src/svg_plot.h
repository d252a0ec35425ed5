// Inline SVG line plots for the HTML report: one table's metric against
// message size on a log2 x axis, one line per column, with a legend, axis
// labels and a tooltip (<title>) on every point. No scripts, no external
// files.
#pragma once

#include <QString>

#include "smclab/report/comparison_table.h"
#include "smclab/report/series_palette.h"  // seriesColour(): plots and tables

namespace smclab::report {

struct PlotSize {
    int widthPx = 720;
    int heightPx = 380;
};

QString svgPlot(const ComparisonTable& table, PlotSize size = {});

// "64K", "1M", "512": message sizes as the tools print them.
QString sizeLabel(qint64 bytes);

}  // namespace smclab::report
