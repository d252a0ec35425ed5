#include "smclab/report/comparison_table.h"

#include <cmath>

namespace smclab::report {

std::optional<double> percentVsBaseline(std::optional<double> value, std::optional<double> base) {
    if (!value || !base || *base == 0.0) return std::nullopt;
    return (*value / *base - 1.0) * 100.0;
}

std::optional<double> percentVsBaseline(const Cell& cell, const Cell& base) {
    if (cell.overTcp() || base.overTcp()) return std::nullopt;
    return percentVsBaseline(cell.value, base.value);
}

smcr::Result<ComparisonTable> withBaseline(const ComparisonTable& table, const QString& column) {
    qsizetype index = table.columns.indexOf(column);
    if (index < 0) {
        qsizetype matches = 0;
        for (qsizetype i = 0; i < table.columns.size(); ++i) {
            if (table.columns[i].compare(column, Qt::CaseInsensitive) == 0) {
                index = i;
                ++matches;
            }
        }
        if (matches != 1) {
            const QString reason = matches == 0 ? QStringLiteral("no column") : QStringLiteral("ambiguous column");
            return smcr::fail(smcr::Errc::invalidArgument,
                              QStringLiteral("%1 '%2' in table %3 (columns: %4)")
                                  .arg(reason, column, table.title, table.columns.join(QStringLiteral(", ")))
                                  .toStdString());
        }
    }
    ComparisonTable out = table;
    if (index == 0) return out;
    if (out.colours.isEmpty()) {
        for (qsizetype c = 0; c < out.columns.size(); ++c) out.colours.append(static_cast<int>(c));
    }
    out.columns.move(index, 0);
    if (index < out.colours.size()) out.colours.move(index, 0);
    if (index < out.wires.size()) out.wires.move(index, 0);
    for (Row& row : out.rows) {
        if (index < row.cells.size()) row.cells.move(index, 0);
    }
    return out;
}

MetricInfo metricInfo(const QString& metric) {
    // Names the workloads store in the results table (db/), with the units the
    // tools users know print them in: qperf MB/sec = 1e6 B/s, one-way latency
    // in microseconds, wrk Requests/sec, redis-benchmark requests per second.
    static const MetricInfo kKnown[] = {
        {QStringLiteral("bw_mbps"), QStringLiteral("Bandwidth"), QStringLiteral("MB/s"), false},
        {QStringLiteral("latency_us"), QStringLiteral("Latency"), QStringLiteral("us"), true},
        {QStringLiteral("msg_rate"), QStringLiteral("Message rate"), QStringLiteral("msg/s"), false},
        {QStringLiteral("p50_us"), QStringLiteral("Latency p50"), QStringLiteral("us"), true},
        {QStringLiteral("p99_us"), QStringLiteral("Latency p99"), QStringLiteral("us"), true},
        {QStringLiteral("p999_us"), QStringLiteral("Latency p99.9"), QStringLiteral("us"), true},
        {QStringLiteral("rps"), QStringLiteral("Requests/sec"), QStringLiteral("req/s"), false},
        {QStringLiteral("transfer_mbps"), QStringLiteral("Transfer"), QStringLiteral("MB/s"), false},
        {QStringLiteral("cpu_client_pct"), QStringLiteral("Client CPU"), QStringLiteral("%"), true},
        {QStringLiteral("cpu_server_pct"), QStringLiteral("Server CPU"), QStringLiteral("%"), true},
    };
    for (const MetricInfo& info : kKnown) {
        if (info.metric == metric) return info;
    }
    return {metric, metric, QString(), false};
}

Cell cellFromRepetitions(const QList<double>& values) {
    Cell cell;
    if (values.isEmpty()) return cell;
    double sum = 0.0;
    for (double v : values) sum += v;
    const double mean = sum / static_cast<double>(values.size());
    double squares = 0.0;
    for (double v : values) squares += (v - mean) * (v - mean);
    // The median, not the mean: one repetition hit by a neighbour moves a
    // mean of three by a third of its excess and the median not at all.
    cell.value = medianOf(values);
    cell.spread = values.size() > 1 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) : 0.0;
    cell.repetitions = static_cast<int>(values.size());
    // One value is kept as the value alone, so a single run reads back the
    // same as a cell typed in from a letter (and has no interval either way).
    if (values.size() > 1) cell.samples = values;
    cell.interval = medianInterval(values);
    return cell;
}

std::optional<Change> changeVsBaseline(const Cell& cell, const Cell& base) {
    if (!cell.value || !base.value || cell.overTcp() || base.overTcp()) return std::nullopt;
    if (!cell.samples.isEmpty() && !base.samples.isEmpty()) {
        auto change = changeOf(cell.samples, base.samples);
        // The printed percent is always the one of the printed values.
        if (change) {
            if (const auto pct = percentVsBaseline(cell.value, base.value)) change->pct = *pct;
        }
        return change;
    }
    const auto pct = percentVsBaseline(cell.value, base.value);
    if (!pct) return std::nullopt;
    Change change;
    change.pct = *pct;
    return change;
}

}  // namespace smclab::report
