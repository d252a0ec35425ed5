// What the comparison view shows: for each metric (bandwidth, latency) one
// value per message size and per column, with percentages against a
// baseline column as in the patch cover letters (bench-anchors.md section 7).
#pragma once

#include <optional>

#include <QList>
#include <QString>
#include <QStringList>

#include "smclab/report/report_document.h"
#include "smclab/report/statistics.h"

namespace smclab::gui {

// bandwidth: tcp_bw's bw_mbps; latency: tcp_lat's latency_us; other: any
// further table a workload stores (requests/s of http and kv).
enum class Metric { invalid = 0, bandwidth, latency, other };

struct ComparisonSection {
    Metric metric = Metric::invalid;
    QString title;  // "Bandwidth", "Latency"
    QString unit;   // "MB/s", "us"
    bool lowerIsBetter = false;
    QList<qint64> sizesBytes;     // one row per message size
    QStringList columns;          // "SMC-NoCork", "TCP", ...
    QList<QList<double>> values;  // values[column][row]; NaN where a run is missing
    // The report's cells, same shape as values: each value's repetitions,
    // the 95% interval of its median (statistics.h) and its busy-host runs.
    QList<QList<report::Cell>> cells;
    QString workload;  // "tcp_bw": which runs a value comes from
    // Values with a run whose settings were changed live: flagged[column][row].
    QList<QList<bool>> flagged;

    int rowCount() const { return static_cast<int>(sizesBytes.size()); }
    int columnCount() const { return static_cast<int>(columns.size()); }
    double value(int column, int row) const;
    // (x / base - 1) * 100 from the unrounded values; NaN when either is
    // missing or went over TCP (a TCP figure in an SMC column is not compared).
    double percent(int column, int row, int baselineColumn) const;
    // The order-statistic confidence interval of the median; nullopt under
    // two repetitions (the error bars and the table's brackets).
    std::optional<report::Interval> interval(int column, int row) const;
    // The change against the baseline column with its interval, from the
    // repetitions of both (report::changeOf); nullopt when a side is missing.
    std::optional<report::Change> change(int column, int row, int baselineColumn) const;
    int repetitionCount(int column, int row) const;
    int busyRepetitions(int column, int row) const;
    // What the value's connections did (report::Cell, connection_use.h):
    // its data went over TCP (then no percentage either way), or some
    // connection fell back; the note says how many runs and why.
    bool overTcp(int column, int row) const;
    bool fellBack(int column, int row) const;
    QString connectionNote(int column, int row) const;
    bool isFlagged(int column, int row) const;
    // A log y axis reads bandwidth over a 1 B..64 KiB sweep (values span
    // four decades); true for bandwidth over sizes spanning at least 1 KiB : 1.
    bool prefersLogScale() const;
    bool isValid() const;
};

struct Comparison {
    QString title;
    QList<ComparisonSection> sections;
    // The report this comparison came from (tables with the stored baseline
    // first, counters, provenance): what the exports render.
    report::ReportDocument document;
    // Shown above the plots when set: what the numbers mix (live setting
    // changes during some runs).
    QString notice;
    // Shown under the notice when set: the datapath shapes' verdicts (PASS,
    // MISS, INCONCLUSIVE), as `smclab bench stream` and `smclab report` print them.
    QString verdicts;

    // One section per table, columns in the tables' order.
    static Comparison fromDocument(const report::ReportDocument& document);
    // Marks the value of `column` at `sizeBytes` in the sections of `workload`.
    void flagValue(const QString& workload, const QString& column, qint64 sizeBytes);

    bool isEmpty() const { return sections.isEmpty(); }
    const ComparisonSection* section(Metric metric) const;
    QStringList columns() const;
};

QString metricName(Metric metric);
// "[100.0, 120.0]": an interval with as many decimals as its size needs.
QString intervalBrackets(const report::Interval& interval);
// The tooltip line of a value's interval: "95% CI of the median [..] over 5
// runs", or what confidence the repetitions allow ("50.0% with 2 runs").
QString intervalToolTip(const report::Interval& interval, int repetitions);
// The tooltip line of a change's interval: "change +3.50%, 95% CI [..] %:
// within noise" (its interval contains 0 %).
QString changeToolTip(const report::Change& change);
ComparisonSection sectionFromTable(const report::ComparisonTable& table);
// "64K" for 65536, "512" for 512: the labels of the log2 size axis.
QString sizeLabel(qint64 sizeBytes);
// "+1041.21%", "-3.50%", "+0.00%": a change always carries its sign.
QString signedPercent(double percent, int decimals = 2);

}  // namespace smclab::gui
