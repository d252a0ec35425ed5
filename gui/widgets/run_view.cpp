#include "widgets/run_view.h"

#include <cmath>

#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "data/run_environment.h"
#include "data/run_provenance.h"
#include "data/series_palette.h"
#include "smclab/report/comparison_table.h"
#include "smclab/report/connection_use.h"

namespace smclab::gui {

namespace {

const QColor kMarkerColor(0x55, 0x55, 0x55);

struct SeriesStyle {
    const char* metric;
    const char* label;
    int axis;  // 0 throughput (left), 1 latency (right), 2 CPU (second right)
    int colour;
    Qt::PenStyle pen;
};

// Throughput, latency and CPU each on an axis of their own unit.
constexpr SeriesStyle kSeries[] = {
    {"throughput_mbps", "throughput, client (MB/s)", 0, 0, Qt::SolidLine},
    {"server_throughput_mbps", "throughput, server (MB/s)", 0, 5, Qt::DashLine},
    {"latency_mean_us", "latency mean (us)", 1, 1, Qt::SolidLine},
    {"latency_p50_us", "latency p50 (us)", 1, 2, Qt::DashLine},
    {"latency_p99_us", "latency p99 (us)", 1, 3, Qt::DotLine},
    {"cpu_client_pct", "CPU client (%)", 2, 4, Qt::SolidLine},
    {"cpu_server_pct", "CPU server (%)", 2, 6, Qt::DashLine},
};

QTableWidget* newTable(QWidget* parent, const QStringList& headers) {
    auto* table = new QTableWidget(parent);
    table->setColumnCount(static_cast<int>(headers.size()));
    table->setHorizontalHeaderLabels(headers);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    return table;
}

}  // namespace

RunView::RunView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_title = new QLabel(this);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    bar->addWidget(m_title, 1);
    m_exportButton = new QPushButton(tr("Export samples (CSV)..."), this);
    m_exportButton->setToolTip(tr("This run's samples, one row per interval, one column per metric"));
    bar->addWidget(m_exportButton);
    layout->addLayout(bar);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("runError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { background: #f8d7da; color: #222; padding: 4px; }"));
    layout->addWidget(m_error);
    // One line for every run, changed live or not (the full text in the
    // tooltip): the plot and the tabs below stay where they are when the
    // next run selected has, or has not, a live change.
    m_changes = new QLabel(this);
    m_changes->setObjectName(QStringLiteral("runChanges"));
    m_changes->setWordWrap(false);
    m_changes->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    layout->addWidget(m_changes);
    m_environment = new QLabel(this);
    m_environment->setObjectName(QStringLiteral("runEnvironment"));
    m_environment->setWordWrap(true);
    m_environment->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_environment);
    m_connections = new QLabel(this);
    m_connections->setObjectName(QStringLiteral("runConnections"));
    m_connections->setWordWrap(true);
    m_connections->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_connections);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    m_plot = new QCustomPlot(splitter);
    m_plot->setMinimumSize(360, 240);
    // The legend in a row below the axes: inside, it covered the samples.
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, m_plot->legend);
    // A grid's widest is the sum of its elements' widest, and an empty
    // legend's is its margins: a run without series capped the plot's one
    // column there, and the axes collapsed to their minimum with the ticks
    // on top of each other. A set maximum overrides that; it must stay below
    // the widget limit once QCustomPlot adds the margins, or it is ignored.
    constexpr int kWiderThanAnyScreen = 1 << 20;
    legendRow->setMaximumSize(kWiderThanAnyScreen, QWIDGETSIZE_MAX);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_tabs = new QTabWidget(splitter);
    m_counters = newTable(m_tabs, {tr("Side"), tr("Counter"), tr("Value")});
    m_settings = newTable(m_tabs, {tr("Setting"), tr("Value at start")});
    m_results = newTable(m_tabs, {tr("Result"), tr("Value")});
    m_tabs->addTab(m_counters, tr("Counters"));
    m_tabs->addTab(m_settings, tr("Settings"));
    m_tabs->addTab(m_results, tr("Results"));
    splitter->addWidget(m_plot);
    splitter->addWidget(m_tabs);
    // The plot takes the width; the tables need little.
    m_tabs->setMaximumWidth(460);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);

    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Export run samples"),
                                         QStringLiteral("run-%1-samples.csv").arg(m_detail.run.id), tr("CSV (*.csv)"));
        if (path.isEmpty()) return;
        QString error;
        if (saveCsv(path, &error)) {
            emit exported(path);
        } else {
            emit exportFailed(error);
        }
    });
    setDetail({});
}

void RunView::setDetail(const RunDetail& detail) {
    m_detail = detail;
    const db::Run& run = detail.run;
    m_title->setText(run.id > 0
                         ? tr("Run %1: %2 (%3)").arg(run.id).arg(runCellText(run.cell), db::statusName(run.status))
                         : tr("No run selected"));
    const bool failed = run.status == db::RunStatus::failed;
    m_error->setText(failed ? tr("Failed: %1").arg(run.error.isEmpty() ? tr("no reason recorded") : run.error)
                            : QString());
    m_error->setVisible(failed);
    const QString changes =
        detail.changes.isEmpty()
            ? tr("No setting was changed live during this run.")
            : QStringLiteral("\u2691 ") + tr("Settings changed live during this run: %1 "
                                             "(acknowledged by %2). Its numbers mix configurations.")
                                              .arg(liveChangesText(detail.changes), detail.acknowledgedBy);
    m_changes->setText(changes);
    m_changes->setToolTip(changes);
    m_changes->setStyleSheet(detail.changes.isEmpty()
                                 ? QStringLiteral("QLabel { color: #777; padding: 4px; }")
                                 : QStringLiteral("QLabel { background: #fff3cd; color: #222; padding: 4px; }"));
    m_changes->setVisible(run.id > 0);
    QStringList environment;
    if (const QString wire = wireText(detail.clientFacts); !wire.isEmpty()) environment << tr("Wire: %1").arg(wire);
    if (const QString load = hostLoadText(detail.clientFacts); !load.isEmpty())
        environment << (hostBusy(detail.clientFacts) ? QStringLiteral("\u2691 ") : QString()) +
                           tr("Host: %1").arg(load);
    m_environment->setText(environment.join(QLatin1Char('\n')));
    m_environment->setStyleSheet(hostBusy(detail.clientFacts)
                                     ? QStringLiteral("QLabel { background: #fff3cd; color: #222; padding: 4px; }")
                                     : QString());
    m_environment->setVisible(!environment.isEmpty());
    // What the connections did: a run of an SMC column that fell
    // back says so, with the reasons, before its numbers are read as SMC.
    const report::ConnectionUse use = report::connectionUse(detail.counters);
    QString connections;
    if (use.overTcp()) {
        connections =
            QStringLiteral("\u2691 ") + tr("Over TCP, not SMC-R: %1. Its numbers are TCP's.").arg(use.summary());
    } else if (use.fellBack()) {
        connections = QStringLiteral("\u2691 ") + tr("Connections fell back to TCP: %1").arg(use.summary());
    } else if (use.judged) {
        connections = tr("Connections: %1").arg(use.summary());
    }
    m_connections->setText(connections);
    m_connections->setStyleSheet(use.overTcp() || use.fellBack()
                                     ? QStringLiteral("QLabel { background: #f8d7da; color: #222; padding: 4px; }")
                                     : QString());
    m_connections->setVisible(!connections.isEmpty());
    m_exportButton->setEnabled(!detail.samples.isEmpty());
    rebuildPlot();
    fillTables();
}

QString RunView::errorText() const {
    return m_error->isVisibleTo(this) ? m_error->text() : QString();
}

QString RunView::environmentText() const {
    return m_environment->isVisibleTo(this) ? m_environment->text() : QString();
}

QString RunView::connectionsText() const {
    return m_connections->isVisibleTo(this) ? m_connections->text() : QString();
}

QString RunView::countersTabText() const {
    return m_tabs->tabText(0);
}

QString RunView::plotNote() const {
    for (int i = 0; i < m_plot->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(m_plot->item(i));
        if (text != nullptr && text->objectName() == QLatin1String("noSamplesNote")) return text->text();
    }
    return {};
}

QString RunView::titleText() const {
    return m_title->text();
}

void RunView::rebuildPlot() {
    m_plot->clearGraphs();
    m_plot->clearItems();
    QCPAxisRect* rect = m_plot->axisRect();
    // The CPU axis is created once and reused.
    QCPAxis* cpuAxis =
        rect->axisCount(QCPAxis::atRight) > 1 ? rect->axis(QCPAxis::atRight, 1) : rect->addAxis(QCPAxis::atRight);
    QCPAxis* axes[] = {m_plot->yAxis, m_plot->yAxis2, cpuAxis};
    m_plot->xAxis->setLabel(tr("time since the run's start (s)"));
    m_plot->yAxis->setLabel(tr("throughput (MB/s)"));
    m_plot->yAxis2->setLabel(tr("latency (us)"));
    cpuAxis->setLabel(tr("CPU (%)"));
    bool used[3] = {false, false, false};
    double maxT = 0.0;
    for (const SeriesStyle& style : kSeries) {
        QVector<double> keys;
        QVector<double> values;
        for (const db::Sample& s : m_detail.samples) {
            if (s.metric == QLatin1String(style.metric)) {
                keys.append(static_cast<double>(s.tMs) / 1000.0);
                values.append(s.value);
            }
        }
        // A series of zeros (a side that measured nothing) only hides the others.
        const bool allZero = std::all_of(values.begin(), values.end(), [](double v) { return v == 0.0; });
        if (keys.isEmpty() || allZero) continue;
        QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, axes[style.axis]);
        graph->setName(tr(style.label));
        graph->setPen(QPen(seriesColor(style.colour), 1.6, style.pen));
        graph->setData(keys, values, true);
        used[style.axis] = true;
        maxT = std::max(maxT, keys.back());
    }
    for (int i = 0; i < 3; ++i) {
        axes[i]->setVisible(used[i]);
        if (used[i]) {
            bool found = false;
            double upper = 0.0;
            for (int g = 0; g < m_plot->graphCount(); ++g) {
                if (m_plot->graph(g)->valueAxis() != axes[i]) continue;
                const QCPRange range = m_plot->graph(g)->data()->valueRange(found);
                if (found) upper = std::max(upper, range.upper);
            }
            axes[i]->setRange(0.0, upper > 0.0 ? upper * 1.15 : 1.0);
        }
    }
    m_plot->xAxis->setRange(0.0, std::max(1.0, maxT * 1.03));
    for (const db::SettingChange& change : m_detail.changes) {
        const double t = static_cast<double>(change.tMs) / 1000.0;
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(t, 0.0);
        line->point2->setCoords(t, 1.0);
        line->setPen(QPen(kMarkerColor, 1.0, Qt::DashLine));
        auto* text = new QCPItemText(m_plot);
        text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(t, 0.03);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setText(QStringLiteral("%1=%2").arg(change.name, change.value));
        text->setFont(QFont(font().family(), 8));
        text->setColor(kMarkerColor);
        text->setBrush(QBrush(QColor(255, 255, 255, 210)));
    }
    if (m_plot->graphCount() == 0 && m_detail.run.id > 0) {
        // No series: say why in place of an empty frame.
        auto* note = new QCPItemText(m_plot);
        note->setObjectName(QStringLiteral("noSamplesNote"));
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.45);
        note->setPositionAlignment(Qt::AlignCenter);
        note->setPadding(QMargins(8, 6, 8, 6));
        note->setColor(QColor(0x44, 0x44, 0x44));
        note->setBrush(QBrush(QColor(0xf4, 0xf4, 0xf4)));
        note->setText(m_detail.run.status == db::RunStatus::failed ? tr("No sample arrived before the run failed.")
                                                                   : tr("No samples were stored for this run."));
    }
    m_plot->legend->setVisible(m_plot->graphCount() > 0);
    m_plot->legend->setFont(QFont(font().family(), 8));
    m_plot->replot();
}

void RunView::fillTables() {
    m_counters->setRowCount(static_cast<int>(m_detail.counters.size()));
    const QColor zeroColour(0x99, 0x99, 0x99);
    for (int r = 0; r < m_detail.counters.size(); ++r) {
        const db::Counter& c = m_detail.counters[r];
        auto* side = new QTableWidgetItem(QLatin1String(smcr::sideName(c.side)));
        auto* name = new QTableWidgetItem(c.name);
        // Thousands separators, as on the Run page's counters.
        auto* value = new QTableWidgetItem(QLocale().toString(c.value));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (c.value == 0) {
            for (QTableWidgetItem* item : {side, name, value}) item->setForeground(zeroColour);
        }
        m_counters->setItem(r, 0, side);
        m_counters->setItem(r, 1, name);
        m_counters->setItem(r, 2, value);
    }
    m_tabs->setTabText(
        0, m_detail.counters.isEmpty()
               ? (m_detail.run.status == db::RunStatus::failed ? tr("Counters (none before the failure)")
                                                               : tr("Counters (none stored)"))
               : tr("Counters (%1 non-zero of %2)").arg(m_detail.nonZeroCounterCount()).arg(m_detail.counters.size()));
    m_settings->setRowCount(static_cast<int>(m_detail.settings.size()));
    int row = 0;
    for (auto it = m_detail.settings.begin(); it != m_detail.settings.end(); ++it, ++row) {
        m_settings->setItem(row, 0, new QTableWidgetItem(it.key()));
        m_settings->setItem(row, 1, new QTableWidgetItem(it.value()));
    }
    m_results->setRowCount(static_cast<int>(m_detail.results.size()));
    row = 0;
    for (auto it = m_detail.results.begin(); it != m_detail.results.end(); ++it, ++row) {
        // The report's name and unit where the metric has one ("Bandwidth
        // (MB/s)" for bw_mbps), the stored key in the tooltip.
        const report::MetricInfo info = report::metricInfo(it.key());
        auto* name = new QTableWidgetItem(
            info.title == it.key()
                ? it.key()
                : (info.unit.isEmpty() ? info.title : QStringLiteral("%1 (%2)").arg(info.title, info.unit)));
        name->setToolTip(it.key());
        m_results->setItem(row, 0, name);
        // Counts stay integers ("recv_bytes 4,000,000", not "4000000.000").
        const double v = it.value();
        const bool integral = std::abs(v) < 9e15 && v == std::floor(v);
        auto* value =
            new QTableWidgetItem(integral ? QLocale().toString(static_cast<qint64>(v)) : QLocale().toString(v, 'f', 3));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_results->setItem(row, 1, value);
    }
}

bool RunView::saveCsv(const QString& path, QString* error) const {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(m_detail.samplesCsv().toUtf8());
    if (!file.flush()) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

}  // namespace smclab::gui
