// The colours of a comparison's columns, shared by the app and the HTML
// report so that a column looks the same in both: the Okabe-Ito palette
// (colour-blind safe) in the order agents/report/src/svg_plot.cpp's
// seriesColour() uses, indexed by the column's position in the report's
// table (baseline first). Header-only and free of GUI types so the report can
// include this very file (the lead moves it next to the report's headers).
#pragma once

#include <array>

#include <QColor>
#include <QString>

namespace smclab::gui {

inline constexpr std::array<const char*, 8> kSeriesPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                              "#E69F00", "#56B4E9", "#000000", "#F0E442"};

// "#0072B2" for column 0; any index wraps around.
inline QString seriesColourName(int index) {
    constexpr int kCount = static_cast<int>(kSeriesPalette.size());
    return QString::fromLatin1(kSeriesPalette[static_cast<size_t>(((index % kCount) + kCount) % kCount)]);
}

inline QColor seriesColor(int index) {
    return QColor(seriesColourName(index));
}

}  // namespace smclab::gui
