// Message-size axes: log2 scale with one labelled tick per size ("1", "2",
// ..., "64K"), the way qperf's -oo msg_size:1:64K:*2 sweeps are read.
#pragma once

#include <QList>

#include "data/series_palette.h"

class QCPAxis;

namespace smclab::gui {

void configureSizeAxis(QCPAxis* axis, const QList<qint64>& sizesBytes);

}  // namespace smclab::gui
