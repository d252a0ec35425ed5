// The run page's live time series: throughput per interval on the left
// axis, mean latency per interval on the right (hidden while a run measures
// none, as tcp_bw does), and a marker (vertical line and
// label) at every live setting change so its effect is visible in place.
#pragma once

#include <QList>
#include <QStringList>
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
    // A tool's figure for the whole run, printed when it ended: one point
    // each (drawn as a dot, as a lone point has no line), and `note` stays
    // shown beside it, saying where the point comes from.
    void addEndOfRunFigure(double timeSec, double throughputMBps, double latencyUs, const QString& note);
    void addMarker(double timeSec, const QString& label);
    void clearRun();
    // The time axis spans this much from the start (the run's planned
    // length) and grows with the samples past it; 0: follow the samples only.
    void setExpectedDurationSec(double seconds);
    // A line above the plot: what it shows ("last run, ended"); empty hides it.
    void setCaption(const QString& text);
    QString caption() const;
    // A note in the middle of the axes while the run has no sample ("qperf
    // reports only when it ends"); empty: none. Samples hide it.
    void setEmptyNote(const QString& text);
    // The note as shown now: empty once live samples arrived.
    QString emptyNote() const;
    QString latencyAxisLabel() const;
    bool latencyAxisVisible() const;
    // The series named in the legend ("throughput", and "latency (mean)"
    // only when the run measures latency).
    QStringList legendNames() const;
    double timeAxisUpperSec() const;

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
    double m_expectedSec = 0.0;
    QCPTextElement* m_caption = nullptr;
    QString m_emptyNote;
    QCPItemText* m_emptyNoteItem = nullptr;  // owned by the plot; clearItems() removes it
    bool m_noteWithSamples = false;          // the note explains the samples (an end-of-run figure)
};

}  // namespace smclab::gui
