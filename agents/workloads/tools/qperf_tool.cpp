// qperf as a workload: the server role runs `qperf -lp PORT`, the client
// `qperf HOST -lp PORT -m SIZE -t SECONDS -vu -vt TEST` (tcp_bw or tcp_lat,
// one message size per cell: a campaign's size loop is qperf's -oo loop).
// -vu -vt make qperf print msg_size, time and the CPU each side used
// (send/recv_cpus_used for tcp_bw, loc/rem_cpus_used for tcp_lat).
#include "qperf_output.h"
#include "tool_workload.h"
#include "tool_workloads.h"

namespace smclab::workloads {

namespace {

// One tcp_bw or tcp_lat block of qperf's output into the result.
smcr::Status fillQperfResult(const std::string& test, const ToolExit& exit, RunResult& r) {
    auto blocks = parseQperfOutput(exit.out);
    if (!blocks.ok()) return smcr::fail(blocks.error());
    if (blocks->size() != 1 || blocks->front().test != test) {
        return smcr::fail(smcr::Errc::malformed,
                          "qperf output: expected one " + test + " block, got " + std::to_string(blocks->size()));
    }
    const QJsonObject& figures = blocks->front().figures;
    insertAll(r.summary, figures);
    r.summary.insert("test", QString::fromStdString(test));
    const double timeSec = figures.value("time_sec").toDouble(r.elapsedSec);
    r.elapsedSec = timeSec;
    if (test == "tcp_bw") {
        r.bytes = static_cast<uint64_t>(figures.value("bw_MBps").toDouble() * 1e6 * timeSec);
        r.ops = static_cast<uint64_t>(figures.value("msg_rate").toDouble() * timeSec);
    } else {
        const double latencyUs = figures.value("latency_us").toDouble();
        // qperf's latency is one-way (RTT/2): a round trip per 2x.
        if (latencyUs > 0) r.ops = static_cast<uint64_t>(timeSec * 1e6 / (2 * latencyUs));
    }
    return {};
}

class QperfWorkload final : public ToolWorkload {
public:
    std::string name() const override { return "qperf"; }
    // tcp_bw's and tcp_lat's: a campaign gets a table for the one its runs measured.
    std::vector<std::string> headlineMetrics() const override { return {"bw_mbps", "latency_us"}; }
    std::string summary() const override { return "the real qperf: tcp_bw or tcp_lat, server and client"; }

protected:
    ParamSchema serverSchema() const override { return {cpuParam()}; }

    ParamSchema clientSchema() const override {
        return {
            {"test", ParamType::string, QStringLiteral("tcp_bw"), 0, 0, {"tcp_bw", "tcp_lat"}, "qperf test"},
            {"msg_size", ParamType::size, 65536, 1, 64 << 20, {}, "message size in bytes (qperf -m)"},
            {"duration_ms", ParamType::durationMs, 2000, 1000, 86400000, {}, "test time (qperf -t, whole seconds)"},
            cpuParam(),
        };
    }

    Result<ToolPlan> serverPlan(const RunContext&, uint16_t port, const std::string&) const override {
        // No port stays TCP: the control connection its server accepts and
        // hands to a forked child goes over SMC-R (engine/README.md "fork").
        return ToolPlan{.program = ToolProgram::qperf, .args = {"-lp", std::to_string(port)}};
    }

    Result<ToolPlan> clientPlan(const RunContext& ctx) const override {
        const std::string test = ctx.params.value("test").toString().toStdString();
        const auto size = static_cast<uint64_t>(ctx.params.value("msg_size").toInteger());
        const int seconds = wholeSeconds(ctx.params.value("duration_ms").toInteger());
        return ToolPlan{.program = ToolProgram::qperf,
                        .args = {ctx.host, "-lp", std::to_string(ctx.port), "-m", std::to_string(size), "-t",
                                 std::to_string(seconds), "-vu", "-vt", test},
                        .parse = [test](const ToolExit& exit, RunResult& r) { return fillQperfResult(test, exit, r); }};
    }
};

}  // namespace

const Workload& qperfToolWorkload() {
    static const QperfWorkload workload;
    return workload;
}

}  // namespace smclab::workloads
