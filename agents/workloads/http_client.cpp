#include "http_client.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

#include <QJsonArray>

#include "client_threads.h"
#include "clock.h"
#include "http_parse.h"
#include "http_server.h"
#include "interval_reporter.h"

namespace smclab::workloads {

namespace {

using transports::Interest;

constexpr uint64_t kRateSampleNs = 100 * kNsPerMs;
constexpr size_t kReadBuffer = 64 * 1024;
// Connects block (a TCP handshake, and for smcr the CLC exchange as well), so
// a thread opens connections for at most this long before it serves the
// readiness of the ones it has; with "Connection: close" every response
// means a new connection, and 1000 of them must not starve the others or
// hold the thread past the end of the run.
constexpr uint64_t kConnectBudgetNs = 10 * kNsPerMs;

struct Errors {
    uint64_t connect = 0, read = 0, write = 0, timeout = 0, status = 0;
};

struct ClientConfig {
    std::string host;
    uint16_t port = 0;
    std::string request;  // the bytes of one request
    uint64_t timeoutNs = 0;
    uint64_t endNs = 0;
    transports::ConnectOptions connect;
};

struct Conn {
    std::unique_ptr<transports::Stream> stream;
    size_t written = 0;
    uint64_t startNs = 0;
    bool waiting = false;  // a request is in flight
    std::string head;      // response head bytes so far
    bool inBody = false;
    bool toEof = false;  // no Content-Length: the body ends with the connection
    uint64_t bodyLeft = 0;
    bool closeAfter = false;
    int status = 0;
    Interest interest = Interest::none;
    bool queued = false;  // in the connect queue (or the retry list)
};

class ClientThread {
public:
    ClientThread(const ClientConfig& config, transports::Transport& transport, int connections)
        : m_config(config), m_transport(transport), m_conns(static_cast<size_t>(connections)) {}

    std::atomic<uint64_t> requests{0};
    std::atomic<uint64_t> bytes{0};
    SharedHistogram latency;
    std::vector<double> rateSamples;
    Errors errors;
    smcr::Error fatal;
    bool failed = false;

    void run(const RunContext& ctx) {
        auto poller = m_transport.createPoller();
        if (!poller) {
            fatal = poller.error();
            failed = true;
            return;
        }
        m_poller = std::move(poller).value();
        for (Conn& c : m_conns) queueConnect(c);
        std::vector<char> buffer(kReadBuffer);
        transports::PollEvent events[256];
        uint64_t lastRateNs = monotonicNs();
        uint64_t lastRateCount = 0;
        for (;;) {
            const uint64_t now = monotonicNs();
            if (now >= m_config.endNs || ctx.stopRequested()) break;
            if (now - lastRateNs >= kRateSampleNs) {
                const uint64_t count = requests.load(std::memory_order_relaxed);
                rateSamples.push_back(static_cast<double>(count - lastRateCount) * 1e9 /
                                      static_cast<double>(now - lastRateNs));
                lastRateCount = count;
                lastRateNs = now;
                checkTimeouts(now);
            }
            connectQueued(ctx);
            const uint64_t untilEnd = (m_config.endNs - now) / kNsPerMs + 1;
            // More connections to open: only look at what is ready now.
            const int waitMs = m_connectQueue.empty() ? static_cast<int>(std::min<uint64_t>(untilEnd, 100)) : 0;
            auto ready = m_poller->wait(events, waitMs);
            if (!ready) {
                fatal = ready.error();
                failed = true;
                break;
            }
            for (size_t i = 0; i < *ready; ++i) {
                Conn& c = *static_cast<Conn*>(events[i].userData);
                if (any(events[i].ready & Interest::write) && !sendRequest(c)) continue;
                if (any(events[i].ready & Interest::read)) receive(c, buffer);
            }
        }
        for (Conn& c : m_conns) drop(c);
    }

private:
    void drop(Conn& c) {
        if (c.stream) {
            (void)m_poller->remove(*c.stream);
            c.stream.reset();
        }
        c.interest = Interest::none;
        c.waiting = false;
    }

    // Closes the connection and queues a new one (opened by connectQueued).
    void reconnect(Conn& c) {
        drop(c);
        queueConnect(c);
    }

    void queueConnect(Conn& c) {
        if (c.queued) return;
        c.queued = true;
        m_connectQueue.push_back(&c);
    }

    // Opens queued connections, oldest first, for up to kConnectBudgetNs (at
    // least one), and never past the end of the run or a stop request.
    void connectQueued(const RunContext& ctx) {
        const uint64_t startNs = monotonicNs();
        while (!m_connectQueue.empty()) {
            Conn& c = *m_connectQueue.front();
            m_connectQueue.pop_front();
            c.queued = false;
            open(c);
            const uint64_t now = monotonicNs();
            if (now - startNs >= kConnectBudgetNs || now >= m_config.endNs || ctx.stopRequested()) break;
        }
    }

    void open(Conn& c) {
        auto stream = m_transport.connect(m_config.host, m_config.port, m_config.connect);
        if (!stream) {
            ++errors.connect;
            retryLater(c);
            return;
        }
        c.stream = std::move(stream).value();
        (void)c.stream->setNonBlocking(true);
        c.interest = Interest::write;
        if (!m_poller->add(*c.stream, c.interest, &c)) {
            ++errors.connect;
            c.stream.reset();
            retryLater(c);
            return;
        }
        c.written = 0;
        startRequest(c);
    }

    // A failed connect is tried again at the next rate tick, not at once: a
    // refusing server must not turn the loop into a connect storm.
    void retryLater(Conn& c) {
        c.queued = true;
        m_retry.push_back(&c);
    }

    void startRequest(Conn& c) {
        c.written = 0;
        c.startNs = monotonicNs();
        c.waiting = true;
        c.head.clear();
        c.inBody = false;
        c.toEof = false;
        c.bodyLeft = 0;
        c.closeAfter = false;
        sendRequest(c);
    }

    void setInterest(Conn& c, Interest interest) {
        if (c.interest != interest) {
            c.interest = interest;
            (void)m_poller->modify(*c.stream, interest, &c);
        }
    }

    // Returns false when the connection was replaced.
    bool sendRequest(Conn& c) {
        if (!c.stream || !c.waiting) return true;
        while (c.written < m_config.request.size()) {
            auto n = c.stream->write(m_config.request.data() + c.written, m_config.request.size() - c.written);
            if (!n) {
                if (n.error().code == smcr::Errc::wouldBlock) {
                    setInterest(c, Interest::write);
                    return true;
                }
                ++errors.write;
                reconnect(c);
                return false;
            }
            c.written += *n;
        }
        setInterest(c, Interest::read);
        return true;
    }

    void receive(Conn& c, std::vector<char>& buffer) {
        if (!c.stream) return;
        auto n = c.stream->read(buffer.data(), buffer.size());
        if (!n) {
            if (n.error().code == smcr::Errc::wouldBlock) return;
            ++errors.read;
            reconnect(c);
            return;
        }
        if (*n == 0) {
            if (c.waiting && c.inBody && c.toEof) {
                complete(c);
            } else if (c.waiting) {
                ++errors.read;
            }
            reconnect(c);
            return;
        }
        bytes.fetch_add(*n, std::memory_order_relaxed);
        if (!c.waiting) {  // bytes nobody asked for
            ++errors.read;
            reconnect(c);
            return;
        }
        size_t used = 0;
        if (!c.inBody) {
            const size_t before = c.head.size();
            c.head.append(buffer.data(), *n);
            const http::ResponseParse parse = http::parseResponseHead(c.head);
            if (parse.state == http::ParseState::incomplete) return;
            if (parse.state == http::ParseState::error || parse.head.chunked) {
                ++errors.read;
                reconnect(c);
                return;
            }
            c.status = parse.head.status;
            c.closeAfter = parse.head.close;
            c.inBody = true;
            c.toEof = !parse.head.hasContentLength;
            c.bodyLeft = parse.head.contentLength;
            used = parse.head.headBytes - before;
        }
        const size_t available = *n - used;
        if (c.toEof) return;
        if (available > c.bodyLeft) {  // more than the response: we never pipeline
            ++errors.read;
            reconnect(c);
            return;
        }
        c.bodyLeft -= available;
        if (c.bodyLeft == 0) {
            complete(c);
            if (c.closeAfter) {
                reconnect(c);
            } else {
                startRequest(c);
            }
        }
    }

    void complete(Conn& c) {
        const uint64_t now = monotonicNs();
        latency.record(now - c.startNs);
        requests.fetch_add(1, std::memory_order_relaxed);
        if (c.status > 399) ++errors.status;
        c.waiting = false;
    }

    void checkTimeouts(uint64_t now) {
        for (Conn* c : m_retry) m_connectQueue.push_back(c);  // still marked queued
        m_retry.clear();
        for (Conn& c : m_conns) {
            if (c.stream && c.waiting && now - c.startNs > m_config.timeoutNs) {
                ++errors.timeout;
                reconnect(c);
            }
        }
    }

    const ClientConfig& m_config;
    transports::Transport& m_transport;
    std::vector<Conn> m_conns;
    std::deque<Conn*> m_connectQueue;  // to open, oldest first
    std::vector<Conn*> m_retry;        // failed connects, queued again at the next rate tick
    std::unique_ptr<transports::Poller> m_poller;
};

std::string buildRequest(const std::string& path, const std::string& host, uint16_t port, const QJsonArray& headers) {
    std::string request = "GET " + path + " HTTP/1.1\r\n";
    bool hasHost = false;
    std::string extra;
    for (const QJsonValue& h : headers) {
        const std::string line = h.toString().toStdString();
        if (line.size() >= 5 && (line.compare(0, 5, "Host:") == 0 || line.compare(0, 5, "host:") == 0)) hasHost = true;
        extra += line + "\r\n";
    }
    if (!hasHost) request += "Host: " + host + ":" + std::to_string(port) + "\r\n";
    return request + extra + "\r\n";
}

using Workers = std::vector<std::unique_ptr<ClientThread>>;

// The validated params as the client threads read them; an error names the param.
Result<ClientConfig> httpClientConfig(const RunContext& ctx, const QJsonObject& params) {
    const int threads = static_cast<int>(params.value("threads").toDouble());
    const int connections = static_cast<int>(params.value("connections").toDouble());
    if (connections < threads) {
        return smcr::fail(smcr::Errc::invalidArgument,
                          "connections: must be at least threads (" + std::to_string(threads) + ")");
    }
    const std::string path = params.value("path").toString().toStdString();
    if (path.empty() || path[0] != '/' || path.find_first_of(" \r\n") != std::string::npos) {
        return smcr::fail(smcr::Errc::invalidArgument,
                          "path: must start with '/' and contain no spaces or line breaks");
    }
    for (const QJsonValue& h : params.value("headers").toArray()) {
        const std::string line = h.toString().toStdString();
        if (line.find(':') == std::string::npos || line.find_first_of("\r\n") != std::string::npos) {
            return smcr::fail(smcr::Errc::invalidArgument, "headers: '" + line + "' is not \"Name: value\"");
        }
    }
    ClientConfig config;
    config.host = ctx.host;
    config.port = ctx.port;
    config.request = buildRequest(path, ctx.host, ctx.port, params.value("headers").toArray());
    config.timeoutNs = static_cast<uint64_t>(params.value("timeout_ms").toDouble()) * kNsPerMs;
    config.connect.timeoutMs = static_cast<int>(std::min<double>(params.value("timeout_ms").toDouble(), 5000));
    return config;
}

// Until the end of the run (or a stop): the interval samples, their
// latencies moved into `total` as they are reported.
void reportWhileRunning(const RunContext& ctx, const ClientConfig& config, uint64_t startNs, const Workers& workers,
                        HdrHistogram& total) {
    IntervalReporter reporter(ctx, startNs);
    HdrHistogram interval;
    for (;;) {
        const uint64_t now = monotonicNs();
        if (now >= config.endNs || ctx.stopRequested()) break;
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::min<uint64_t>(20, (config.endNs - now) / kNsPerMs + 1)));
        const uint64_t after = monotonicNs();
        if (reporter.due(after)) {
            uint64_t requests = 0, bytes = 0;
            for (const auto& w : workers) {
                requests += w->requests.load(std::memory_order_relaxed);
                bytes += w->bytes.load(std::memory_order_relaxed);
                w->latency.drainInto(interval);
            }
            total.merge(interval);
            reporter.report(after, bytes, requests, &interval, false);
        }
    }
}

// The threads' counts added up once they have stopped.
struct HttpTotals {
    Errors errors;
    uint64_t requests = 0, bytes = 0;
    std::vector<double> rates;  // every thread's requests/s samples
};

Result<HttpTotals> addUpWorkers(const Workers& workers, HdrHistogram& total) {
    HttpTotals t;
    for (const auto& w : workers) {
        if (w->failed) return smcr::fail(w->fatal);
        t.requests += w->requests.load();
        t.bytes += w->bytes.load();
        w->latency.drainInto(total);
        t.rates.insert(t.rates.end(), w->rateSamples.begin(), w->rateSamples.end());
        t.errors.connect += w->errors.connect;
        t.errors.read += w->errors.read;
        t.errors.write += w->errors.write;
        t.errors.timeout += w->errors.timeout;
        t.errors.status += w->errors.status;
    }
    return t;
}

// wrk's "Latency ... +/- Stdev": the share of responses within mean +/- stdev.
double latencyWithinStdevPct(const HdrHistogram& total) {
    const double meanNs = total.mean();
    const double sdNs = total.stdev();
    const double lowNs = meanNs - sdNs;
    return total.count() ? total.percentileOfValue(static_cast<uint64_t>(meanNs + sdNs)) -
                               (lowNs >= 1.0 ? total.percentileOfValue(static_cast<uint64_t>(lowNs) - 1) : 0.0)
                         : 0.0;
}

// wrk's report as the summary: rates, the Req/Sec row and the error counts.
QJsonObject httpSummary(const std::string& url, const HttpTotals& t, double seconds, const HdrHistogram& total) {
    const SampleStats rate = SampleStats::of(t.rates);
    return {
        {"url", QString::fromStdString(url)},
        {"requests", static_cast<double>(t.requests)},
        {"bytes", static_cast<double>(t.bytes)},
        {"duration_sec", seconds},
        {"requests_per_sec", seconds > 0 ? static_cast<double>(t.requests) / seconds : 0.0},
        {"transfer_bytes_per_sec", seconds > 0 ? static_cast<double>(t.bytes) / seconds : 0.0},
        {"latency_within_stdev_pct", latencyWithinStdevPct(total)},
        {"req_per_sec_thread",
         QJsonObject{
             {"mean", rate.mean}, {"stdev", rate.stdev}, {"max", rate.max}, {"within_stdev_pct", rate.withinStdevPct}}},
        {"errors", QJsonObject{{"connect", static_cast<double>(t.errors.connect)},
                               {"read", static_cast<double>(t.errors.read)},
                               {"write", static_cast<double>(t.errors.write)},
                               {"timeout", static_cast<double>(t.errors.timeout)},
                               {"status", static_cast<double>(t.errors.status)}}},
    };
}

}  // namespace

ParamSchema httpClientSchema() {
    return {
        {"threads", ParamType::integer, 2, 1, 256, {}, "client threads (wrk -t)"},
        {"connections", ParamType::integer, 10, 1, 100000, {}, "connections, split evenly over threads (wrk -c)"},
        {"duration_ms", ParamType::durationMs, 10000, 10, 86400000, {}, "test length (wrk -d)"},
        {"path", ParamType::string, QString(kDefaultHttpPath), 0, 0, {}, "request path"},
        {"headers", ParamType::stringList, QJsonArray(), 0, 0, {}, "extra request headers \"Name: value\" (wrk -H)"},
        {"timeout_ms",
         ParamType::durationMs,
         2000,
         1,
         600000,
         {},
         "a response slower than this is a timeout (wrk --timeout)"},
    };
}

Result<RunResult> runHttpClient(const RunContext& ctx) {
    auto params = validateParams(httpClientSchema(), ctx.params);
    if (!params) return smcr::fail(params.error());
    if (!ctx.transport) return smcr::fail(smcr::Errc::invalidArgument, "transport: none given");
    auto config = httpClientConfig(ctx, *params);
    if (!config) return smcr::fail(config.error());
    // Fail fast when nothing listens, rather than counting connect errors for the whole run.
    {
        auto probe = ctx.transport->connect(config->host, config->port, config->connect);
        if (!probe) return smcr::fail(probe.error());
    }
    const int threads = static_cast<int>(params->value("threads").toDouble());
    const int connections = static_cast<int>(params->value("connections").toDouble());
    const uint64_t durationNs = static_cast<uint64_t>(params->value("duration_ms").toDouble()) * kNsPerMs;
    const uint64_t startNs = monotonicNs();
    config->endNs = startNs + durationNs;
    const CpuTimes cpuStart = CpuTimes::now();
    Workers workers;
    for (int i = 0; i < threads; ++i) {
        workers.push_back(std::make_unique<ClientThread>(*config, *ctx.transport, connections / threads));
    }
    std::vector<std::thread> running;
    for (auto& w : workers) running.emplace_back([&ctx, worker = w.get()] { worker->run(ctx); });
    HdrHistogram total;
    reportWhileRunning(ctx, *config, startNs, workers, total);
    for (std::thread& t : running) t.join();
    const uint64_t endNs = monotonicNs();
    const CpuTimes cpuEnd = CpuTimes::now();
    auto totals = addUpWorkers(workers, total);
    if (!totals) return smcr::fail(totals.error());

    const double seconds = static_cast<double>(endNs - startNs) / 1e9;
    const std::string path = params->value("path").toString().toStdString();
    RunResult r;
    r.workload = "http";
    r.role = smcr::Side::client;
    r.transport = ctx.transport->name();
    r.params = *params;
    r.elapsedSec = seconds;
    r.bytes = totals->bytes;
    r.ops = totals->requests;
    r.cpu = {cpuEnd.userSec - cpuStart.userSec, cpuEnd.systemSec - cpuStart.systemSec};
    r.summary = httpSummary("http://" + ctx.host + ":" + std::to_string(ctx.port) + path, *totals, seconds, total);
    r.latency = std::move(total);
    r.counters = ctx.transport->counters();
    return r;
}

}  // namespace smclab::workloads
