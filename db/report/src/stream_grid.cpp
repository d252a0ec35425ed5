#include "smclab/report/stream_grid.h"

#include <algorithm>

#include <QList>

#include "smclab/db/result_store.h"
#include "smclab/report/connection_use.h"
#include "smclab/report/statistics.h"

namespace smclab::report {

const char* streamTestName(StreamTest test) {
    switch (test) {
        case StreamTest::bw:
            return "tcp_bw";
        case StreamTest::lat:
            return "tcp_lat";
        case StreamTest::invalid:
            break;
    }
    return "invalid";
}

}  // namespace smclab::report

namespace smclab::db {

using report::CounterMap;
using report::StreamGrid;
using report::StreamResult;
using report::StreamTest;

namespace {

// Every repetition of one cell.
struct CellRuns {
    QList<double> primary;  // bw_mbps or latency_us
    QList<double> p50;
    QList<double> p99;
    uint64_t messages = 0;
    QList<double> cpuUsPerMessage;
    CounterMap client;
    CounterMap server;
    bool overTcp = false;
};

double median(const QList<double>& values) {
    return report::medianOf(values).value_or(0.0);
}

StreamResult summarise(const CellRuns& runs, StreamTest test) {
    StreamResult r;
    r.repetitions = static_cast<int>(runs.primary.size());
    r.ok = r.repetitions > 0;
    if (!r.ok) return r;
    if (test == StreamTest::bw) {
        r.bwMBs = median(runs.primary);
        if (!runs.cpuUsPerMessage.isEmpty()) r.cpuUsPerMessage = median(runs.cpuUsPerMessage);
    } else {
        r.latMeanUs = median(runs.primary);
        r.latP50Us = median(runs.p50);
        r.latP99Us = median(runs.p99);
    }
    r.messages = runs.messages;
    r.clientCounters = runs.client;
    r.serverCounters = runs.server;
    r.overTcp = runs.overTcp;
    return r;
}

}  // namespace

smcr::Result<StreamGrid> readStreamGrid(db::ResultStore& store, qint64 campaignId, const std::vector<uint64_t>& sizes,
                                        const QStringList& columns, const std::vector<StreamTest>& tests) {
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    // [test][size][column]
    const auto grid = [&] {
        return std::vector<std::vector<CellRuns>>(sizes.size(), std::vector<CellRuns>(columns.size()));
    };
    std::vector<std::vector<CellRuns>> bw = grid();
    std::vector<std::vector<CellRuns>> lat = grid();
    for (const db::Run& run : *runs) {
        if (run.status != db::RunStatus::done) continue;
        const bool isBw = run.cell.workload == QLatin1String("tcp_bw");
        if (!isBw && run.cell.workload != QLatin1String("tcp_lat")) continue;
        const auto size = std::find(sizes.begin(), sizes.end(), static_cast<uint64_t>(run.cell.msgSize));
        const qsizetype column = columns.indexOf(run.cell.column);
        if (size == sizes.end() || column < 0) continue;
        auto results = store.results(run.id);
        if (!results) return smcr::fail(results.error());
        auto counters = store.counters(run.id);
        if (!counters) return smcr::fail(counters.error());
        CellRuns& cell = (isBw ? bw : lat)[static_cast<size_t>(size - sizes.begin())][static_cast<size_t>(column)];
        if (isBw) {
            cell.primary << results->value(QStringLiteral("bw_mbps"));
            // The counters cover the whole run, warm-up included, and so do the received bytes.
            const double received = results->value(QStringLiteral("recv_bytes"));
            cell.messages +=
                run.cell.msgSize > 0 ? static_cast<uint64_t>(received) / static_cast<uint64_t>(run.cell.msgSize) : 0;
            // sec/GB of each side's CPU (user + system) -> us per message.
            const QString sendCost = QStringLiteral("send_cost_sec_per_gb");
            const QString recvCost = QStringLiteral("recv_cost_sec_per_gb");
            if (results->contains(sendCost) && results->contains(recvCost)) {
                const double secPerGB = results->value(sendCost) + results->value(recvCost);
                cell.cpuUsPerMessage << secPerGB * static_cast<double>(run.cell.msgSize) / 1e3;
            }
        } else {
            cell.primary << results->value(QStringLiteral("latency_us"));
            cell.p50 << results->value(QStringLiteral("p50_us"));
            cell.p99 << results->value(QStringLiteral("p99_us"));
            cell.messages += static_cast<uint64_t>(results->value(QStringLiteral("server_messages")));
        }
        cell.overTcp = cell.overTcp || report::connectionUse(*counters).overTcp();
        for (const db::Counter& c : *counters) {
            CounterMap& side = c.side == smcr::Side::client ? cell.client : cell.server;
            side[c.name.toStdString()] += static_cast<uint64_t>(std::max<qint64>(c.value, 0));
        }
    }
    StreamGrid out;
    for (StreamTest test : tests) {
        const bool isBw = test == StreamTest::bw;
        auto& results = isBw ? out.bw : out.lat;
        auto& samples = isBw ? out.bwSamples : out.latSamples;
        const auto& cells = isBw ? bw : lat;
        results.assign(sizes.size(), std::vector<StreamResult>(columns.size()));
        samples.assign(sizes.size(), std::vector<std::vector<double>>(columns.size()));
        for (size_t i = 0; i < sizes.size(); ++i) {
            for (size_t c = 0; c < static_cast<size_t>(columns.size()); ++c) {
                results[i][c] = summarise(cells[i][c], test);
                samples[i][c].assign(cells[i][c].primary.begin(), cells[i][c].primary.end());
            }
        }
    }
    return out;
}

}  // namespace smclab::db
