// smclab bench stream: qperf-style tcp_bw / tcp_lat between two local
// processes, over libsmcr (SMC-R on the sim fabric) or kernel TCP.
//   default            one transport, qperf-like blocks per size
//   --compare          smcr and tcp side by side with the SMC/TCP ratio
//   --preset datapath  the patch series' columns in the cover-letter tables
//                      with the shapes check (bench_datapath.h)
//
// The server is this program re-executed with --serve (hidden), so client
// and server are separate processes with their own engines; the test
// protocol is in stream_test.h.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <smcr/fabric_sim.h>

#include "args.h"
#include "bench_commands.h"
#include "bench_datapath.h"
#include "bench_local.h"
#include "datapath_columns.h"
#include "orchestrator/datapath_columns.h"
#include "stream_test.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench stream";

struct Result {
    bool ok = false;
    double bwMBs = 0;
    double latMeanUs = 0;
    double latP50Us = 0;
    double latP99Us = 0;
};

int runServer(const std::string& transport, const SettingList& settings, bool pin) {
    if (pin) pinToCpu(1);
    std::shared_ptr<smcr::Engine> engine;
    if (transport == "smcr") {
        engine = makeBenchEngine(settings, kWho);
        if (!engine) return kExitFailure;
    }
    auto listener = listenBench(transport, engine, kWho);
    if (!listener) return kExitFailure;
    std::printf("PORT %u\n", listener->port());
    std::fflush(stdout);
    for (;;) {
        auto conn = listener->accept();
        if (!conn) return kExitFailure;
        serveStreamConnection(*conn, engine.get());
    }
}

std::string sizeText(uint64_t size) {
    if (size >= 1024 && size % 1024 == 0) return std::to_string(size / 1024) + "K";
    return std::to_string(size);
}

void printColumns() {
    for (const DatapathColumn& c : datapathColumns()) {
        std::printf("  %-9s %-17s %s\n", c.key.c_str(), c.label.c_str(), c.summary.c_str());
    }
}

void printHelp() {
    std::printf(
        "usage: smclab bench stream [--transport smcr|tcp] [--test tcp_bw|tcp_lat[,..]]\n"
        "                           [-oo msg_size:1:64K:*2] [-t SECONDS] [--link ideal|cx4-25g|cx4lx-vf]\n"
        "                           [--compare] [--busy-poll-us N] [--no-pin]\n"
        "       smclab bench stream --preset datapath [--link ideal|cx4-25g|cx4lx-vf] [-t SECONDS]\n"
        "                           [-oo msg_size:1:64K:*2] [--columns LIST] [--isolate]\n"
        "                           [--counters] [--format text|csv|json|markdown|html]\n"
        "                           [--json-out FILE]\n"
        "\n"
        "qperf-style stream tests between two local processes (client and server),\n"
        "over libsmcr on the sim fabric (smcr) or kernel TCP (tcp):\n"
        "  tcp_bw   bandwidth at the receiver, MB/sec (10^6 bytes)\n"
        "  tcp_lat  one-way latency = round trip / 2: mean, p50, p99\n"
        "\n"
        "options:\n"
        "  --transport T     smcr (default) or tcp\n"
        "  --test LIST       tcp_bw, tcp_lat or both (default tcp_bw,tcp_lat)\n"
        "  -oo LOOP          message sizes, qperf loop syntax (default msg_size:1:64K:*2)\n"
        "  -t SECONDS        time per size and test (default 2; 500ms works)\n"
        "  --link NAME       sim link model for smcr: ideal (default), cx4-25g (two hosts, 25 GbE)\n"
        "                    or cx4lx-vf (two VFs of one adapter; --preset datapath's default)\n"
        "  --compare         run smcr and tcp and print one table with SMC/TCP per size\n"
        "  --busy-poll-us N  libsmcr lab.busy_poll_us in both processes (default: the engine's)\n"
        "  --no-pin          do not pin client and server to CPUs 0 and 1\n"
        "\n"
        "--preset datapath: the datapath patch series (\"net/smc: some datapath\n"
        "performance optimizations\") reproduced: every test, size and column in turn,\n"
        "printed as the cover letter's ==== Bandwidth ==== and ==== Latency ==== tables\n"
        "(percentages against the first column, from unrounded values), then a\n"
        "==== Shapes ==== section: each effect the series claims, PASS, MISS or\n"
        "INCONCLUSIVE (one run per cell cannot tell a difference from noise) on this\n"
        "run's numbers and engine counters (client + server, per message, geometric\n"
        "mean over sizes). Progress goes to stderr (a bar on a terminal).\n"
        "The SMC columns wait like the kernel's SMC, which never busy-polls:\n"
        "lab.busy_poll_us 0, a waiting thread arms the CQs and sleeps on the\n"
        "completion channel (--busy-poll-us N overrides it for every SMC column).\n"
        "A ==== Notes ==== section before the shapes says how the run was made.\n"
        "  --columns LIST    columns by key or label, first = baseline\n"
        "                    (default nocork,tcp,autocork,patches)\n"
        "  --isolate         add wndlimit,autownd,drain,txdefer: each optimisation alone\n"
        "                    (autownd: patch #5 on top of autocorking, as its commit measured it)\n"
        "  --counters        also counter tables of tcp_bw per 1000 messages (CDCs, RDMA\n"
        "                    writes, window updates, CQ wake-ups, completion pushes)\n"
        "  --format F        text (default), csv, json, markdown or html\n"
        "  --json-out FILE   also write the JSON document (tables, shapes, settings) to FILE\n"
        "columns:\n");
    printColumns();
}

int usage(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n(see smclab bench stream --help)\n", kWho, message.c_str());
    return kExitUsage;
}

// The single-transport and --compare modes.
int runClassic(const std::vector<std::string>& transports, const std::string& link, const SettingList& extra,
               const std::vector<StreamTest>& tests, const std::vector<uint64_t>& sizes, uint64_t durationMs,
               bool pin) {
    const bool compare = transports.size() > 1;
    SettingList settings = {{"lab.link", link}};
    settings.insert(settings.end(), extra.begin(), extra.end());
    std::vector<std::unique_ptr<ServerProcess>> servers;
    for (const std::string& tr : transports) {
        std::vector<std::string> serverArgs = {"--transport", tr};
        if (tr == "smcr") {
            const auto words = settingArgs(settings);
            serverArgs.insert(serverArgs.end(), words.begin(), words.end());
        }
        if (!pin) serverArgs.push_back("--no-pin");
        auto p = std::make_unique<ServerProcess>();
        if (!p->start("stream", serverArgs)) {
            std::fprintf(stderr, "%s: the %s server did not start\n", kWho, tr.c_str());
            return kExitFailure;
        }
        servers.push_back(std::move(p));
    }
    if (pin) pinToCpu(0);
    std::shared_ptr<smcr::Engine> engine = makeBenchEngine(settings, kWho);
    if (!engine) return kExitFailure;

    bool allOk = true;
    for (StreamTest test : tests) {
        const char* name = streamTestName(test);
        // results[size][transport]
        std::vector<std::vector<Result>> results(sizes.size(), std::vector<Result>(transports.size()));
        for (size_t t = 0; t < transports.size(); ++t) {
            if (!compare) {
                std::printf("%s (%s%s):\n", name, transports[t].c_str(),
                            transports[t] == "smcr" ? (", link " + link).c_str() : "");
            }
            for (size_t i = 0; i < sizes.size(); ++i) {
                Result r;
                const std::shared_ptr<smcr::Engine> connEngine = transports[t] == "smcr" ? engine : nullptr;
                if (auto c = connectBench(transports[t], servers[t]->port(), connEngine, kWho)) {
                    if (c->fellBack()) std::fprintf(stderr, "%s: warning: the smcr connection fell back to TCP\n", kWho);
                    const StreamResult s = runStreamTest(*c, connEngine.get(), test, static_cast<uint32_t>(sizes[i]),
                                                         durationMs);
                    r = {s.ok, s.bwMBs, s.latMeanUs, s.latP50Us, s.latP99Us};
                }
                results[i][t] = r;
                allOk = allOk && r.ok;
                if (compare) continue;
                std::printf("    msg_size  =  %8s bytes\n", sizeText(sizes[i]).c_str());
                if (!r.ok) {
                    std::printf("    failed\n");
                } else if (test == StreamTest::bw) {
                    std::printf("    bw        =  %10.2f MB/sec\n", r.bwMBs);
                } else {
                    std::printf("    latency   =  %10.2f us   (p50 %.2f us, p99 %.2f us)\n", r.latMeanUs, r.latP50Us,
                                r.latP99Us);
                }
                std::fflush(stdout);
            }
        }
        if (!compare) continue;
        std::printf("==== %s: %s, link %s, %.1f s per size ====\n", name,
                    test == StreamTest::bw ? "bandwidth MB/sec at the receiver" : "one-way latency us (mean, p50, p99)",
                    link.c_str(), static_cast<double>(durationMs) / 1000.0);
        if (test == StreamTest::bw) {
            std::printf("%-8s %12s %12s %9s\n", "MsgSize", "SMC-R", "TCP", "SMC/TCP");
        } else {
            std::printf("%-8s %10s %8s %8s %10s %8s %8s %9s\n", "MsgSize", "SMC-R", "p50", "p99", "TCP", "p50", "p99",
                        "SMC/TCP");
        }
        for (size_t i = 0; i < sizes.size(); ++i) {
            const Result& s = results[i][0];
            const Result& k = results[i][1];
            if (test == StreamTest::bw) {
                std::printf("%-8s %12.2f %12.2f %8.2fx\n", sizeText(sizes[i]).c_str(), s.bwMBs, k.bwMBs,
                            k.bwMBs > 0 ? s.bwMBs / k.bwMBs : 0.0);
            } else {
                std::printf("%-8s %10.2f %8.2f %8.2f %10.2f %8.2f %8.2f %8.2fx\n", sizeText(sizes[i]).c_str(),
                            s.latMeanUs, s.latP50Us, s.latP99Us, k.latMeanUs, k.latP50Us, k.latP99Us,
                            k.latMeanUs > 0 ? s.latMeanUs / k.latMeanUs : 0.0);
            }
        }
        std::fflush(stdout);
    }
    return allOk ? kExitOk : kExitFailure;
}

}  // namespace

int runBenchStream(const Args& args) {
    std::string transport = "smcr";
    std::optional<std::string> link;  // default: ideal, or the preset's
    std::string preset;
    SettingList extra;
    SettingList serverSettings;
    std::vector<StreamTest> tests = {StreamTest::bw, StreamTest::lat};
    SizeLoop loop;
    loop.first = 1;
    loop.last = 64 * 1024;
    loop.step = 2;
    loop.multiply = true;
    uint64_t durationMs = 2000;
    bool compare = false;
    bool serve = false;
    bool pin = true;
    bool isolate = false;
    bool counters = false;
    std::vector<std::string> columnKeys;
    std::optional<report::Format> format;
    std::string jsonOut;
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--transport")) {
            if (*v != "smcr" && *v != "tcp") return usage("--transport must be smcr or tcp");
            transport = *v;
        } else if (auto t = cursor.takeValue("--test")) {
            tests.clear();
            for (const std::string& name : splitList(*t)) {
                if (name == "tcp_bw") tests.push_back(StreamTest::bw);
                else if (name == "tcp_lat") tests.push_back(StreamTest::lat);
                else return usage("unknown test '" + name + "' (tcp_bw, tcp_lat)");
            }
        } else if (auto oo = cursor.takeValue("-oo")) {
            std::string error;
            auto parsed = parseSizeLoop(*oo, &error);
            if (!parsed) return usage("-oo: " + error);
            loop = *parsed;
        } else if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 10 || *ms > 3600000) return usage("-t needs a duration 10ms..1h");
            durationMs = *ms;
        } else if (auto l = cursor.takeValue("--link")) {
            if (auto model = smcr::fabric::sim::linkPreset(*l); !model) return usage("--link: " + model.error().message);
            link = *l;
        } else if (auto b = cursor.takeValue("--busy-poll-us")) {
            auto n = parseInt(*b);
            if (!n || *n < 0 || *n > 10000000) return usage("--busy-poll-us needs 0..10000000");
            extra.emplace_back("lab.busy_poll_us", std::to_string(*n));
        } else if (auto p = cursor.takeValue("--preset")) {
            if (*p != "datapath") return usage("unknown preset '" + *p + "' (datapath)");
            preset = *p;
        } else if (auto c = cursor.takeValue("--columns")) {
            columnKeys.clear();
            for (const std::string& name : splitList(*c)) {
                auto column = findDatapathColumn(name);
                if (!column) {
                    std::string known;
                    for (const DatapathColumn& k : datapathColumns()) known += (known.empty() ? "" : ", ") + k.key;
                    return usage("--columns: unknown column '" + name + "' (" + known + ")");
                }
                columnKeys.push_back(column->key);
            }
        } else if (auto f = cursor.takeValue("--format")) {
            format = report::parseFormat(QString::fromStdString(*f));
            if (!format) return usage("--format must be text, csv, json, markdown or html");
        } else if (auto j = cursor.takeValue("--json-out")) {
            jsonOut = *j;
        } else if (auto s = cursor.takeValue("--set")) {
            if (!parseSettingArg(*s, &serverSettings)) return usage("--set expects NAME=VALUE");
        } else if (cursor.takeFlag("--isolate")) {
            isolate = true;
        } else if (cursor.takeFlag("--counters")) {
            counters = true;
        } else if (cursor.takeFlag("--compare")) {
            compare = true;
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
    if (serve) return runServer(transport, serverSettings, pin);
    if (loop.variable != "msg_size") return usage("-oo loops over msg_size only");
    const std::vector<uint64_t> sizes = loop.values();
    if (sizes.empty() || sizes.front() < 1 || sizes.back() > (16u << 20)) return usage("message sizes must be 1..16M");
    if (tests.empty()) return usage("--test needs at least one test");

    if (preset.empty()) {
        if (!columnKeys.empty() || isolate || counters || format || !jsonOut.empty()) {
            return usage("--columns, --isolate, --counters, --format and --json-out go with --preset datapath");
        }
        const std::vector<std::string> transports = compare ? std::vector<std::string>{"smcr", "tcp"}
                                                            : std::vector<std::string>{transport};
        return runClassic(transports, link.value_or("ideal"), extra, tests, sizes, durationMs, pin);
    }
    if (compare) return usage("--compare and --preset are different modes; pick one");
    DatapathOptions o;
    // The preset's own environment unless told otherwise (one definition with the campaign preset).
    o.link = link.value_or(orchestrator::kDatapathLink);
    o.durationMs = durationMs;
    o.sizes = sizes;
    o.tests = tests;
    o.columnKeys = columnKeys.empty() ? defaultDatapathColumnKeys() : columnKeys;
    if (isolate) {
        for (const std::string& key : isolationColumnKeys()) {
            if (std::find(o.columnKeys.begin(), o.columnKeys.end(), key) == o.columnKeys.end()) o.columnKeys.push_back(key);
        }
    }
    o.format = format.value_or(report::Format::text);
    o.pin = pin;
    o.counterTables = counters;
    o.extraSettings = extra;
    o.jsonOutPath = jsonOut;
    return runDatapathBench(o);
}

}  // namespace smclab::cli
