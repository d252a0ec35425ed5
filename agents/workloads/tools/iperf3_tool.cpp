// iperf3 as a workload: the server role runs `iperf3 -s -B HOST -p PORT -i
// SEC --forceflush`, whose interval lines are the run's live samples
// (iperf3_intervals.h); the client `iperf3 -c HOST -p PORT -t S -P N [-R |
// --bidir] [-l LEN] -J` reports the JSON's end sums (iperf3_output.h), which
// iperf 3.12 prints only at its end.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "iperf3_intervals.h"
#include "iperf3_output.h"
#include "tool_workload.h"
#include "tool_workloads.h"

namespace smclab::workloads {

namespace {

constexpr int kMinBidirVersion = 3007;  // --bidir came with iperf 3.7

smcr::Status fillIperf3Result(const ToolExit& exit, RunResult& r) {
    auto report = parseIperf3Json(exit.out);
    if (!report.ok()) return smcr::fail(report.error());
    insertAll(r.summary, report->summary);
    r.bytes = static_cast<uint64_t>(report->summary.value("bytes").toDouble());
    r.elapsedSec = report->summary.value("seconds").toDouble();
    return {};
}

// -i in seconds from the run's sample interval (iperf3 takes 0.1..60; 0 = none).
std::string intervalSeconds(int sampleIntervalMs) {
    if (sampleIntervalMs <= 0) return "0";
    char text[16];
    std::snprintf(text, sizeof text, "%g", std::clamp(sampleIntervalMs / 1000.0, 0.1, 60.0));
    return text;
}

ToolIntervalReader iperf3IntervalReader() {
    auto text = std::make_shared<Iperf3IntervalText>();
    return [text](std::string_view more) {
        std::vector<Sample> samples;
        for (const Iperf3Interval& interval : text->feed(more)) {
            Sample sample;
            sample.intervalSec = interval.seconds;
            sample.bytes = static_cast<uint64_t>(interval.bytes);
            samples.push_back(sample);
        }
        return samples;
    };
}

class Iperf3Workload final : public ToolWorkload {
public:
    std::string name() const override { return "iperf3"; }
    std::vector<std::string> headlineMetrics() const override { return {"bw_mbps"}; }
    std::string summary() const override { return "the real iperf3: TCP streams, -P, -R, --bidir"; }

protected:
    ParamSchema serverSchema() const override { return {cpuParam()}; }

    ParamSchema clientSchema() const override {
        return {
            {"duration_ms", ParamType::durationMs, 2000, 1000, 86400000, {}, "iperf3 -t (whole seconds)"},
            {"streams", ParamType::integer, 1, 1, 128, {}, "parallel streams (-P)"},
            {"reverse", ParamType::boolean, false, 0, 0, {}, "server sends, client receives (-R)"},
            {"bidir", ParamType::boolean, false, 0, 0, {}, "both directions at once (--bidir)"},
            {"length", ParamType::size, 0, 0, 1 << 20, {}, "bytes per write (-l; 0 = iperf3's default, 128 KiB)"},
            cpuParam(),
        };
    }

    Result<ToolPlan> serverPlan(const RunContext& ctx, uint16_t port, const std::string&) const override {
        return ToolPlan{.program = ToolProgram::iperf3,
                        .args = {"-s", "-B", listenAddress(ctx), "-p", std::to_string(port), "-i",
                                 intervalSeconds(ctx.sampleIntervalMs), "--forceflush"},
                        .intervals = iperf3IntervalReader()};
    }

    Result<ToolPlan> clientPlan(const RunContext& ctx) const override {
        const bool reverse = ctx.params.value("reverse").toBool();
        const bool bidir = ctx.params.value("bidir").toBool();
        if (reverse && bidir) return smcr::fail(smcr::Errc::invalidArgument, "bidir: cannot be combined with reverse");
        ToolPlan plan{.program = ToolProgram::iperf3,
                      .args = {"-c", ctx.host, "-p", std::to_string(ctx.port), "-t",
                               std::to_string(wholeSeconds(ctx.params.value("duration_ms").toInteger())), "-P",
                               std::to_string(ctx.params.value("streams").toInteger()), "-J"},
                      .minVersion = bidir ? kMinBidirVersion : 0};
        if (reverse) plan.args.emplace_back("-R");
        if (bidir) plan.args.emplace_back("--bidir");
        if (const int64_t length = ctx.params.value("length").toInteger(); length > 0) {
            plan.args.insert(plan.args.end(), {"-l", std::to_string(length)});
        }
        plan.parse = fillIperf3Result;
        return plan;
    }
};

}  // namespace

const Workload& iperf3ToolWorkload() {
    static const Iperf3Workload workload;
    return workload;
}

}  // namespace smclab::workloads
