// tcp_bw and tcp_lat as registered workloads, with their parameter schemas.
#include "tcp_test_protocol.h"
#include "tcp_tests.h"
#include "workload_list.h"

namespace smclab::workloads {

ParamSchema tcpServerSchema() {
    return {
        {"max_tests",
         ParamType::integer,
         0,
         0,
         1000000,
         {},
         "finish after serving this many tests (0 = until stopped)"},
    };
}

ParamSchema tcpClientSchema(bool latency) {
    return {
        {"msg_size",
         ParamType::size,
         latency ? 1 : 65536,
         1,
         tcptest::kMaxMsgSize,
         {},
         "message size in bytes (qperf -m)"},
        {"duration_ms", ParamType::durationMs, 2000, 10, 86400000, {}, "measured time (qperf -t), after the warm-up"},
        {"warmup_ms", ParamType::durationMs, 200, 0, 600000, {}, "time before the measured window, excluded"},
        {"nodelay", ParamType::boolean, false, 0, 0, {}, "set TCP_NODELAY on both ends (qperf never does)"},
        {"verify", ParamType::boolean, false, 0, 0, {}, "send a known pattern and check every byte"},
        {"timeout_ms", ParamType::durationMs, 5000, 100, 600000, {}, "connect and end-of-test timeout"},
    };
}

namespace {

class TcpWorkload final : public Workload {
public:
    explicit TcpWorkload(bool latency) : m_latency(latency) {}
    std::string name() const override { return m_latency ? "tcp_lat" : "tcp_bw"; }
    std::vector<std::string> headlineMetrics() const override { return {m_latency ? "latency_us" : "bw_mbps"}; }
    std::string summary() const override {
        return m_latency ? "ping-pong latency, one-way = RTT/2, with percentiles (qperf tcp_lat)"
                         : "stream bandwidth counted at the receiver (qperf tcp_bw)";
    }
    ParamSchema schema(smcr::Side role) const override {
        return role == smcr::Side::server ? tcpServerSchema() : tcpClientSchema(m_latency);
    }
    Result<RunResult> run(const RunContext& ctx) const override {
        switch (ctx.role) {
            case smcr::Side::server:
                return runTcpServer(ctx, name());
            case smcr::Side::client:
                return m_latency ? runTcpLatClient(ctx) : runTcpBwClient(ctx);
            case smcr::Side::invalid:
                break;
        }
        return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
    }

private:
    bool m_latency;
};

}  // namespace

const Workload& tcpBwWorkload() {
    static const TcpWorkload workload(false);
    return workload;
}

const Workload& tcpLatWorkload() {
    static const TcpWorkload workload(true);
    return workload;
}

}  // namespace smclab::workloads
