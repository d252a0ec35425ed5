// iperf3 as a workload: the server role runs `iperf3 -s -B HOST -p PORT`,
// the client `iperf3 -c HOST -p PORT -t S -P N [-R | --bidir] [-l LEN] -J`
// and reports the JSON's end sums (iperf3_output.h).
#include "iperf3_output.h"
#include "tool_run.h"
#include "tool_workloads.h"

namespace smclab::workloads {

namespace {

constexpr int kMinBidirVersion = 3007;  // --bidir came with iperf 3.7

ParamSchema serverSchema() {
    return {cpuParam()};
}

ParamSchema clientSchema() {
    return {
        {"duration_ms", ParamType::durationMs, 2000, 1000, 86400000, {}, "iperf3 -t (whole seconds)"},
        {"streams", ParamType::integer, 1, 1, 128, {}, "parallel streams (-P)"},
        {"reverse", ParamType::boolean, false, 0, 0, {}, "server sends, client receives (-R)"},
        {"bidir", ParamType::boolean, false, 0, 0, {}, "both directions at once (--bidir)"},
        {"length", ParamType::size, 0, 0, 1 << 20, {}, "bytes per write (-l; 0 = iperf3's default, 128 KiB)"},
        cpuParam(),
    };
}

class Iperf3Workload final : public Workload {
public:
    std::string name() const override { return "iperf3"; }
    std::vector<std::string> headlineMetrics() const override { return {"bw_mbps"}; }
    std::string summary() const override { return "the real iperf3: TCP streams, -P, -R, --bidir"; }
    ParamSchema schema(Role role) const override { return role == Role::server ? serverSchema() : clientSchema(); }

    Result<RunResult> run(const RunContext& ctx) const override {
        auto params = validateParams(schema(ctx.role), ctx.params);
        if (!params.ok()) return smcr::fail(params.error());
        RunContext c = ctx;
        c.params = *params;
        if (ctx.role == Role::server) {
            auto port = choosePort(ctx.host, ctx.port);
            if (!port.ok()) return smcr::fail(port.error());
            auto launch =
                prepareTool(c, ToolProgram::iperf3,
                            {"-s", "-B", ctx.host.empty() ? "0.0.0.0" : ctx.host, "-p", std::to_string(*port)});
            if (!launch.ok()) return smcr::fail(launch.error());
            return serveTool(c, name(), std::move(*launch), *port);
        }
        if (ctx.role != Role::client) return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
        const bool reverse = c.params.value("reverse").toBool();
        const bool bidir = c.params.value("bidir").toBool();
        if (reverse && bidir) return smcr::fail(smcr::Errc::invalidArgument, "bidir: cannot be combined with reverse");
        std::vector<std::string> args = {"-c", ctx.host,
                                         "-p", std::to_string(ctx.port),
                                         "-t", std::to_string(wholeSeconds(c.params.value("duration_ms").toInteger())),
                                         "-P", std::to_string(c.params.value("streams").toInteger()),
                                         "-J"};
        if (reverse) args.emplace_back("-R");
        if (bidir) args.emplace_back("--bidir");
        if (const int64_t length = c.params.value("length").toInteger(); length > 0) {
            args.insert(args.end(), {"-l", std::to_string(length)});
        }
        auto launch = prepareTool(c, ToolProgram::iperf3, args, bidir ? kMinBidirVersion : 0);
        if (!launch.ok()) return smcr::fail(launch.error());
        ToolParser parse = [](const ToolExit& exit, RunResult& r) -> smcr::Status {
            auto report = parseIperf3Json(exit.out);
            if (!report.ok()) return smcr::fail(report.error());
            for (auto it = report->summary.begin(); it != report->summary.end(); ++it)
                r.summary.insert(it.key(), it.value());
            r.bytes = static_cast<uint64_t>(report->summary.value("bytes").toDouble());
            r.elapsedSec = report->summary.value("seconds").toDouble();
            return {};
        };
        return runClientTool(c, name(), std::move(*launch), parse);
    }
};

}  // namespace

const Workload& iperf3ToolWorkload() {
    static const Iperf3Workload workload;
    return workload;
}

}  // namespace smclab::workloads
