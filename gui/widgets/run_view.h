// The single-run view of Results: one stored run's samples over time
// (throughput, latency mean/p50/p99, CPU) with its live-setting markers,
// and beside it the run's error, its settings snapshot, engine counters
// (non-zero first) and results; its samples export as CSV.
#pragma once

#include <QWidget>

#include "data/run_detail.h"

class QLabel;
class QPushButton;
class QTableWidget;
class QTabWidget;
class QCustomPlot;

namespace smclab::gui {

class RunView : public QWidget {
    Q_OBJECT
public:
    explicit RunView(QWidget* parent = nullptr);

    void setDetail(const RunDetail& detail);
    const RunDetail& detail() const { return m_detail; }

    QCustomPlot* plot() const { return m_plot; }
    QTableWidget* countersTable() const { return m_counters; }
    QTableWidget* settingsTable() const { return m_settings; }
    QString countersTabText() const;
    // The note the plot shows in place of series ("No sample arrived before
    // the run failed."); empty when it plots samples.
    QString plotNote() const;
    QString errorText() const;
    QString titleText() const;
    // The wire and host-load lines ("Wire: ...\nHost: ..."); empty when hidden.
    QString environmentText() const;
    // What the run's connections did (report::ConnectionUse::summary(), with
    // "over TCP" or "fell back" first when so); empty for runs whose client
    // did not propose SMC.
    QString connectionsText() const;
    int markerCount() const { return static_cast<int>(m_detail.changes.size()); }
    // Writes samplesCsv() to `path`; false (with *error) when it cannot.
    bool saveCsv(const QString& path, QString* error) const;

signals:
    void exportFailed(const QString& error);
    void exported(const QString& path);

private:
    void rebuildPlot();
    void fillTables();

    RunDetail m_detail;
    QLabel* m_title = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_changes = nullptr;
    QLabel* m_environment = nullptr;  // wire and host load
    QLabel* m_connections = nullptr;  // SMC-R or fallen back, with the reasons
    QCustomPlot* m_plot = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_counters = nullptr;
    QTableWidget* m_settings = nullptr;
    QTableWidget* m_results = nullptr;
    QPushButton* m_exportButton = nullptr;
};

}  // namespace smclab::gui
