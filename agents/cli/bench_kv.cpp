// smclab bench kv: redis-benchmark-style SET and GET between two local
// processes, over libsmcr (SMC-R on the sim fabric) or kernel TCP.
//
//   --preset credits   the RQ credits RFC's benchmark (seed 004: redis-benchmark
//                      -t set,get -P 1 -c 200 -d 10): columns SMC with credits
//                      off (baseline), credits on, rx_backlog, and TCP, in the
//                      configuration that makes RNR happen without them.
//
// The server is this program re-executed as `smclab bench kv --serve ...`
// (hidden), running the kv workload's RESP server; the client is the kv
// workload's redis-benchmark-like client in this process. Each column gets
// a fresh server process and client transport; SET and GET run one after
// the other over the same engines, with the engine counters read around each.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QJsonArray>
#include <QJsonObject>

#include <smclab/report/comparison_table.h>
#include <smclab/report/format_text.h>

#include "args.h"
#include "bench_commands.h"
#include "bench_local.h"
#include "command.h"
#include "workload.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench kv";

using Settings = SettingList;

struct Column {
    std::string key;
    std::string label;
    std::string transport;  // smcr | tcp
    Settings settings;      // engine settings of both processes (smcr)
};

struct Figures {
    double rps = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    uint64_t rnrNaks = 0;  // both directions, seen from the client's device
    std::map<std::string, uint64_t> counters;  // engine counter deltas
};

struct Options {
    int clients = 200;
    uint64_t requests = 20000;
    uint64_t dataSize = 10;
    uint32_t recvWr = 16;
    uint32_t repostDelayUs = 20;
    std::vector<std::string> columns = {"off", "on", "backlog", "tcp"};
};

bool isGauge(const std::string& name) {
    return name == "smcr.rx_backlog_max" || name == "smcr.credit_links" || name == "smcr.conns_active";
}

transports::TransportOptions optionsOf(const Settings& settings) {
    transports::TransportOptions out;
    for (const auto& [name, value] : settings) out[name] = value;
    return out;
}

std::map<std::string, uint64_t> counterMap(const transports::Transport& transport) {
    std::map<std::string, uint64_t> out;
    for (const transports::Counter& c : transport.counters()) out[c.name] = c.value;
    return out;
}

// Common to every SMC column: the RNR-triggering configuration. One link
// carries every connection, as in the seed's single-port setup (a second
// link would split them and halve the pressure on each receive queue).
Settings rnrCondition(const Options& o) {
    return {{"smcr_max_links_per_lgr", "1"},
            {"smcr_max_recv_wr", std::to_string(o.recvWr)},
            {"lab.rx_repost_delay_us", std::to_string(o.repostDelayUs)}};
}

std::optional<Column> columnFor(const std::string& key, const Options& o) {
    Settings smc = rnrCondition(o);
    if (key == "off") {
        smc.emplace_back("lab.rq_credits", "off");
        return Column{key, "SMC credits off", "smcr", smc};
    }
    if (key == "on") {
        smc.emplace_back("lab.rq_credits", "on");
        return Column{key, "SMC credits on", "smcr", smc};
    }
    if (key == "backlog") {
        smc.emplace_back("lab.rq_credits", "off");
        smc.emplace_back("lab.rx_backlog", "on");
        return Column{key, "SMC rx_backlog", "smcr", smc};
    }
    if (key == "tcp") return Column{key, "TCP", "tcp", {}};
    return std::nullopt;
}

int runServer(const std::string& transportName, const Settings& settings) {
    auto transport = transports::createTransport(transportName, optionsOf(settings));
    if (!transport) {
        std::fprintf(stderr, "%s: %s\n", kWho, transport.error().toString().c_str());
        return kExitFailure;
    }
    const workloads::Workload* kv = workloads::findWorkload("kv");
    workloads::RunContext ctx;
    ctx.role = workloads::Role::server;
    ctx.transport = transport.value();
    ctx.host = "127.0.0.1";
    ctx.port = 0;
    ctx.sampleIntervalMs = 0;
    ctx.onListening = [](uint16_t port) {
        std::printf("PORT %u\n", port);
        std::fflush(stdout);
    };
    auto r = kv->run(ctx);  // serves until the client side kills us
    if (!r) {
        std::fprintf(stderr, "%s: server: %s\n", kWho, r.error().toString().c_str());
        return kExitFailure;
    }
    return kExitOk;
}

// One column: a server process, then SET and GET from this process.
bool runColumn(const Column& column, const Options& o, std::map<std::string, Figures>* out) {
    std::vector<std::string> serverArgs = {"--transport", column.transport};
    const std::vector<std::string> setWords = settingArgs(column.settings);
    serverArgs.insert(serverArgs.end(), setWords.begin(), setWords.end());
    ServerProcess server;
    std::string error;
    if (!server.start("kv", serverArgs, &error)) {
        std::fprintf(stderr, "%s: %s: %s\n", kWho, column.label.c_str(), error.c_str());
        return false;
    }
    auto transport = transports::createTransport(column.transport, optionsOf(column.settings));
    if (!transport) {
        std::fprintf(stderr, "%s: %s: %s\n", kWho, column.label.c_str(), transport.error().toString().c_str());
        return false;
    }
    const workloads::Workload* kv = workloads::findWorkload("kv");
    for (const char* test : {"set", "get"}) {
        workloads::RunContext ctx;
        ctx.role = workloads::Role::client;
        ctx.transport = transport.value();
        ctx.host = "127.0.0.1";
        ctx.port = server.port();
        ctx.sampleIntervalMs = 0;
        ctx.params = QJsonObject{{"clients", o.clients},
                                 {"requests", static_cast<double>(o.requests)},
                                 {"data_size", static_cast<double>(o.dataSize)},
                                 {"pipeline", 1},
                                 {"tests", QJsonArray{test}}};
        const auto before = counterMap(*transport.value());
        auto r = kv->run(ctx);
        if (!r) {
            std::fprintf(stderr, "%s: %s %s: %s\n", kWho, column.label.c_str(), test, r.error().toString().c_str());
            return false;
        }
        const auto after = counterMap(*transport.value());
        const QJsonObject t = r->summary.value("tests").toArray().at(0).toObject();
        Figures f;
        f.rps = t.value("rps").toDouble();
        f.p50Ms = t.value("p50_latency_ms").toDouble();
        f.p99Ms = t.value("p99_latency_ms").toDouble();
        for (const auto& [name, value] : after) {
            auto it = before.find(name);
            const uint64_t old = it == before.end() ? 0 : it->second;
            // Gauges (backlog depth, links with credits) as they stand; counters as deltas.
            f.counters[name] = isGauge(name) ? value : (value >= old ? value - old : 0);
        }
        f.rnrNaks = f.counters["smcr.rnr_naks_received"] + f.counters["smcr.rnr_naks_sent"];
        (*out)[test] = f;
        std::fprintf(stderr, "%s: %-16s %s %10.0f rps  p50 %.3f ms  p99 %.3f ms  RNR %llu\n", kWho,
                     column.label.c_str(), test, f.rps, f.p50Ms, f.p99Ms, static_cast<unsigned long long>(f.rnrNaks));
    }
    return true;
}

report::ComparisonTable makeTable(const QString& title, const QString& unit, bool lowerIsBetter,
                                  const std::vector<Column>& columns, const std::vector<std::map<std::string, Figures>>& results,
                                  const std::string& test, double (*pick)(const Figures&), uint64_t dataSize) {
    report::ComparisonTable table;
    table.title = title;
    table.unit = unit;
    table.lowerIsBetter = lowerIsBetter;
    table.workload = "kv";
    report::Row row;
    row.msgSize = static_cast<qint64>(dataSize);
    for (size_t i = 0; i < columns.size(); ++i) {
        table.columns.append(QString::fromStdString(columns[i].label));
        report::Cell cell;
        auto it = results[i].find(test);
        if (it != results[i].end()) {
            cell.value = pick(it->second);
            cell.repetitions = 1;
        }
        row.cells.append(cell);
    }
    table.rows.append(row);
    return table;
}

void printHelp() {
    std::printf(
        "usage: smclab bench kv --preset credits [-c CLIENTS] [-n REQUESTS] [-d SIZE]\n"
        "                       [--recv-wr N] [--repost-delay-us N] [--columns LIST]\n"
        "\n"
        "redis-benchmark-style SET and GET (pipeline 1) between two local processes,\n"
        "the kv workload's RESP server and client, over libsmcr on the sim fabric or TCP.\n"
        "\n"
        "--preset credits: the RQ credits RFC's benchmark (seed 004: redis-benchmark\n"
        "-t set,get -P 1 -c 200 -d 10). All connections share one link group with one\n"
        "link (smcr_max_links_per_lgr=1, the seed's single port); every\n"
        "SMC column runs the condition that makes RNR happen: a small receive queue\n"
        "(smcr_max_recv_wr) and a slow receive path (lab.rx_repost_delay_us, a lab knob:\n"
        "each CDC is handled and its receive WQE refilled that many microseconds after\n"
        "it arrived, a late rx tasklet; a delay, no CPU is spent), both ends. Tables\n"
        "in the cover-letter layout, percentages against the first column:\n"
        "requests/s, p50 and p99 latency, RNR NAKs (both directions), per test.\n"
        "\n"
        "options:\n"
        "  -c CLIENTS            connections (default 200)\n"
        "  -n REQUESTS           requests per test and column (default 20000)\n"
        "  -d SIZE               SET value size (default 10)\n"
        "  --recv-wr N           smcr_max_recv_wr of both engines (default 16)\n"
        "  --repost-delay-us N   lab.rx_repost_delay_us of both engines (default 20):\n"
        "                        CDC handling and receive WQE refill this late\n"
        "  --columns LIST        off,on,backlog,tcp (default all, first = baseline):\n"
        "                        off      SMC, lab.rq_credits=off\n"
        "                        on       SMC, lab.rq_credits=on\n"
        "                        backlog  SMC, lab.rq_credits=off, lab.rx_backlog=on\n"
        "                        tcp      kernel TCP\n");
}

int usage(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n(see smclab bench kv --help)\n", kWho, message.c_str());
    return kExitUsage;
}

}  // namespace

int runBenchKv(const Args& args) {
    ArgCursor cursor(args);
    Options o;
    bool serve = false;
    std::optional<std::string> preset;
    std::string serveTransport = "smcr";
    Settings serveSettings;
    auto number = [&](const std::string& option, const std::string& text, uint64_t min, uint64_t max) -> uint64_t {
        auto n = parseInt(text);
        if (!n || *n < static_cast<int64_t>(min) || *n > static_cast<int64_t>(max)) {
            cursor.setError(option + ": expects a number " + std::to_string(min) + ".." + std::to_string(max) +
                            ", got '" + text + "'");
            return min;
        }
        return static_cast<uint64_t>(*n);
    };
    while (!cursor.done() && cursor.error().empty()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (cursor.takeFlag("--serve")) { serve = true; continue; }
        if (auto v = cursor.takeValue("--transport")) { serveTransport = *v; continue; }
        if (auto v = cursor.takeValue("--set")) {
            if (!parseSettingArg(*v, &serveSettings)) return usage("--set: expects NAME=VALUE, got '" + *v + "'");
            continue;
        }
        if (auto v = cursor.takeValue("--preset")) { preset = *v; continue; }
        if (auto v = cursor.takeValue("-c")) { o.clients = static_cast<int>(number("-c", *v, 1, 10000)); continue; }
        if (auto v = cursor.takeValue("-n")) { o.requests = number("-n", *v, 1, 1000000000); continue; }
        if (auto v = cursor.takeValue("-d")) {
            auto size = parseSize(*v);
            if (!size || *size == 0) return usage("-d: bad size '" + *v + "'");
            o.dataSize = *size;
            continue;
        }
        if (auto v = cursor.takeValue("--recv-wr")) { o.recvWr = static_cast<uint32_t>(number("--recv-wr", *v, 2, 2048)); continue; }
        if (auto v = cursor.takeValue("--repost-delay-us")) {
            o.repostDelayUs = static_cast<uint32_t>(number("--repost-delay-us", *v, 0, 100000));
            continue;
        }
        if (auto v = cursor.takeValue("--columns")) {
            o.columns.clear();
            size_t start = 0;
            while (start <= v->size()) {
                const size_t comma = v->find(',', start);
                o.columns.push_back(v->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
            continue;
        }
        return usage("unknown option '" + cursor.peek() + "'");
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (serve) {
        if (serveTransport != "smcr" && serveTransport != "tcp") return usage("--transport: smcr or tcp");
        return runServer(serveTransport, serveSettings);
    }
    if (!preset) return usage("--preset credits is required (the only preset)");
    if (*preset != "credits") return usage("--preset: unknown preset '" + *preset + "' (known: credits)");

    std::vector<Column> columns;
    for (const std::string& key : o.columns) {
        auto c = columnFor(key, o);
        if (!c) return usage("--columns: unknown column '" + key + "' (off, on, backlog, tcp)");
        columns.push_back(*c);
    }
    if (columns.empty()) return usage("--columns: none given");

    std::printf("smclab bench kv --preset credits: SET and GET, %d connections, value %llu B, pipeline 1, "
                "%llu requests per test\n",
                o.clients, static_cast<unsigned long long>(o.dataSize), static_cast<unsigned long long>(o.requests));
    std::printf("RNR-triggering configuration (every SMC column, both ends): all connections on one link group "
                "with one link (smcr_max_links_per_lgr=1), "
                "smcr_max_recv_wr=%u, lab.rx_repost_delay_us=%u (slow receive path: each CDC handled and its WQE "
                "refilled that late, no CPU spent), smcr_max_send_wr=16, sim fabric min_rnr_timer 0.06 ms (an RNR NAK "
                "stalls the link's whole send queue that long), rnr_retry 7\n",
                o.recvWr, o.repostDelayUs);
    std::fflush(stdout);

    std::vector<std::map<std::string, Figures>> results(columns.size());
    bool allOk = true;
    for (size_t i = 0; i < columns.size(); ++i) allOk = runColumn(columns[i], o, &results[i]) && allOk;

    QList<report::ComparisonTable> tables;
    for (const std::string test : {"set", "get"}) {
        const QString name = QString::fromStdString(test).toUpper();
        tables.append(makeTable(name + " requests/s", "rps", false, columns, results, test,
                                [](const Figures& f) { return f.rps; }, o.dataSize));
        tables.append(makeTable(name + " p50 latency", "ms", true, columns, results, test,
                                [](const Figures& f) { return f.p50Ms; }, o.dataSize));
        tables.append(makeTable(name + " p99 latency", "ms", true, columns, results, test,
                                [](const Figures& f) { return f.p99Ms; }, o.dataSize));
        tables.append(makeTable(name + " RNR NAKs", "", true, columns, results, test,
                                [](const Figures& f) { return static_cast<double>(f.rnrNaks); }, o.dataSize));
    }
    std::printf("%s", report::formatText(tables).toStdString().c_str());

    // Where the credits went: the engine counters of the client side.
    std::printf("==== Engine counters (client side, SET + GET) ====\n");
    const char* names[] = {"smcr.rnr_naks_received", "smcr.rnr_naks_sent", "smcr.credit_waits",
                           "smcr.credits_announced_cdc", "smcr.credits_announced_llc", "smcr.credit_announce_llcs",
                           "smcr.rx_backlog_max", "smcr.credit_links"};
    std::printf("%-28s", "counter");
    for (const Column& c : columns) std::printf(" %16s", c.label.c_str());
    std::printf("\n");
    for (const char* counter : names) {
        std::printf("%-28s", counter);
        for (size_t i = 0; i < columns.size(); ++i) {
            uint64_t sum = 0;
            const bool gauge = isGauge(counter);
            for (const auto& [test, f] : results[i]) {
                auto it = f.counters.find(counter);
                if (it == f.counters.end()) continue;
                sum = gauge ? std::max(sum, it->second) : sum + it->second;
            }
            if (columns[i].transport == "tcp") {
                std::printf(" %16s", "-");
            } else {
                std::printf(" %16llu", static_cast<unsigned long long>(sum));
            }
        }
        std::printf("\n");
    }
    return allOk ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
