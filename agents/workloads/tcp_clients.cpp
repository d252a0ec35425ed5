// The client sides of tcp_bw and tcp_lat (qperf's client role).
//
// tcp_bw: streams msg_size messages for warmup_ms + duration_ms, then shuts
// down writing; the headline bandwidth is the server's (bytes received in its
// window / its window), like qperf. tcp_lat: ping-pongs msg_size messages;
// each round trip after warmup_ms is recorded as one-way latency RTT/2 (ns)
// in the histogram, so the mean equals qperf's latency (elapsed / messages
// received by both sides) and the percentiles come on top.
#include <cstring>
#include <vector>

#include "clock.h"
#include "interval_reporter.h"
#include "stream_io.h"
#include "tcp_test_protocol.h"
#include "tcp_tests.h"

namespace smclab::workloads {

namespace {

using namespace tcptest;

constexpr int kIoTimeoutMs = 200;

struct ClientSetup {
    QJsonObject params;
    uint32_t msgSize = 0;
    uint64_t durationNs = 0;
    uint64_t warmupNs = 0;
    int timeoutMs = 0;
    bool verify = false;
    std::unique_ptr<transports::Stream> stream;
};

Result<ClientSetup> startTest(const RunContext& ctx, TestKind test) {
    auto params = validateParams(tcpClientSchema(test == TestKind::latency), ctx.params);
    if (!params) return smcr::fail(params.error());
    if (!ctx.transport) return smcr::fail(smcr::Errc::invalidArgument, "transport: none given");
    ClientSetup setup;
    setup.params = *params;
    setup.msgSize = static_cast<uint32_t>(params->value("msg_size").toDouble());
    setup.durationNs = static_cast<uint64_t>(params->value("duration_ms").toDouble()) * kNsPerMs;
    setup.warmupNs = static_cast<uint64_t>(params->value("warmup_ms").toDouble()) * kNsPerMs;
    setup.timeoutMs = static_cast<int>(params->value("timeout_ms").toDouble());
    setup.verify = params->value("verify").toBool();
    const bool noDelay = params->value("nodelay").toBool();

    transports::ConnectOptions options;
    options.timeoutMs = setup.timeoutMs;
    options.noDelay = noDelay;
    auto stream = ctx.transport->connect(ctx.host, ctx.port, options);
    if (!stream) return smcr::fail(stream.error());
    setup.stream = std::move(stream).value();
    (void)setup.stream->setIoTimeoutMs(kIoTimeoutMs);

    Hello hello;
    hello.test = test;
    hello.msgSize = setup.msgSize;
    hello.durationMs = static_cast<uint32_t>(setup.durationNs / kNsPerMs);
    hello.warmupMs = static_cast<uint32_t>(setup.warmupNs / kNsPerMs);
    hello.flags = (noDelay ? kFlagNoDelay : 0) | (setup.verify ? kFlagVerify : 0);
    const auto helloBytes = encodeHello(hello);
    const uint64_t deadlineNs = monotonicNs() + static_cast<uint64_t>(setup.timeoutMs) * kNsPerMs;
    if (Status s = writeAll(*setup.stream, helloBytes.data(), helloBytes.size(), ctx, deadlineNs); !s) {
        return smcr::fail(s.error());
    }
    uint8_t ackBytes[kAckBytes];
    bool eof = false;
    if (Status s = readFull(*setup.stream, ackBytes, sizeof ackBytes, ctx, &eof, deadlineNs); !s || eof) {
        return smcr::fail(smcr::Errc::protocolViolation,
                          "the server did not accept the test (is it an smclab tcp server?)" +
                              (s ? std::string() : ": " + s.error().message));
    }
    auto ack = decodeAck(ackBytes, sizeof ackBytes);
    if (!ack) return smcr::fail(ack.error());
    if (*ack != AckStatus::accepted) return smcr::fail(smcr::Errc::declined, "server: " + ackStatusText(*ack));
    return setup;
}

// After the client's last message: end-of-stream, then the server's report.
Result<Report> finishTest(ClientSetup& setup, const RunContext& ctx) {
    if (Status s = setup.stream->shutdownWrite(); !s) return smcr::fail(s.error());
    // The report may wait for the server to drain its receive queue; bound the wait.
    const uint64_t deadlineNs = monotonicNs() + static_cast<uint64_t>(setup.timeoutMs) * kNsPerMs;
    uint8_t bytes[kReportBytes];
    bool eof = false;
    if (Status s = readFull(*setup.stream, bytes, kReportBytes, ctx, &eof, deadlineNs); !s || eof) {
        return smcr::fail(smcr::Errc::connectionReset,
                          "no report from the server" + (s ? std::string(" (it closed)") : ": " + s.error().message));
    }
    return decodeReport(bytes, kReportBytes);
}

double perSec(uint64_t count, uint64_t ns) {
    return ns ? static_cast<double>(count) * 1e9 / static_cast<double>(ns) : 0;
}
double nsToSec(uint64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

RunResult baseResult(const RunContext& ctx, const ClientSetup& setup, const char* workload) {
    RunResult r;
    r.workload = workload;
    r.role = smcr::Side::client;
    r.transport = ctx.transport->name();
    r.params = setup.params;
    return r;
}

}  // namespace

uint8_t patternByte(uint64_t streamOffset) {
    return static_cast<uint8_t>((streamOffset % kPatternPeriod) * 7 + 1);
}

Result<RunResult> runTcpBwClient(const RunContext& ctx) {
    auto setup = startTest(ctx, TestKind::bandwidth);
    if (!setup) return smcr::fail(setup.error());
    const size_t msgSize = setup->msgSize;
    // One buffer long enough that every message is a slice of it starting at
    // offset % period, so verify mode costs the sender nothing per message.
    std::vector<uint8_t> buffer(msgSize + kPatternPeriod);
    for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = patternByte(i);

    const uint64_t startNs = monotonicNs();
    const uint64_t openNs = startNs + setup->warmupNs;
    const uint64_t endNs = openNs + setup->durationNs;
    IntervalReporter reporter(ctx, startNs);
    uint64_t sent = 0, sentMessages = 0, windowSent = 0;
    uint64_t windowStartNs = 0, now = startNs;
    CpuTimes cpuOpen = CpuTimes::now();
    bool open = setup->warmupNs == 0;
    if (open) windowStartNs = startNs;
    while (now < endNs) {
        const uint8_t* slice = buffer.data() + (setup->verify ? sent % kPatternPeriod : 0);
        if (Status s = writeAll(*setup->stream, slice, msgSize, ctx); !s) return smcr::fail(s.error());
        sent += msgSize;
        ++sentMessages;
        now = monotonicNs();
        if (!open && now >= openNs) {
            open = true;
            windowStartNs = now;
            cpuOpen = CpuTimes::now();
        } else if (open) {
            windowSent += msgSize;
        }
        if (reporter.due(now)) reporter.report(now, sent, sentMessages, nullptr, !open);
        if (ctx.stopRequested()) break;
    }
    const CpuTimes cpuClose = CpuTimes::now();
    const uint64_t windowNs = now - windowStartNs;
    auto report = finishTest(*setup, ctx);
    if (!report) return smcr::fail(report.error());

    RunResult r = baseResult(ctx, *setup, "tcp_bw");
    r.elapsedSec = nsToSec(report->elapsedNs);
    r.bytes = report->bytes;
    r.ops = report->messages;
    r.cpu = {cpuClose.userSec - cpuOpen.userSec, cpuClose.systemSec - cpuOpen.systemSec};
    const double sendCpu = r.cpu.totalSec();
    const double recvCpu = nsToSec(report->cpuUserNs + report->cpuSystemNs);
    const double gb = static_cast<double>(report->bytes) / 1e9;
    const double windowSec = nsToSec(windowNs);
    r.summary = {{"bw_MBps", perSec(report->bytes, report->elapsedNs) / 1e6},
                 {"msg_rate", perSec(report->messages, report->elapsedNs)},
                 {"sender_bw_MBps", perSec(windowSent, windowNs) / 1e6},
                 {"send_bytes", static_cast<double>(sent)},
                 {"recv_bytes", static_cast<double>(report->totalBytes)},
                 {"send_cost_sec_per_GB", gb > 0 ? sendCpu / gb : 0.0},
                 {"recv_cost_sec_per_GB", gb > 0 ? recvCpu / gb : 0.0},
                 {"send_cpus_used", windowSec > 0 ? 100.0 * sendCpu / windowSec : 0.0},
                 {"recv_cpus_used", r.elapsedSec > 0 ? 100.0 * recvCpu / r.elapsedSec : 0.0}};
    r.counters = ctx.transport->counters();
    const transports::Counters streamCounters = setup->stream->counters();
    r.counters.insert(r.counters.end(), streamCounters.begin(), streamCounters.end());
    return r;
}

Result<RunResult> runTcpLatClient(const RunContext& ctx) {
    auto setup = startTest(ctx, TestKind::latency);
    if (!setup) return smcr::fail(setup.error());
    const size_t msgSize = setup->msgSize;
    std::vector<uint8_t> out(msgSize + kPatternPeriod);
    for (size_t i = 0; i < out.size(); ++i) out[i] = patternByte(i);
    std::vector<uint8_t> in(msgSize);

    HdrHistogram total;
    HdrHistogram interval;
    const uint64_t startNs = monotonicNs();
    const uint64_t openNs = startNs + setup->warmupNs;
    const uint64_t endNs = openNs + setup->durationNs;
    IntervalReporter reporter(ctx, startNs);
    uint64_t offset = 0, roundTrips = 0, windowRoundTrips = 0;
    uint64_t now = startNs, windowStartNs = 0, windowEndNs = 0;
    CpuTimes cpuOpen;
    bool open = false;
    while (now < endNs && !ctx.stopRequested()) {
        const uint8_t* slice = out.data() + (setup->verify ? offset % kPatternPeriod : 0);
        const uint64_t sendNs = monotonicNs();
        if (!open && sendNs >= openNs) {
            open = true;
            windowStartNs = sendNs;
            cpuOpen = CpuTimes::now();
        }
        if (Status s = writeAll(*setup->stream, slice, msgSize, ctx); !s) return smcr::fail(s.error());
        bool eof = false;
        if (Status s = readFull(*setup->stream, in.data(), msgSize, ctx, &eof); !s || eof) {
            return smcr::fail(smcr::Errc::connectionReset, eof ? "the server closed mid-test" : s.error().message);
        }
        now = monotonicNs();
        if (setup->verify && std::memcmp(in.data(), slice, msgSize) != 0) {
            return smcr::fail(smcr::Errc::protocolViolation,
                              "echo mismatch in round trip " + std::to_string(roundTrips + 1));
        }
        offset += msgSize;
        ++roundTrips;
        if (open) {
            interval.record((now - sendNs) / 2);
            ++windowRoundTrips;
            windowEndNs = now;
        }
        if (reporter.due(now)) {
            total.merge(interval);
            reporter.report(now, offset * 2, roundTrips, &interval, !open);
        }
    }
    total.merge(interval);
    const CpuTimes cpuClose = CpuTimes::now();
    auto report = finishTest(*setup, ctx);
    if (!report) return smcr::fail(report.error());

    RunResult r = baseResult(ctx, *setup, "tcp_lat");
    const uint64_t windowNs = windowEndNs > windowStartNs ? windowEndNs - windowStartNs : 0;
    r.elapsedSec = nsToSec(windowNs);
    r.bytes = windowRoundTrips * msgSize * 2;
    r.ops = windowRoundTrips;
    r.cpu = {cpuClose.userSec - cpuOpen.userSec, cpuClose.systemSec - cpuOpen.systemSec};
    const double locCpu = r.cpu.totalSec();
    const double remCpu = nsToSec(report->cpuUserNs + report->cpuSystemNs);
    r.latency = std::move(total);
    r.summary = {{"latency_us", r.latency.mean() / 1000.0},
                 {"p50_us", static_cast<double>(r.latency.valueAtPercentile(50)) / 1000.0},
                 {"p90_us", static_cast<double>(r.latency.valueAtPercentile(90)) / 1000.0},
                 {"p99_us", static_cast<double>(r.latency.valueAtPercentile(99)) / 1000.0},
                 {"p999_us", static_cast<double>(r.latency.valueAtPercentile(99.9)) / 1000.0},
                 {"max_us", static_cast<double>(r.latency.max()) / 1000.0},
                 // qperf: messages received by both sides per second.
                 {"msg_rate", perSec(windowRoundTrips * 2, windowNs)},
                 {"server_messages", static_cast<double>(report->messages)},
                 {"loc_cpus_used", r.elapsedSec > 0 ? 100.0 * locCpu / r.elapsedSec : 0.0},
                 {"rem_cpus_used", report->elapsedNs ? 100.0 * remCpu / nsToSec(report->elapsedNs) : 0.0}};
    r.counters = ctx.transport->counters();
    const transports::Counters streamCounters = setup->stream->counters();
    r.counters.insert(r.counters.end(), streamCounters.begin(), streamCounters.end());
    return r;
}

}  // namespace smclab::workloads
