// The colours of a comparison's columns: the report's palette
// (smclab/report/series_palette.h), so a column looks the same in the app
// and in the HTML report, as QColor for the plots.
#pragma once

#include <QColor>
#include <QString>

#include "smclab/report/series_palette.h"

namespace smclab::gui {

inline QString seriesColourName(int index) {
    return report::seriesColour(index);
}

inline QColor seriesColor(int index) {
    return QColor(seriesColourName(index));
}

}  // namespace smclab::gui
