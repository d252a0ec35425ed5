// The comparison model behind every smclab report: one table per metric
// (Bandwidth, Latency, ...), rows by message size, one column per settings
// variant ("Origin SMC", "TCP", "SMC with patches"), percentages against a
// baseline column. Pure values; the db/ module builds them from stored runs,
// the formatters in formats.h turn them into text, markdown, CSV, JSON, HTML.
#pragma once

#include <optional>

#include <smcr/result.h>

#include <QList>
#include <QString>
#include <QStringList>

#include "smclab/report/statistics.h"

namespace smclab::report {

// One column's value at one message size: the median over the repetitions
// that finished, with their spread, each repetition's value and the 95%
// confidence interval of the median (statistics.h says how). A missing cell
// (run failed or not yet run) has no value. A cell built by hand from one
// number has no samples and no interval.
struct Cell {
    std::optional<double> value;       // median, in the table's unit, full precision
    double spread = 0.0;               // sample standard deviation (0 for one repetition)
    int repetitions = 0;               // how many runs the median is taken over
    QList<double> samples;             // each repetition's value, in run order; empty for one repetition
    std::optional<Interval> interval;  // of the median; nullopt under 2 repetitions
    int busyRepetitions = 0;           // repetitions that ran while the host was busy (host_state.h)
    int liveChangedRepetitions = 0;    // repetitions during which a setting was changed live
    // What the cell's connections did (connection_use.h), in columns whose
    // client proposes SMC: repetitions in which a connection fell back to
    // TCP, repetitions whose data went over TCP (the figure is then TCP's,
    // not SMC's: no percentage, no verdict), and the reasons over all its
    // repetitions ("PEERNOSMC x3"). Zero and empty elsewhere.
    int fallbackRepetitions = 0;
    int tcpRepetitions = 0;
    QString fallbackReasons;

    bool overTcp() const { return tcpRepetitions > 0; }
    bool fellBack() const { return fallbackRepetitions > 0 || tcpRepetitions > 0; }

    Cell() = default;
    // One value without its repetitions (tables typed in, single runs).
    Cell(std::optional<double> value_, double spread_, int repetitions_)
        : value(value_), spread(spread_), repetitions(repetitions_) {}

    bool operator==(const Cell&) const = default;
};

struct Row {
    qint64 msgSize = 0;  // bytes
    QList<Cell> cells;   // one per ComparisonTable::columns entry, same order

    bool operator==(const Row&) const = default;
};

// Invariant: columns[0] is the baseline. withBaseline() reorders a table so
// that a chosen column comes first (the cover letters put the baseline first
// and print it without a percentage).
struct ComparisonTable {
    QString title;               // section title: "Bandwidth", "Latency"
    QString metric;              // stored metric name: "bw_mbps", "latency_us"
    QString unit;                // printed unit: "MB/s", "us"
    bool lowerIsBetter = false;  // colouring only; the printed sign is never flipped
    QString workload;            // "tcp_bw", ... (informational)
    QStringList columns;         // column labels, baseline first
    QList<Row> rows;             // ascending msgSize
    // Per column (same order), what it ran over: "SMC-R over the sim, link
    // cx4-25g; handshake over veth ..." or "TCP over veth ..."; empty when
    // not known (tables typed in). The text output lists them after the
    // tables (format_text.h).
    QStringList wires;
    // Per column, its colour in the palette (series_palette.h): the plan
    // order's index, kept when withBaseline() moves a column first, so a
    // report's colours match the app's whatever the baseline. Empty: the
    // column's position.
    QList<int> colours;

    int colourIndex(qsizetype column) const {
        return column < colours.size() ? colours[column] : static_cast<int>(column);
    }

    bool operator==(const ComparisonTable&) const = default;
};

// (value / base - 1) * 100 from the unrounded values, as the SMC cover letters
// compute it (bench-anchors section 7). Missing when either side is missing
// or the base is zero.
std::optional<double> percentVsBaseline(std::optional<double> value, std::optional<double> base);
// The same for two cells; missing as well when either cell's data went over
// TCP (Cell::overTcp): a TCP figure in an SMC column is not compared.
std::optional<double> percentVsBaseline(const Cell& cell, const Cell& base);

// The table with `column` moved to the front (the other columns keep their
// order). Matches the label exactly, else case-insensitively if that is
// unambiguous. Unknown column: Errc::invalidArgument naming the columns.
smcr::Result<ComparisonTable> withBaseline(const ComparisonTable& table, const QString& column);

// Title, unit and direction of the metrics the workloads store (results
// table of db/). Unknown metrics get their own name as title and no unit.
struct MetricInfo {
    QString metric;
    QString title;
    QString unit;
    bool lowerIsBetter = false;
};
MetricInfo metricInfo(const QString& metric);

// Median, sample standard deviation, samples and interval of repetitions;
// empty input gives a missing cell.
Cell cellFromRepetitions(const QList<double>& values);

// The change of `cell` against `base` (the row's baseline) with its
// interval; nullopt when either has no value or went over TCP. Cells
// without samples give a change with no interval (Noise::unknown).
std::optional<Change> changeVsBaseline(const Cell& cell, const Cell& base);

}  // namespace smclab::report
