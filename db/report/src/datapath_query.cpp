#include "smclab/report/datapath_query.h"

#include <set>

#include "smclab/report/stream_grid.h"

namespace smclab::db {

namespace {

report::ShapeColumn columnOf(const QString& label, const std::vector<report::ShapeColumn>& known) {
    for (const report::ShapeColumn& c : known) {
        if (c.label == label.toStdString()) return c;
    }
    return {label.toStdString(), label.toStdString(), false};
}

}  // namespace

smcr::Result<report::DatapathRun> storedDatapathRun(ResultStore& store, qint64 campaignId,
                                                    const std::vector<report::ShapeColumn>& known) {
    auto columns = store.columns(campaignId);
    if (!columns) return smcr::fail(columns.error());
    auto runs = store.runs(campaignId);
    if (!runs) return smcr::fail(runs.error());
    report::DatapathRun out;
    out.known = known;
    for (const QString& label : *columns) out.columns.push_back(columnOf(label, known));
    std::set<uint64_t> sizes;
    bool sawBw = false;
    bool sawLat = false;
    for (const Run& run : *runs) {
        if (run.status != RunStatus::done) continue;
        const bool bw = run.cell.workload == QLatin1String("tcp_bw");
        const bool lat = run.cell.workload == QLatin1String("tcp_lat");
        if (!bw && !lat) continue;
        sawBw = sawBw || bw;
        sawLat = sawLat || lat;
        sizes.insert(static_cast<uint64_t>(run.cell.msgSize));
        if (!out.link.empty() || run.cell.transport != QLatin1String("smcr")) continue;
        auto settings = store.settings(run.id);
        if (!settings) return smcr::fail(settings.error());
        out.link = settings->value(QStringLiteral("lab.link")).toStdString();
    }
    out.sizes.assign(sizes.begin(), sizes.end());
    std::vector<report::StreamTest> tests;
    if (sawBw) tests.push_back(report::StreamTest::bw);
    if (sawLat) tests.push_back(report::StreamTest::lat);
    auto grid = readStreamGrid(store, campaignId, out.sizes, *columns, tests);
    if (!grid) return smcr::fail(grid.error());
    out.bw = std::move(grid->bw);
    out.lat = std::move(grid->lat);
    out.bwSamples = std::move(grid->bwSamples);
    out.latSamples = std::move(grid->latSamples);
    return out;
}

}  // namespace smclab::db
