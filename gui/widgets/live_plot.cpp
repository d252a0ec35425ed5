#include "widgets/live_plot.h"

#include <cmath>

#include "data/series_palette.h"

namespace smclab::gui {

namespace {
// Without a planned length the time axis shows at least this much.
constexpr double kMinWindowSec = 1.0;
const QColor kThroughputColor = seriesColor(0);
const QColor kLatencyColor = seriesColor(1);
const QColor kMarkerColor(0x55, 0x55, 0x55);
}  // namespace

LivePlot::LivePlot(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(420, 260);
    yAxis2->setVisible(true);
    xAxis->setLabel(tr("time (s)"));
    yAxis->setLabel(tr("throughput (MB/s)"));
    // The agents stream the mean of each interval (p50/p99 are in the stored samples).
    yAxis2->setLabel(tr("latency, mean per interval (us)"));
    yAxis->setLabelColor(kThroughputColor);
    yAxis2->setLabelColor(kLatencyColor);

    m_throughput = addGraph(xAxis, yAxis);
    m_throughput->setName(tr("throughput"));
    m_throughput->setPen(QPen(kThroughputColor, 1.8));
    m_latency = addGraph(xAxis, yAxis2);
    m_latency->setName(tr("latency (mean)"));
    m_latency->setPen(QPen(kLatencyColor, 1.4));

    plotLayout()->insertRow(0);
    m_caption = new QCPTextElement(this, QString(), QFont(font().family(), 9, QFont::Bold));
    plotLayout()->addElement(0, 0, m_caption);
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    clearRun();
}

void LivePlot::clearRun() {
    m_throughput->data()->clear();
    m_latency->data()->clear();
    clearItems();
    m_markers.clear();
    m_markerTexts.clear();
    m_lastTimeSec = 0.0;
    m_caption->setText(QString());
    m_emptyNote.clear();
    m_emptyNoteItem = nullptr;  // clearItems() deleted it
    m_noteWithSamples = false;
    m_throughput->setScatterStyle(QCPScatterStyle());
    m_latency->setScatterStyle(QCPScatterStyle());
    rescale();
}

void LivePlot::setEmptyNote(const QString& text) {
    m_emptyNote = text;
    if (m_emptyNoteItem == nullptr) {
        m_emptyNoteItem = new QCPItemText(this);
        m_emptyNoteItem->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_emptyNoteItem->position->setCoords(0.5, 0.45);
        m_emptyNoteItem->setPositionAlignment(Qt::AlignCenter);
        m_emptyNoteItem->setTextAlignment(Qt::AlignCenter);
        m_emptyNoteItem->setPadding(QMargins(8, 6, 8, 6));
        m_emptyNoteItem->setColor(QColor(0x44, 0x44, 0x44));
        m_emptyNoteItem->setBrush(QBrush(QColor(0xf4, 0xf4, 0xf4)));
        m_emptyNoteItem->setClipToAxisRect(false);
    }
    m_emptyNoteItem->setText(text);
    rescale();
}

QString LivePlot::emptyNote() const {
    return m_emptyNoteItem != nullptr && m_emptyNoteItem->visible() ? m_emptyNote : QString();
}

void LivePlot::setExpectedDurationSec(double seconds) {
    m_expectedSec = std::max(0.0, seconds);
    rescale();
}

void LivePlot::setCaption(const QString& text) {
    m_caption->setText(text);
    replot(QCustomPlot::rpQueuedReplot);
}

QString LivePlot::caption() const {
    return m_caption->text();
}

QString LivePlot::latencyAxisLabel() const {
    return yAxis2->label();
}

bool LivePlot::latencyAxisVisible() const {
    return yAxis2->visible();
}

QStringList LivePlot::legendNames() const {
    QStringList names;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i))) names << item->plottable()->name();
    }
    return names;
}

double LivePlot::timeAxisUpperSec() const {
    return xAxis->range().upper;
}

int LivePlot::sampleCount() const {
    return std::max(m_throughput->dataCount(), m_latency->dataCount());
}

void LivePlot::addSample(double timeSec, double throughputMBps, double latencyUs) {
    if (!std::isnan(throughputMBps)) m_throughput->addData(timeSec, throughputMBps);
    if (!std::isnan(latencyUs)) m_latency->addData(timeSec, latencyUs);
    m_lastTimeSec = std::max(m_lastTimeSec, timeSec);
    rescale();
}

void LivePlot::addEndOfRunFigure(double timeSec, double throughputMBps, double latencyUs, const QString& note) {
    m_throughput->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 8));
    m_latency->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 8));
    m_noteWithSamples = true;
    setEmptyNote(note);
    addSample(timeSec, throughputMBps, latencyUs);
}

void LivePlot::addMarker(double timeSec, const QString& label) {
    auto* line = new QCPItemStraightLine(this);
    line->point1->setCoords(timeSec, 0.0);
    line->point2->setCoords(timeSec, 1.0);
    line->setPen(QPen(kMarkerColor, 1.0, Qt::DashLine));

    auto* text = new QCPItemText(this);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    // Staggered so that changes made in quick succession stay readable.
    text->position->setCoords(timeSec, 0.03 + 0.07 * static_cast<double>(m_markers.size() % 5));
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setPadding(QMargins(3, 1, 3, 1));
    text->setText(label);
    text->setFont(QFont(font().family(), 8));
    text->setColor(kMarkerColor);
    text->setBrush(QBrush(QColor(255, 255, 255, 210)));

    m_markers.append({timeSec, label});
    m_markerTexts.append(text);
    m_lastTimeSec = std::max(m_lastTimeSec, timeSec);
    rescale();
}

void LivePlot::rescale() {
    // The axis follows the run: its planned length, stretched when samples come later.
    xAxis->setRange(0.0, std::max(m_expectedSec > 0.0 ? m_expectedSec : kMinWindowSec, m_lastTimeSec * 1.05));
    // Labels of markers in the right part of the plot go left of their line.
    for (QCPItemText* text : std::as_const(m_markerTexts)) {
        const bool right = text->position->key() > xAxis->range().upper * 0.6;
        text->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    }
    bool found = false;
    const QCPRange tp = m_throughput->data()->valueRange(found);
    yAxis->setRange(0.0, found && tp.upper > 0.0 ? tp.upper * 1.15 : 1.0);
    const QCPRange lat = m_latency->data()->valueRange(found);
    yAxis2->setRange(0.0, found && lat.upper > 0.0 ? lat.upper * 1.15 : 1.0);
    // An empty axis reads as "latency 0": show it, and its legend entry,
    // only when this run measures latency (a bandwidth run does not).
    yAxis2->setVisible(m_latency->dataCount() > 0);
    if (m_emptyNoteItem != nullptr)
        m_emptyNoteItem->setVisible(!m_emptyNote.isEmpty() && (m_noteWithSamples || sampleCount() == 0));
    if (m_latency->dataCount() > 0) {
        m_latency->addToLegend();
    } else {
        m_latency->removeFromLegend();
    }
    replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace smclab::gui
