#include "widgets/size_axis.h"

#include <algorithm>

#include <QSharedPointer>
#include <qcustomplot.h>

#include "data/comparison.h"

namespace smclab::gui {

void configureSizeAxis(QCPAxis* axis, const QList<qint64>& sizesBytes) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    // A tick per size; with many sizes every other one is labelled so the
    // labels of 1..64K do not run into each other on a narrow plot.
    const int step = sizesBytes.size() > 9 ? 2 : 1;
    for (int i = 0; i < sizesBytes.size(); ++i) {
        const qint64 size = sizesBytes[i];
        ticker->addTick(static_cast<double>(size), i % step == 0 ? sizeLabel(size) : QString());
    }
    axis->setTicker(ticker);
    axis->setLabel(QObject::tr("message size (bytes, log2)"));
    if (sizesBytes.isEmpty()) {
        axis->setRange(1, 65536);
        return;
    }
    const auto [lo, hi] = std::minmax_element(sizesBytes.begin(), sizesBytes.end());
    // Half a step of margin on each side so the end points are not clipped.
    axis->setRange(static_cast<double>(*lo) / 1.4, static_cast<double>(*hi) * 1.4);
}

}  // namespace smclab::gui
