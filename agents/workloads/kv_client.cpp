#include "kv_client.h"

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <QJsonArray>

#include "client_threads.h"
#include "clock.h"
#include "interval_reporter.h"
#include "resp.h"

namespace smclab::workloads {

namespace {

using transports::Interest;

constexpr std::string_view kRandPlaceholder = "__rand_int__";  // 12 characters, like the digits replacing it

struct TestSpec {
    std::string name;                  // "SET", as redis-benchmark prints it
    std::string command;               // one command's bytes
    std::vector<size_t> placeholders;  // offsets of __rand_int__ in `command`
};

struct TestConfig {
    std::string host;
    uint16_t port = 0;
    uint64_t requests = 0;
    int pipeline = 1;
    uint64_t keyspace = 0;
    bool keepAlive = true;
    transports::ConnectOptions connect;
};

TestSpec makeTest(const std::string& name, size_t dataSize) {
    TestSpec t;
    const std::string key = "key:" + std::string(kRandPlaceholder);
    if (name == "set") {
        const std::string value(dataSize, 'x');
        t.name = "SET";
        t.command = resp::encodeCommand({"SET", key, value});
    } else if (name == "get") {
        t.name = "GET";
        t.command = resp::encodeCommand({"GET", key});
    } else if (name == "ping_inline") {
        t.name = "PING_INLINE";
        t.command = "PING\r\n";
    } else {
        t.name = "PING_MBULK";
        t.command = resp::encodeCommand({"PING"});
    }
    for (size_t at = t.command.find(kRandPlaceholder); at != std::string::npos;
         at = t.command.find(kRandPlaceholder, at + 1)) {
        t.placeholders.push_back(at);
    }
    return t;
}

struct Client {
    std::unique_ptr<transports::Stream> stream;
    std::string batch;  // the commands of the batch in flight
    size_t written = 0;
    uint64_t expected = 0;  // replies still due
    uint64_t batchSize = 0;
    uint64_t startNs = 0;
    uint64_t latencyNs = 0;  // set at the batch's first readable event
    bool timed = false;
    std::string in;
    Interest interest = Interest::none;
};

class TestThread {
public:
    TestThread(const TestConfig& config, const TestSpec& spec, transports::Transport& transport,
               std::atomic<uint64_t>& issued, uint32_t seed)
        : m_config(config), m_spec(spec), m_transport(transport), m_issued(issued), m_rng(seed) {}

    std::atomic<uint64_t> replies{0};
    std::atomic<uint64_t> bytes{0};
    SharedHistogram latency;
    uint64_t errors = 0;
    uint64_t lastReplyNs = 0;
    smcr::Error fatal;
    bool failed = false;

    Status connectAll(int count) {
        auto poller = m_transport.createPoller();
        if (!poller) return smcr::fail(poller.error());
        m_poller = std::move(poller).value();
        m_clients.resize(static_cast<size_t>(count));
        for (Client& c : m_clients) {
            if (Status s = open(c); !s) return s;
        }
        return {};
    }

    void run(const RunContext& ctx) {
        for (Client& c : m_clients) m_active += startBatch(c) ? 1 : 0;
        if (failed) return;
        transports::PollEvent events[256];
        std::vector<char> buffer(64 * 1024);
        while (m_active > 0 && !ctx.stopRequested()) {
            auto ready = m_poller->wait(events, 100);
            if (!ready) {
                fatal = ready.error();
                failed = true;
                break;
            }
            const uint64_t now = monotonicNs();
            for (size_t i = 0; i < *ready; ++i) {
                Client& c = *static_cast<Client*>(events[i].userData);
                if (!c.stream) continue;
                if (any(events[i].ready & Interest::write)) send(c);
                if (any(events[i].ready & Interest::read)) receive(c, buffer, now);
                if (failed) return;
            }
        }
        for (Client& c : m_clients) close(c);
    }

private:
    Status open(Client& c) {
        auto stream = m_transport.connect(m_config.host, m_config.port, m_config.connect);
        if (!stream) return smcr::fail(stream.error());
        c.stream = std::move(stream).value();
        (void)c.stream->setNoDelay(true);  // redis-benchmark's anetTcpNoDelay
        (void)c.stream->setNonBlocking(true);
        c.interest = Interest::read;
        return m_poller->add(*c.stream, c.interest, &c);
    }

    void close(Client& c) {
        if (!c.stream) return;
        (void)m_poller->remove(*c.stream);
        c.stream.reset();
    }

    void setInterest(Client& c, Interest interest) {
        if (c.interest != interest) {
            c.interest = interest;
            (void)m_poller->modify(*c.stream, interest, &c);
        }
    }

    // Replaces the __rand_int__ placeholders of the command at `at` with 12 random digits.
    void randomize(std::string& batch, size_t at) {
        for (size_t offset : m_spec.placeholders) {
            uint64_t r = m_rng() % m_config.keyspace;
            for (size_t i = 0; i < kRandPlaceholder.size(); ++i) {
                batch[at + offset + kRandPlaceholder.size() - 1 - i] = static_cast<char>('0' + r % 10);
                r /= 10;
            }
        }
    }

    // Claims the next batch of the test's requests and writes it; false
    // (and the connection closed) when the test has no requests left.
    bool startBatch(Client& c) {
        const uint64_t first = m_issued.fetch_add(static_cast<uint64_t>(m_config.pipeline), std::memory_order_relaxed);
        if (first >= m_config.requests || !c.stream) {
            close(c);
            return false;
        }
        c.batchSize = std::min<uint64_t>(static_cast<uint64_t>(m_config.pipeline), m_config.requests - first);
        c.batch.clear();
        for (uint64_t i = 0; i < c.batchSize; ++i) {
            const size_t at = c.batch.size();
            c.batch += m_spec.command;
            if (m_config.keyspace > 0) randomize(c.batch, at);
        }
        c.written = 0;
        c.expected = c.batchSize;
        c.timed = false;
        c.startNs = monotonicNs();
        send(c);
        return true;
    }

    void send(Client& c) {
        while (c.written < c.batch.size()) {
            auto n = c.stream->write(c.batch.data() + c.written, c.batch.size() - c.written);
            if (!n) {
                if (n.error().code == smcr::Errc::wouldBlock) {
                    setInterest(c, Interest::read | Interest::write);
                    return;
                }
                fail(n.error());
                return;
            }
            c.written += *n;
        }
        setInterest(c, Interest::read);
    }

    void receive(Client& c, std::vector<char>& buffer, uint64_t now) {
        auto n = c.stream->read(buffer.data(), buffer.size());
        if (!n) {
            if (n.error().code != smcr::Errc::wouldBlock) fail(n.error());
            return;
        }
        if (*n == 0) {
            fail(smcr::makeError(smcr::Errc::connectionReset, "the server closed a client connection"));
            return;
        }
        bytes.fetch_add(*n, std::memory_order_relaxed);
        if (!c.timed) {
            c.latencyNs = now - c.startNs;
            c.timed = true;
        }
        c.in.append(buffer.data(), *n);
        size_t pos = 0;
        uint64_t got = 0;
        while (c.expected > 0) {
            size_t used = 0;
            bool isError = false;
            const resp::Parse parse = resp::skipReply(std::string_view(c.in).substr(pos), &used, &isError);
            if (parse == resp::Parse::incomplete) break;
            if (parse == resp::Parse::error) {
                fail(smcr::makeError(smcr::Errc::protocolViolation, "malformed reply from the server"));
                return;
            }
            if (isError) ++errors;
            pos += used;
            --c.expected;
            ++got;
            latency.record(c.latencyNs);
        }
        c.in.erase(0, pos);
        if (got > 0) {
            replies.fetch_add(got, std::memory_order_relaxed);
            lastReplyNs = monotonicNs();
        }
        if (c.expected == 0) {
            if (!c.in.empty()) {
                fail(smcr::makeError(smcr::Errc::protocolViolation, "more replies than commands"));
                return;
            }
            if (!m_config.keepAlive) {
                close(c);
                if (Status s = open(c); !s) {
                    fail(s.error());
                    return;
                }
            }
            if (!startBatch(c)) --m_active;
        }
    }

    void fail(const smcr::Error& error) {
        if (!failed) {
            fatal = error;
            failed = true;
        }
    }

    const TestConfig& m_config;
    const TestSpec& m_spec;
    transports::Transport& m_transport;
    std::atomic<uint64_t>& m_issued;
    std::mt19937_64 m_rng;
    std::unique_ptr<transports::Poller> m_poller;
    std::vector<Client> m_clients;
    int m_active = 0;
};

// CONFIG GET name over a short blocking connection; "" when unavailable.
std::string configValue(transports::Transport& transport, const TestConfig& config, const char* name) {
    auto stream = transport.connect(config.host, config.port, config.connect);
    if (!stream) return {};
    (void)(*stream)->setIoTimeoutMs(1000);
    const std::string cmd = resp::encodeCommand({"CONFIG", "GET", name});
    if (!(*stream)->write(cmd.data(), cmd.size())) return {};
    std::string in;
    char buf[512];
    for (int i = 0; i < 20; ++i) {
        auto n = (*stream)->read(buf, sizeof buf);
        if (!n || *n == 0) return {};
        in.append(buf, *n);
        size_t used = 0;
        bool isError = false;
        const resp::Parse p = resp::skipReply(in, &used, &isError);
        if (p == resp::Parse::incomplete) continue;
        if (p != resp::Parse::complete || isError) return {};
        // *2 $len name $len value: the value is the last bulk string.
        resp::Command parsed;
        if (resp::parseCommand(in, parsed) == resp::Parse::complete && parsed.args.size() == 2) {
            return std::string(parsed.args[1]);
        }
        return {};
    }
    return {};
}

using TestThreads = std::vector<std::unique_ptr<TestThread>>;

// How a test spreads its connections: `clients` over `threads`, each thread
// with its own key seed.
struct ClientShape {
    int clients = 0;
    int threads = 0;
    uint32_t seed = 0;
};

// Replies and bytes of the tests so far: the run's samples count on across tests.
struct RunProgress {
    uint64_t replies = 0, bytes = 0;
};

// One test's figures once its threads have stopped.
struct TestTotals {
    uint64_t replies = 0, bytes = 0, errors = 0;
    double seconds = 0;
};

void addUpProgress(const TestThreads& workers, uint64_t* replies, uint64_t* bytes) {
    *replies = 0;
    *bytes = 0;
    for (const auto& w : workers) {
        *replies += w->replies.load(std::memory_order_relaxed);
        *bytes += w->bytes.load(std::memory_order_relaxed);
    }
}

// Until the test's requests are answered (or a stop, or a thread failed):
// the interval samples, their latencies moved into `testLatency`.
void reportUntilAnswered(const RunContext& ctx, const TestConfig& config, const TestThreads& workers,
                         IntervalReporter& reporter, const RunProgress& before, HdrHistogram& testLatency) {
    HdrHistogram interval;
    for (;;) {
        uint64_t replies = 0, bytes = 0;
        addUpProgress(workers, &replies, &bytes);
        if (replies >= config.requests || ctx.stopRequested()) break;
        bool anyFailed = false;
        for (const auto& w : workers) anyFailed = anyFailed || w->failed;
        if (anyFailed) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const uint64_t now = monotonicNs();
        if (reporter.due(now)) {
            for (const auto& w : workers) w->latency.drainInto(interval);
            testLatency.merge(interval);
            addUpProgress(workers, &replies, &bytes);
            reporter.report(now, before.bytes + bytes, before.replies + replies, &interval, false);
        }
    }
}

Result<TestTotals> addUpTest(const TestThreads& workers, const TestSpec& spec, uint64_t startNs,
                             HdrHistogram& testLatency) {
    TestTotals t;
    uint64_t endNs = startNs;
    for (const auto& w : workers) {
        if (w->failed) return smcr::fail(w->fatal.code, spec.name + ": " + w->fatal.message);
        w->latency.drainInto(testLatency);
        t.replies += w->replies.load();
        t.bytes += w->bytes.load();
        t.errors += w->errors;
        endNs = std::max(endNs, w->lastReplyNs);
    }
    t.seconds = static_cast<double>(endNs - startNs) / 1e9;
    return t;
}

// One test (redis-benchmark -t NAME): its threads connect, send until the
// requests are answered, and are added up.
Result<TestTotals> runTest(const RunContext& ctx, const TestConfig& config, const TestSpec& spec,
                           const ClientShape& shape, IntervalReporter& reporter, const RunProgress& before,
                           HdrHistogram& testLatency) {
    std::atomic<uint64_t> issued{0};
    TestThreads workers;
    for (int i = 0; i < shape.threads; ++i) {
        workers.push_back(
            std::make_unique<TestThread>(config, spec, *ctx.transport, issued, shape.seed + static_cast<uint32_t>(i)));
        const int share = shape.clients / shape.threads + (i < shape.clients % shape.threads ? 1 : 0);
        if (Status s = workers.back()->connectAll(share); !s) return smcr::fail(s.error());
    }
    const uint64_t startNs = monotonicNs();
    std::vector<std::thread> running;
    for (auto& w : workers) running.emplace_back([&ctx, worker = w.get()] { worker->run(ctx); });
    reportUntilAnswered(ctx, config, workers, reporter, before, testLatency);
    for (std::thread& t : running) t.join();
    return addUpTest(workers, spec, startNs, testLatency);
}

// redis-benchmark's per-test report as a row of the summary's "tests".
QJsonObject testRow(const TestSpec& spec, const TestTotals& t, const HdrHistogram& latency) {
    const auto ms = [](double ns) { return ns / 1e6; };
    return {
        {"test", QString::fromStdString(spec.name)},
        {"requests", static_cast<double>(t.replies)},
        {"seconds", t.seconds},
        {"rps", t.seconds > 0 ? static_cast<double>(t.replies) / t.seconds : 0.0},
        {"errors", static_cast<double>(t.errors)},
        {"avg_latency_ms", ms(latency.mean())},
        {"min_latency_ms", ms(static_cast<double>(latency.min()))},
        {"p50_latency_ms", ms(static_cast<double>(latency.valueAtPercentile(50)))},
        {"p95_latency_ms", ms(static_cast<double>(latency.valueAtPercentile(95)))},
        {"p99_latency_ms", ms(static_cast<double>(latency.valueAtPercentile(99)))},
        {"max_latency_ms", ms(static_cast<double>(latency.max()))},
        {"latency_hdr_base64", QString::fromLatin1(latency.toBytes().toBase64())},
    };
}

TestConfig testConfig(const RunContext& ctx, const QJsonObject& params) {
    TestConfig config;
    config.host = ctx.host;
    config.port = ctx.port;
    config.requests = static_cast<uint64_t>(params.value("requests").toDouble());
    config.pipeline = static_cast<int>(params.value("pipeline").toDouble());
    config.keyspace = static_cast<uint64_t>(params.value("keyspace").toDouble());
    config.keepAlive = params.value("keepalive").toBool();
    return config;
}

}  // namespace

ParamSchema kvClientSchema() {
    return {
        {"clients", ParamType::integer, 50, 1, 10000, {}, "parallel connections (redis-benchmark -c)"},
        {"requests", ParamType::integer, 100000, 1, 1000000000, {}, "total requests per test (-n)"},
        {"data_size", ParamType::size, 3, 1, 64 << 20, {}, "SET value size in bytes (-d)"},
        {"pipeline", ParamType::integer, 1, 1, 10000, {}, "commands per batch (-P)"},
        {"threads", ParamType::integer, 1, 1, 64, {}, "client threads (--threads)"},
        {"tests",
         ParamType::stringList,
         QJsonArray{"set", "get"},
         0,
         0,
         {"set", "get", "ping_inline", "ping_mbulk"},
         "tests to run, in order (-t)"},
        {"keyspace", ParamType::integer, 0, 0, 1000000000000LL, {}, "random keys below this (-r); 0 = one fixed key"},
        {"keepalive", ParamType::boolean, true, 0, 0, {}, "keep connections between batches (-k 1)"},
        {"seed", ParamType::integer, 1, 0, 4294967295LL, {}, "random key seed"},
    };
}

Result<RunResult> runKvClient(const RunContext& ctx) {
    auto params = validateParams(kvClientSchema(), ctx.params);
    if (!params) return smcr::fail(params.error());
    if (!ctx.transport) return smcr::fail(smcr::Errc::invalidArgument, "transport: none given");
    const TestConfig config = testConfig(ctx, *params);
    ClientShape shape;
    shape.clients = static_cast<int>(params->value("clients").toDouble());
    shape.threads = std::min(static_cast<int>(params->value("threads").toDouble()), shape.clients);
    shape.seed = static_cast<uint32_t>(params->value("seed").toDouble());
    const size_t dataSize = static_cast<size_t>(params->value("data_size").toDouble());
    const QJsonArray testNames = params->value("tests").toArray();
    if (testNames.isEmpty()) return smcr::fail(smcr::Errc::invalidArgument, "tests: needs at least one test");

    RunResult r;
    r.workload = "kv";
    r.role = smcr::Side::client;
    r.transport = ctx.transport->name();
    r.params = *params;
    const QJsonObject serverConfig{
        {"save", QString::fromStdString(configValue(*ctx.transport, config, "save"))},
        {"appendonly", QString::fromStdString(configValue(*ctx.transport, config, "appendonly"))}};
    QJsonArray tests;
    const CpuTimes cpuStart = CpuTimes::now();
    IntervalReporter reporter(ctx, monotonicNs());
    RunProgress done;
    for (const QJsonValue& name : testNames) {
        if (ctx.stopRequested()) break;
        const TestSpec spec = makeTest(name.toString().toStdString(), dataSize);
        HdrHistogram testLatency;
        auto totals = runTest(ctx, config, spec, shape, reporter, done, testLatency);
        if (!totals) return smcr::fail(totals.error());
        done.replies += totals->replies;
        done.bytes += totals->bytes;
        tests.append(testRow(spec, *totals, testLatency));
        r.latency.merge(testLatency);
        r.elapsedSec += totals->seconds;
    }
    const CpuTimes cpuEnd = CpuTimes::now();
    r.bytes = done.bytes;
    r.ops = done.replies;
    r.cpu = {cpuEnd.userSec - cpuStart.userSec, cpuEnd.systemSec - cpuStart.systemSec};
    r.summary = {
        {"tests", tests}, {"server_config", serverConfig}, {"clients", shape.clients}, {"threads", shape.threads}};
    r.counters = ctx.transport->counters();
    return r;
}

}  // namespace smclab::workloads
