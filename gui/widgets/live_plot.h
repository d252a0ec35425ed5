// The run page's live time series: throughput per interval on the left
// axis, latency per interval on the right, and a marker (vertical line and
// label) at every live setting change so its effect is visible in place.
#pragma once

#include <QList>
#include <qcustomplot.h>

namespace smclab::gui {

class LivePlot : public QCustomPlot {
    Q_OBJECT
public:
    struct Marker {
        double timeSec = 0.0;
        QString label;
    };

    explicit LivePlot(QWidget* parent = nullptr);

    // Either value may be NaN when the interval did not measure it.
    void addSample(double timeSec, double throughputMBps, double latencyUs);
    void addMarker(double timeSec, const QString& label);
    void clearRun();

    const QList<Marker>& markers() const { return m_markers; }
    int sampleCount() const;
    double lastTimeSec() const { return m_lastTimeSec; }

private:
    void rescale();

    QCPGraph* m_throughput = nullptr;
    QCPGraph* m_latency = nullptr;
    QList<Marker> m_markers;
    QList<QCPItemText*> m_markerTexts;
    double m_lastTimeSec = 0.0;
};

}  // namespace smclab::gui
