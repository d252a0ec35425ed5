// smclab bench accept: the cost of a libsmcr listener for plain TCP clients
// (seed 003, "shadow sockets for fallback connections": wrk with
// "Connection: Close" against nginx, TCP 145438 req/s, SMC-R fallback
// 114192, with the fallback accept queue 143528 = 98.7% of TCP).
//
// Short connections: each client thread connects with kernel TCP, sends one
// request ({u32 length, payload}), reads the echoed reply and the server's
// close, and connects again. The server (this program re-executed with
// --serve, one thread: accept, read, reply, close) listens with kernel TCP
// or with an smcr::Listener on the sim fabric with lab.fast_fallback off or
// on. Per column: connections per second over all clients, and p50/p99 of
// connect + request latency (connect() to the last reply byte). The columns
// run interleaved, --reps times, in alternating order, so a host whose load
// drifts hurts none of them more than the others; cells are means.
#include <arpa/inet.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <smcr/engine.h>
#include <smcr/settings.h>

#include <smclab/report/comparison_table.h>
#include <smclab/report/format_text.h>

#include "args.h"
#include "bench_commands.h"
#include "bench_local.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench accept";
constexpr uint32_t kStatsRequest = 0xFFFFFFFFu;  // length word asking the server for its engine counters
constexpr uint32_t kMaxRequestBytes = 1u << 20;

// ---- server ---------------------------------------------------------------

// Reads one request and answers it; the caller closes (server first, so the
// TIME_WAIT state stays here and the clients never run out of ports).
void serveOne(BenchConn& c, const std::shared_ptr<smcr::Engine>& engine, std::vector<uint8_t>& buf) {
    uint32_t lenBe = 0;
    if (!c.recvAll(&lenBe, sizeof lenBe)) return;
    const uint32_t len = ntohl(lenBe);
    if (len == kStatsRequest) {
        // The process's CPU time (all threads), then the engine counters.
        rusage usage{};
        ::getrusage(RUSAGE_SELF, &usage);
        const uint64_t cpuUs = static_cast<uint64_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000 +
                               static_cast<uint64_t>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
        std::string text = "cpu_us " + std::to_string(cpuUs) + "\n";
        if (engine) {
            for (const auto& [name, value] : engine->stats().flatten()) {
                text += name + " " + std::to_string(value) + "\n";
            }
        }
        const uint32_t textLen = htonl(static_cast<uint32_t>(text.size()));
        if (c.sendAll(&textLen, sizeof textLen)) c.sendAll(text.data(), text.size());
        return;
    }
    if (len > kMaxRequestBytes) return;
    buf.resize(len);
    if (!c.recvAll(buf.data(), len)) return;
    c.sendAll(buf.data(), len);  // the reply: the request echoed
}

int runServer(const std::string& transport, const SettingList& settings, bool pin) {
    if (pin) pinToCpu(1);
    std::shared_ptr<smcr::Engine> engine;
    if (transport == "smcr") {
        engine = makeBenchEngine(settings, kWho);
        if (!engine) return kExitFailure;
    }
    auto listener = listenBench(transport, engine, kWho, 128);
    if (!listener) return kExitFailure;
    std::printf("PORT %u\n", listener->port());
    std::fflush(stdout);
    std::vector<uint8_t> buf;
    for (;;) {
        auto conn = listener->accept();
        if (!conn) return kExitFailure;
        serveOne(*conn, engine, buf);
    }
}

// ---- client ---------------------------------------------------------------

struct RunResult {
    bool ok = false;
    double connPerSec = 0;
    double p50Us = 0;
    double p99Us = 0;
    uint64_t connections = 0;
    uint64_t failures = 0;
    std::string error;
};

// One connection: connect, request, reply, the server's close. Returns the
// latency in ns, or 0 on failure.
uint64_t oneConnection(uint16_t port, const std::vector<uint8_t>& request, std::vector<uint8_t>& reply) {
    const uint64_t t0 = nowNs();
    const int fd = connectLoopback(port);
    if (fd < 0) return 0;
    const std::unique_ptr<BenchConn> c = tcpBenchConn(fd);
    bool ok = c->sendAll(request.data(), request.size()) && c->recvAll(reply.data(), reply.size());
    const uint64_t t1 = nowNs();
    ok = ok && std::memcmp(reply.data(), request.data() + 4, reply.size()) == 0;
    char eof;
    ok = ok && c->recv(&eof, 1) == 0;  // the server closes first
    return ok ? std::max<uint64_t>(t1 - t0, 1) : 0;
}

RunResult runClients(uint16_t port, uint32_t requestBytes, int clients, uint64_t durationMs) {
    RunResult r;
    std::vector<uint8_t> request(4 + requestBytes);
    const uint32_t lenBe = htonl(requestBytes);
    std::memcpy(request.data(), &lenBe, 4);
    for (uint32_t i = 0; i < requestBytes; ++i) request[4 + i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<std::vector<uint32_t>> latencies(static_cast<size_t>(clients));
    std::vector<uint64_t> failures(static_cast<size_t>(clients), 0);
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    const uint64_t start = nowNs();
    const uint64_t end = start + durationMs * 1000000;
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
            std::vector<uint8_t> reply(requestBytes);
            auto& mine = latencies[static_cast<size_t>(c)];
            mine.reserve(1 << 18);
            while (!stop.load(std::memory_order_relaxed) && nowNs() < end) {
                const uint64_t ns = oneConnection(port, request, reply);
                if (ns == 0) {
                    if (++failures[static_cast<size_t>(c)] > 100) return;
                    continue;
                }
                mine.push_back(static_cast<uint32_t>(std::min<uint64_t>(ns, UINT32_MAX)));
            }
        });
    }
    for (auto& t : threads) t.join();
    const uint64_t elapsed = nowNs() - start;
    std::vector<uint32_t> all;
    for (const auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
    for (uint64_t f : failures) r.failures += f;
    r.connections = all.size();
    if (all.empty()) {
        r.error = "no connection completed";
        return r;
    }
    std::sort(all.begin(), all.end());
    r.connPerSec = static_cast<double>(all.size()) * 1e9 / static_cast<double>(elapsed);
    r.p50Us = all[all.size() / 2] / 1000.0;
    r.p99Us = all[std::min(all.size() - 1, all.size() * 99 / 100)] / 1000.0;
    r.ok = r.failures == 0;
    if (!r.ok) r.error = std::to_string(r.failures) + " connections failed";
    return r;
}

// The server's engine counters ("name value" lines) through a stats request.
std::string serverCounters(uint16_t port) {
    const int fd = connectLoopback(port);
    if (fd < 0) return {};
    const std::unique_ptr<BenchConn> c = tcpBenchConn(fd);
    const uint32_t ask = htonl(kStatsRequest);
    std::string text;
    uint32_t lenBe = 0;
    if (c->sendAll(&ask, sizeof ask) && c->recvAll(&lenBe, sizeof lenBe)) {
        text.resize(ntohl(lenBe));
        if (!c->recvAll(text.data(), text.size())) text.clear();
    }
    return text;
}

uint64_t counterValue(const std::string& text, const std::string& name) {
    const std::string key = name + " ";
    size_t at = 0;
    while ((at = text.find(key, at)) != std::string::npos) {
        if (at == 0 || text[at - 1] == '\n') return std::strtoull(text.c_str() + at + key.size(), nullptr, 10);
        at += key.size();
    }
    return 0;
}

struct Column {
    const char* label;
    const char* listener;
    const char* fastFallback;  // nullptr: kernel listener
};

const Column kColumns[] = {
    {"TCP listener", "tcp", nullptr},
    {"fast_fallback off", "smcr", "off"},
    {"fast_fallback on", "smcr", "on"},
};

void printHelp() {
    std::printf(
        "usage: smclab bench accept [-t SECONDS] [--clients N] [--request BYTES] [--reps N]\n"
        "                           [--set NAME=VALUE]... [--no-pin]\n"
        "\n"
        "Short connections from plain TCP clients (connect, one request, the echoed\n"
        "reply, the server's close) against three servers on this host: a kernel TCP\n"
        "listener, and an smcr::Listener with lab.fast_fallback off and on. Prints\n"
        "connections/s, p99 and p50 connect+request latency and the server's CPU time\n"
        "per connection in the patch layout, in percent of the TCP listener\n"
        "(seed 003: fast fallback on reached 98.7%% of TCP where the SMC-R fallback\n"
        "path made 78.5%%).\n"
        "\n"
        "options:\n"
        "  -t SECONDS       time per column and repetition (default 2; 500ms works)\n"
        "  --clients N      client threads, each one connection at a time (default 1;\n"
        "                   more measure the one-thread server's head-of-line blocking)\n"
        "  --request BYTES  request size, echoed as the reply (default 64)\n"
        "  --reps N         repetitions, column order alternating (default 3)\n"
        "  --set NAME=VAL   a libsmcr setting for both libsmcr servers (limit_smc_hs=on, ...)\n"
        "  --no-pin         do not pin the clients to CPU 0 and the servers to CPU 1\n");
}

int usage(const std::string& message) {
    std::fprintf(stderr, "smclab bench accept: %s\n(see smclab bench accept --help)\n", message.c_str());
    return kExitUsage;
}

}  // namespace

int runBenchAccept(const Args& args) {
    uint64_t durationMs = 2000;
    // One client by default: against a one-thread server several clients
    // measure head-of-line blocking (a TCP server that accepted a connection
    // waits in recv() for its request while others' requests are there; a
    // libsmcr listener hands out connections whose first bytes arrived),
    // not the cost of the accept path.
    int clients = 1;
    uint64_t requestBytes = 64;
    int reps = 3;
    bool pin = true;
    bool serve = false;
    std::string listener = "tcp";
    SettingList settings;
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 10 || *ms > 3600000) return usage("-t needs a duration 10ms..1h");
            durationMs = *ms;
        } else if (auto c = cursor.takeValue("--clients")) {
            auto n = parseInt(*c);
            if (!n || *n < 1 || *n > 256) return usage("--clients needs 1..256");
            clients = static_cast<int>(*n);
        } else if (auto q = cursor.takeValue("--request")) {
            auto n = parseSize(*q);
            if (!n || *n < 1 || *n > kMaxRequestBytes) return usage("--request needs 1..1M bytes");
            requestBytes = *n;
        } else if (auto rp = cursor.takeValue("--reps")) {
            auto n = parseInt(*rp);
            if (!n || *n < 1 || *n > 100) return usage("--reps needs 1..100");
            reps = static_cast<int>(*n);
        } else if (auto s = cursor.takeValue("--set")) {
            if (!parseSettingArg(*s, &settings)) return usage("--set needs NAME=VALUE");
        } else if (auto l = cursor.takeValue("--listener")) {
            if (*l != "tcp" && *l != "smcr") return usage("--listener must be tcp or smcr");
            listener = *l;
        } else if (cursor.takeFlag("--serve")) {
            serve = true;
        } else if (cursor.takeFlag("--no-pin")) {
            pin = false;
        } else if (!cursor.error().empty()) {
            return usage(cursor.error());
        } else {
            return usage("unknown option '" + cursor.peek() + "'");
        }
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (serve) return runServer(listener, settings, pin);
    // A bad setting is a usage error here, not a dead server later.
    if (!settings.empty()) {
        smcr::Settings probe;
        for (const auto& [name, value] : settings) {
            if (auto st = probe.set(name, value); !st) return usage("--set: " + st.error().toString());
        }
    }

    constexpr size_t kCount = std::size(kColumns);
    std::vector<std::unique_ptr<ServerProcess>> servers;
    for (const Column& col : kColumns) {
        std::vector<std::string> serverArgs = {"--listener", col.listener};
        if (col.fastFallback != nullptr) {
            SettingList serverSettings = settings;
            serverSettings.emplace_back("lab.fast_fallback", col.fastFallback);
            const std::vector<std::string> words = settingArgs(serverSettings);
            serverArgs.insert(serverArgs.end(), words.begin(), words.end());
        }
        if (!pin) serverArgs.push_back("--no-pin");
        auto p = std::make_unique<ServerProcess>();
        std::string error;
        if (!p->start("accept", serverArgs, &error)) {
            std::fprintf(stderr, "%s: the %s server did not start: %s\n", kWho, col.label, error.c_str());
            return kExitFailure;
        }
        servers.push_back(std::move(p));
    }
    if (pin) pinToCpu(0);

    std::vector<QList<double>> rates(kCount), p50s(kCount), p99s(kCount), cpus(kCount);
    std::vector<uint64_t> connections(kCount, 0);
    bool allOk = true;
    for (int rep = 0; rep < reps; ++rep) {
        for (size_t k = 0; k < kCount; ++k) {
            const size_t i = rep % 2 == 0 ? k : kCount - 1 - k;
            const uint64_t cpuBefore = counterValue(serverCounters(servers[i]->port()), "cpu_us");
            const RunResult r = runClients(servers[i]->port(), static_cast<uint32_t>(requestBytes), clients, durationMs);
            const uint64_t cpuAfter = counterValue(serverCounters(servers[i]->port()), "cpu_us");
            if (!r.ok) {
                std::fprintf(stderr, "smclab bench accept: %s: %s\n", kColumns[i].label, r.error.c_str());
                allOk = false;
            }
            if (r.connections == 0) continue;
            rates[i].append(r.connPerSec);
            p50s[i].append(r.p50Us);
            p99s[i].append(r.p99Us);
            cpus[i].append(static_cast<double>(cpuAfter - cpuBefore) / static_cast<double>(r.connections));
            connections[i] += r.connections;
        }
    }

    report::ComparisonTable rate;
    rate.title = QStringLiteral("Connections/sec");
    rate.metric = QStringLiteral("conn_rate");
    rate.unit = QStringLiteral("conn/s");
    report::ComparisonTable p99 = rate;
    p99.title = QStringLiteral("Connect+request latency p99");
    p99.metric = QStringLiteral("p99_us");
    p99.unit = QStringLiteral("us");
    p99.lowerIsBetter = true;
    report::ComparisonTable p50 = p99;
    p50.title = QStringLiteral("Connect+request latency p50");
    p50.metric = QStringLiteral("p50_us");
    // Server CPU time per connection (all its threads): the cost of the
    // accept path itself, which a loaded host blurs less than the rates.
    report::ComparisonTable cpu = p99;
    cpu.title = QStringLiteral("Server CPU per connection");
    cpu.metric = QStringLiteral("cpu_us_per_conn");
    report::Row rateRow, p99Row, p50Row, cpuRow;
    rateRow.msgSize = p99Row.msgSize = p50Row.msgSize = cpuRow.msgSize = static_cast<qint64>(requestBytes);
    for (size_t i = 0; i < kCount; ++i) {
        const QString label = QString::fromLatin1(kColumns[i].label);
        for (auto* t : {&rate, &p99, &p50, &cpu}) t->columns.append(label);
        rateRow.cells.append(report::cellFromRepetitions(rates[i]));
        p99Row.cells.append(report::cellFromRepetitions(p99s[i]));
        p50Row.cells.append(report::cellFromRepetitions(p50s[i]));
        cpuRow.cells.append(report::cellFromRepetitions(cpus[i]));
    }
    rate.rows.append(rateRow);
    p99.rows.append(p99Row);
    p50.rows.append(p50Row);
    cpu.rows.append(cpuRow);
    std::printf("accept: %d plain TCP clients, %llu-byte request and reply, %.1f s x %d per column\n", clients,
                static_cast<unsigned long long>(requestBytes), static_cast<double>(durationMs) / 1000.0, reps);
    std::printf("%s", report::formatText({rate, p99, p50, cpu}).toStdString().c_str());
    // What the libsmcr servers did with them: every connection should be a
    // fallback, and with fast fallback on every one should skip the worker.
    for (size_t i = 0; i < kCount; ++i) {
        if (kColumns[i].fastFallback == nullptr) continue;
        const std::string text = serverCounters(servers[i]->port());
        std::printf("%s: %llu connections; server srv_fallbacks %llu, fast_fallback_accepts %llu, "
                    "hs_queue_depth_max %llu, limit_hs_fallbacks %llu\n",
                    kColumns[i].label, static_cast<unsigned long long>(connections[i]),
                    static_cast<unsigned long long>(counterValue(text, "smcr.srv_fallbacks")),
                    static_cast<unsigned long long>(counterValue(text, "smcr.fast_fallback_accepts")),
                    static_cast<unsigned long long>(counterValue(text, "smcr.hs_queue_depth_max")),
                    static_cast<unsigned long long>(counterValue(text, "smcr.limit_hs_fallbacks")));
    }
    std::fflush(stdout);
    return allOk ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
