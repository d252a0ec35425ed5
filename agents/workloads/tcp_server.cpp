// The server side of tcp_bw and tcp_lat (a qperf server's role).
//
// Measurement window (both tests): it opens at the first whole message that
// completes at least warmup_ms after the test's first message, and closes at
// the last message before the client's end-of-stream; the report counts the
// messages after the opening one, so bytes / window is exact.
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <QJsonArray>

#include "accept_loop.h"
#include "clock.h"
#include "connection_threads.h"
#include "stream_io.h"
#include "tcp_test_protocol.h"
#include "tcp_tests.h"

namespace smclab::workloads {

namespace {

using namespace tcptest;

constexpr int kIoTimeoutMs = 200;  // how often blocked I/O looks at the stop flag

struct ServerState {
    std::atomic<uint64_t> bytes{0};  // received (bw) or echoed (lat), all tests, warm-up included
    std::atomic<uint64_t> messages{0};
    std::atomic<uint64_t> testsDone{0};
    std::atomic<uint64_t> measuredBytes{0};
    std::atomic<uint64_t> measuredMessages{0};
    std::atomic<uint64_t> measuredNs{0};
    std::mutex mutex;
    QJsonArray tests;
    std::vector<std::string> errors;
};

uint64_t toNs(double seconds) {
    return static_cast<uint64_t>(seconds * 1e9);
}

void recordError(ServerState& state, const transports::Stream& stream, const std::string& why) {
    std::lock_guard lock(state.mutex);
    state.errors.push_back(stream.peerAddress() + ": " + why);
}

// Reads the client's hello and answers it; the test's parameters when accepted.
std::optional<Hello> acceptTest(transports::Stream& stream, const RunContext& ctx, ServerState& state) {
    uint8_t helloBytes[kHelloBytes];
    bool eof = false;
    if (Status s = readFull(stream, helloBytes, sizeof helloBytes, ctx, &eof); !s || eof) {
        if (!s) recordError(state, stream, "reading hello: " + s.error().message);
        return std::nullopt;
    }
    auto hello = decodeHello(helloBytes, sizeof helloBytes);
    AckStatus status = AckStatus::accepted;
    if (!hello) {
        status = hello.error().code == smcr::Errc::protocolViolation ? AckStatus::badVersion : AckStatus::badTest;
    } else if (hello->test != TestKind::bandwidth && hello->test != TestKind::latency) {
        status = AckStatus::badTest;
    } else if (hello->msgSize == 0 || hello->msgSize > kMaxMsgSize) {
        status = AckStatus::badSize;
    }
    const auto ack = encodeAck(status);
    if (!writeAll(stream, ack.data(), ack.size(), ctx) || status != AckStatus::accepted) {
        recordError(state, stream, "refused test: " + (hello ? ackStatusText(status) : hello.error().message));
        return std::nullopt;
    }
    return *hello;
}

// The test's messages until the client's end-of-stream (echoed for
// tcp_lat), and the measurement window over them (see the top of the file);
// none when the test broke off, the reason recorded.
std::optional<Report> receiveMessages(transports::Stream& stream, const RunContext& ctx, ServerState& state,
                                      const Hello& hello) {
    const bool latency = hello.test == TestKind::latency;
    const bool verify = (hello.flags & kFlagVerify) != 0;
    const uint64_t msgSize = hello.msgSize;
    const uint64_t warmupNs = hello.warmupMs * kNsPerMs;
    std::vector<uint8_t> buffer(msgSize);

    uint64_t firstNs = 0, openNs = 0, lastNs = 0, total = 0, windowMessages = 0;
    CpuTimes cpuOpen;
    bool open = false;
    bool eof = false;
    for (;;) {
        Status s = readFull(stream, buffer.data(), msgSize, ctx, &eof);
        if (!s) {
            recordError(state, stream, "test aborted: " + s.error().message);
            return std::nullopt;
        }
        if (eof) break;
        if (verify) {
            for (uint64_t i = 0; i < msgSize; ++i) {
                if (buffer[i] != patternByte(total + i)) {
                    recordError(state, stream, "data mismatch at stream byte " + std::to_string(total + i));
                    return std::nullopt;
                }
            }
        }
        if (latency) {
            if (Status w = writeAll(stream, buffer.data(), msgSize, ctx); !w) {
                recordError(state, stream, "echo failed: " + w.error().message);
                return std::nullopt;
            }
        }
        const uint64_t now = monotonicNs();
        total += msgSize;
        state.bytes.fetch_add(msgSize, std::memory_order_relaxed);
        state.messages.fetch_add(1, std::memory_order_relaxed);
        if (firstNs == 0) firstNs = now;
        if (!open) {
            if (now >= firstNs + warmupNs) {
                open = true;
                openNs = now;
                lastNs = now;
                cpuOpen = CpuTimes::now();
            }
            continue;
        }
        ++windowMessages;
        lastNs = now;
    }
    const CpuTimes cpuClose = CpuTimes::now();
    Report report;
    report.messages = windowMessages;
    report.bytes = windowMessages * msgSize;
    report.elapsedNs = open ? lastNs - openNs : 0;
    report.cpuUserNs = open ? toNs(cpuClose.userSec - cpuOpen.userSec) : 0;
    report.cpuSystemNs = open ? toNs(cpuClose.systemSec - cpuOpen.systemSec) : 0;
    report.totalBytes = total;
    return report;
}

// A test measured and reported to its client: its row in the run's summary.
void recordTest(ServerState& state, const transports::Stream& stream, const Hello& hello, const Report& report) {
    state.measuredBytes.fetch_add(report.bytes, std::memory_order_relaxed);
    state.measuredMessages.fetch_add(report.messages, std::memory_order_relaxed);
    state.measuredNs.fetch_add(report.elapsedNs, std::memory_order_relaxed);
    const double seconds = static_cast<double>(report.elapsedNs) / 1e9;
    std::lock_guard lock(state.mutex);
    state.tests.append(QJsonObject{
        {"test", hello.test == TestKind::latency ? "tcp_lat" : "tcp_bw"},
        {"peer", QString::fromStdString(stream.peerAddress())},
        {"msg_size", static_cast<double>(hello.msgSize)},
        {"elapsed_sec", seconds},
        {"bytes", static_cast<double>(report.bytes)},
        {"messages", static_cast<double>(report.messages)},
        {"bw_MBps", seconds > 0 ? static_cast<double>(report.bytes) / seconds / 1e6 : 0.0},
        {"msg_rate", seconds > 0 ? static_cast<double>(report.messages) / seconds : 0.0},
    });
    state.testsDone.fetch_add(1, std::memory_order_relaxed);
}

void serveTest(std::unique_ptr<transports::Stream> stream, const RunContext& ctx, ServerState& state) {
    (void)stream->setIoTimeoutMs(kIoTimeoutMs);
    const std::optional<Hello> hello = acceptTest(*stream, ctx, state);
    if (!hello) return;
    if (hello->flags & kFlagNoDelay) (void)stream->setNoDelay(true);
    const std::optional<Report> report = receiveMessages(*stream, ctx, state, *hello);
    if (!report) return;
    const auto encoded = encodeReport(*report);
    if (Status w = writeAll(*stream, encoded.data(), encoded.size(), ctx); !w) {
        recordError(state, *stream, "sending report: " + w.error().message);
        return;
    }
    recordTest(state, *stream, *hello, *report);
}

}  // namespace

Result<RunResult> runTcpServer(const RunContext& ctx, const std::string& workload) {
    auto params = validateParams(tcpServerSchema(), ctx.params);
    if (!params) return smcr::fail(params.error());
    if (!ctx.transport) return smcr::fail(smcr::Errc::invalidArgument, "transport: none given");
    const uint64_t maxTests = static_cast<uint64_t>(params->value("max_tests").toDouble());

    auto acceptor = Acceptor::listen(ctx, 128);
    if (!acceptor) return smcr::fail(acceptor.error());

    ServerState state;
    ConnectionThreads threads;
    const uint64_t startNs = monotonicNs();
    const CpuTimes cpuStart = CpuTimes::now();
    AcceptHandlers handlers;
    handlers.accepted = [&threads, &ctx, &state](std::unique_ptr<transports::Stream> stream) {
        threads.start([s = std::move(stream), &ctx, &state]() mutable { serveTest(std::move(s), ctx, state); });
    };
    handlers.totals = [&state](uint64_t* bytes, uint64_t* ops) {
        *bytes = state.bytes.load();
        *ops = state.messages.load();
    };
    handlers.finished = [&state, maxTests] { return maxTests != 0 && state.testsDone.load() >= maxTests; };
    const Status accepting = (*acceptor)->run(ctx, startNs, handlers);
    threads.joinAll();
    if (!accepting) return smcr::fail(accepting.error());

    const CpuTimes cpuEnd = CpuTimes::now();
    RunResult result;
    result.workload = workload;
    result.role = smcr::Side::server;
    result.transport = ctx.transport->name();
    result.params = *params;
    result.elapsedSec = static_cast<double>(state.measuredNs.load()) / 1e9;
    result.bytes = state.measuredBytes.load();
    result.ops = state.measuredMessages.load();
    result.cpu = {cpuEnd.userSec - cpuStart.userSec, cpuEnd.systemSec - cpuStart.systemSec};
    QJsonArray errors;
    for (const std::string& e : state.errors) errors.append(QString::fromStdString(e));
    result.summary = {{"tests", state.tests},
                      {"tests_served", static_cast<double>(state.testsDone.load())},
                      {"errors", errors},
                      {"wall_sec", static_cast<double>(monotonicNs() - startNs) / 1e9}};
    result.counters = ctx.transport->counters();
    return result;
}

}  // namespace smclab::workloads
