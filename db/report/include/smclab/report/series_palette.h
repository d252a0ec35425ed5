// The colours of a comparison's columns, the one definition that the HTML
// and SVG report (svg_plot.cpp) and the desktop app (gui/data/series_palette.h)
// both use, so a column looks the same in both: the Okabe-Ito palette
// (colour-blind safe), indexed by the column's position in the report's
// table (baseline first).
#pragma once

#include <array>

#include <QString>

namespace smclab::report {

inline constexpr std::array<const char*, 8> kSeriesPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                              "#E69F00", "#56B4E9", "#000000", "#F0E442"};

// "#0072B2" for column 0; any index wraps around.
inline QString seriesColour(qsizetype index) {
    constexpr qsizetype kCount = static_cast<qsizetype>(kSeriesPalette.size());
    return QString::fromLatin1(kSeriesPalette[static_cast<size_t>(((index % kCount) + kCount) % kCount)]);
}

}  // namespace smclab::report
