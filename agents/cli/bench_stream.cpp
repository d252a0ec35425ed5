// smclab bench stream: qperf-style tcp_bw / tcp_lat between two local
// agents, over libsmcr (SMC-R on the sim fabric) or kernel TCP.
//   default            one transport, qperf-like blocks per size
//   --compare          smcr and tcp side by side with the SMC/TCP ratio
//   --preset datapath  the patch series' columns in the cover-letter tables
//                      with the shapes check (bench_datapath.h)
//
// Every mode is a preset (stream, or datapath) with this command's
// parameters, a campaign of the agents' tcp_bw / tcp_lat workloads on the
// local lab, stored like any other (stream_campaign.h): the numbers come
// from the same pipeline as `smclab run` and the demo.
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
#include "bench_run_options.h"
#include "bench_settings.h"
#include "datapath_columns.h"
#include "orchestrator/campaign_spec.h"
#include "orchestrator/datapath_columns.h"
#include "stream_campaign.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench stream";
constexpr uint64_t kDefaultDurationMs = 2000;

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
        "                           [--compare] [--reps N] [--busy-poll-us N] [--set NAME=VALUE]\n"
        "                           [--no-pin] [--db PATH]\n"
        "       smclab bench stream --preset datapath [--link ideal|cx4-25g|cx4lx-vf] [-t SECONDS]\n"
        "                           [-oo msg_size:1:64K:*2] [--columns LIST] [--isolate] [--reps N]\n"
        "                           [--counters] [--format text|csv|json|markdown|html]\n"
        "                           [--json-out FILE] [--db PATH]\n"
        "\n"
        "qperf-style stream tests between two local smclab-agent processes (the\n"
        "local lab of `smclab demo`: the server agent in a network namespace behind\n"
        "a veth shaped like the link model where the host allows it, so TCP crosses\n"
        "the same modelled wire as SMC), over libsmcr on the sim fabric (smcr) or\n"
        "kernel TCP (tcp):\n"
        "  tcp_bw   bandwidth at the receiver, MB/sec (10^6 bytes)\n"
        "  tcp_lat  one-way latency = round trip / 2: mean, p50, p99\n"
        "Each run is a campaign in the results store (`smclab show ID`, `smclab report\n"
        "ID`, the GUI's Results page); the figures are medians of the repetitions.\n"
        "\n"
        "options:\n"
        "  --transport T     smcr (default) or tcp\n"
        "  --test LIST       tcp_bw, tcp_lat or both (default tcp_bw,tcp_lat)\n"
        "  -oo LOOP          message sizes, qperf loop syntax (default msg_size:1:64K:*2)\n"
        "  -t SECONDS        measured time per cell (default 2; 100ms..1h), after a\n"
        "                    fifth of it as warm-up\n"
        "  --link NAME       sim link model: ideal (default: SMC and TCP unshaped), cx4-25g\n"
        "                    (two hosts, 25 GbE) or cx4lx-vf (two VFs of one adapter;\n"
        "                    --preset datapath's default)\n"
        "  --compare         run smcr and tcp and print one table with SMC/TCP per size\n"
        "  --reps N          repetitions of every cell in interleaved rounds (default 1;\n"
        "                    --preset datapath: 3, the fewest that give intervals)\n"
        "  --busy-poll-us N  libsmcr lab.busy_poll_us of every SMC column (default: the\n"
        "                    engine's; --preset datapath: 0)\n"
        "  --set NAME=VALUE  any libsmcr setting for every SMC column (repeatable)\n"
        "  --no-pin          do not pin the client and server agents to CPUs 0 and 1\n"
        "  --db PATH         results database, a file or postgresql://USER@HOST[:PORT]/DB\n"
        "                    (default: $SMCLAB_DB or the default file)\n"
        "\n"
        "--preset datapath: the datapath patch series (\"net/smc: some datapath\n"
        "performance optimizations\") reproduced: the datapath campaign preset's columns\n"
        "with this command's sizes, time and repetitions, printed as the cover letter's\n"
        "==== Bandwidth ==== and ==== Latency ==== tables (percentages against the first\n"
        "column, from unrounded medians) and their ==== Confidence ==== intervals, then a\n"
        "==== Shapes ==== section: each effect the series claims, PASS, MISS or\n"
        "INCONCLUSIVE (the intervals cannot tell a difference from noise; always with\n"
        "--reps 1) on this run's numbers and engine counters (client + server, per\n"
        "message, geometric mean over sizes). Progress goes to stderr.\n"
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

// The single-transport and --compare modes: the stream preset with one
// column per transport and this command's tests, sizes, time and settings.
orchestrator::PresetParams classicParams(const std::vector<std::string>& transports, const std::string& link,
                                         const BenchRunOptions& run, const std::vector<report::StreamTest>& tests,
                                         const std::vector<uint64_t>& sizes) {
    orchestrator::PresetParams params;
    params.name = transports.size() > 1 ? QStringLiteral("bench stream --compare") : QStringLiteral("bench stream");
    applyBenchRunOptions(run, &params);
    params.durationMs = params.durationMs.value_or(kDefaultDurationMs);
    params.repetitions = params.repetitions.value_or(1);
    for (report::StreamTest test : tests) params.workloads << QString::fromLatin1(report::streamTestName(test));
    for (const std::string& transport : transports) params.columns << QString::fromStdString(transport);
    params.sizes = sizes;
    params.link = QString::fromStdString(link);
    params.description = QStringLiteral(
                             "smclab bench stream: %1 sizes %2..%3 B, %4 s per cell, %5 repetitions, two "
                             "local agents")
                             .arg(sizes.size())
                             .arg(sizes.front())
                             .arg(sizes.back())
                             .arg(static_cast<double>(*params.durationMs) / 1000.0)
                             .arg(*params.repetitions);
    return params;
}

// One transport: qperf's own block per size.
void printQperfBlocks(report::StreamTest test, const std::vector<std::vector<report::StreamResult>>& results,
                      const std::vector<uint64_t>& sizes, const std::string& transport, const std::string& wire) {
    std::printf("%s (%s, %s):\n", report::streamTestName(test), transport.c_str(), wire.c_str());
    for (size_t i = 0; i < sizes.size(); ++i) {
        const report::StreamResult& r = results[i][0];
        std::printf("    msg_size  =  %8s bytes\n", sizeText(sizes[i]).c_str());
        if (!r.ok) {
            std::printf("    failed\n");
        } else if (test == report::StreamTest::bw) {
            std::printf("    bw        =  %10.2f MB/sec\n", r.bwMBs);
        } else {
            std::printf("    latency   =  %10.2f us   (p50 %.2f us, p99 %.2f us)\n", r.latMeanUs, r.latP50Us,
                        r.latP99Us);
        }
    }
}

// --compare: one table, SMC-R and TCP side by side with their ratio.
void printCompareTable(report::StreamTest test, const std::vector<std::vector<report::StreamResult>>& results,
                       const std::vector<uint64_t>& sizes, uint64_t durationMs, int repetitions) {
    std::printf(
        "==== %s: %s, %.1f s per size, median of %d ====\n", report::streamTestName(test),
        test == report::StreamTest::bw ? "bandwidth MB/sec at the receiver" : "one-way latency us (mean, p50, p99)",
        static_cast<double>(durationMs) / 1000.0, repetitions);
    if (test == report::StreamTest::bw) {
        std::printf("%-8s %12s %12s %9s\n", "MsgSize", "SMC-R", "TCP", "SMC/TCP");
    } else {
        std::printf("%-8s %10s %8s %8s %10s %8s %8s %9s\n", "MsgSize", "SMC-R", "p50", "p99", "TCP", "p50", "p99",
                    "SMC/TCP");
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
        const report::StreamResult& m = results[i][0];
        const report::StreamResult& k = results[i][1];
        if (test == report::StreamTest::bw) {
            std::printf("%-8s %12.2f %12.2f %8.2fx\n", sizeText(sizes[i]).c_str(), m.bwMBs, k.bwMBs,
                        k.bwMBs > 0 ? m.bwMBs / k.bwMBs : 0.0);
        } else {
            std::printf("%-8s %10.2f %8.2f %8.2f %10.2f %8.2f %8.2f %8.2fx\n", sizeText(sizes[i]).c_str(), m.latMeanUs,
                        m.latP50Us, m.latP99Us, k.latMeanUs, k.latP50Us, k.latP99Us,
                        k.latMeanUs > 0 ? m.latMeanUs / k.latMeanUs : 0.0);
        }
    }
}

// The single-transport and --compare modes: one column per transport.
int runClassic(const std::vector<std::string>& transports, const std::string& link, const BenchRunOptions& run,
               const std::vector<report::StreamTest>& tests, const std::vector<uint64_t>& sizes) {
    const bool compare = transports.size() > 1;
    const orchestrator::PresetParams params = classicParams(transports, link, run, tests, sizes);
    auto campaign = orchestrator::presetWithParams(QStringLiteral("stream"), params);
    if (!campaign) {
        std::fprintf(stderr, "%s: %s\n", kWho, campaign.error().message.c_str());
        return kExitFailure;
    }
    auto store = openBenchStore(run.dbPath, kWho);
    if (!store) return kExitFailure;
    auto ran = runStreamCampaign(*campaign, *store, {kWho, run.pin});
    if (!ran) {
        std::fprintf(stderr, "%s: %s\n", kWho, ran.error().message.c_str());
        return kExitFailure;
    }
    printColumnFailures(ran->console, kWho);
    const std::string wire = ran->wireNote.toStdString();
    for (report::StreamTest test : tests) {
        const auto& results = test == report::StreamTest::bw ? ran->grid.bw : ran->grid.lat;
        if (compare)
            printCompareTable(test, results, sizes, *params.durationMs, *params.repetitions);
        else
            printQperfBlocks(test, results, sizes, transports[0], wire);
    }
    if (compare)
        std::printf("wire: %s\ncampaign %lld in %s\n", wire.c_str(), static_cast<long long>(ran->campaignId),
                    qPrintable(store->path()));
    std::fflush(stdout);
    return ran->console.failedCells == 0 ? kExitOk : kExitRunsFailed;
}

// The command line of `smclab bench stream`, with its defaults.
struct StreamArgs {
    std::string transport = "smcr";
    std::optional<std::string> link;  // default: ideal, or the preset's
    std::string preset;
    std::vector<report::StreamTest> tests = {report::StreamTest::bw, report::StreamTest::lat};
    SizeLoop loop{"msg_size", 1, 64 * 1024, 2, true};
    bool compare = false;
    // -t (default 2 s), --reps (default: the mode's), --set and --busy-poll-us
    // in command-line order, --db, --no-pin.
    BenchRunOptions run;
    bool isolate = false;
    bool counters = false;
    std::vector<std::string> columnKeys;
    std::optional<report::Format> format;
    std::string jsonOut;
};

// Each take*Option below takes the word at the cursor when it is one of its
// options (returns true) and leaves a malformed value's message in
// cursor.error(), the one place the caller looks.

void takeTestList(const std::string& text, ArgCursor& cursor, StreamArgs* a) {
    a->tests.clear();
    for (const std::string& name : splitList(text)) {
        if (name == "tcp_bw") {
            a->tests.push_back(report::StreamTest::bw);
        } else if (name == "tcp_lat") {
            a->tests.push_back(report::StreamTest::lat);
        } else {
            cursor.setError("unknown test '" + name + "' (tcp_bw, tcp_lat)");
            return;
        }
    }
}

void takeColumnList(const std::string& text, ArgCursor& cursor, StreamArgs* a) {
    a->columnKeys.clear();
    for (const std::string& name : splitList(text)) {
        auto column = findDatapathColumn(name);
        if (!column) {
            std::string known;
            for (const DatapathColumn& k : datapathColumns()) known += (known.empty() ? "" : ", ") + k.key;
            cursor.setError("--columns: unknown column '" + name + "' (" + known + ")");
            return;
        }
        a->columnKeys.push_back(column->key);
    }
}

// What is measured: transport, tests, sizes, time, link, engine settings.
bool takeMatrixOption(ArgCursor& cursor, StreamArgs* a) {
    if (auto v = cursor.takeValue("--transport")) {
        if (*v != "smcr" && *v != "tcp") cursor.setError("--transport must be smcr or tcp");
        a->transport = *v;
    } else if (auto t = cursor.takeValue("--test")) {
        takeTestList(*t, cursor, a);
    } else if (auto oo = cursor.takeValue("-oo")) {
        std::string error;
        if (auto parsed = parseSizeLoop(*oo, &error))
            a->loop = *parsed;
        else
            cursor.setError("-oo: " + error);
    } else if (auto l = cursor.takeValue("--link")) {
        if (auto model = smcr::fabric::sim::linkPreset(*l); !model) cursor.setError("--link: " + model.error().message);
        a->link = *l;
    } else if (auto b = cursor.takeValue("--busy-poll-us")) {
        auto n = parseInt(*b);
        if (!n || *n < 0 || *n > 10000000)
            cursor.setError("--busy-poll-us needs 0..10000000");
        else
            a->run.settings.emplace_back("lab.busy_poll_us", std::to_string(*n));
    } else {
        return false;
    }
    return true;
}

// How it is run and shown: the preset and its columns, output, store, pinning.
bool takeModeOption(ArgCursor& cursor, StreamArgs* a) {
    if (auto p = cursor.takeValue("--preset")) {
        if (*p != "datapath") cursor.setError("unknown preset '" + *p + "' (datapath)");
        a->preset = *p;
    } else if (auto c = cursor.takeValue("--columns")) {
        takeColumnList(*c, cursor, a);
    } else if (auto f = cursor.takeValue("--format")) {
        a->format = report::parseFormat(QString::fromStdString(*f));
        if (!a->format) cursor.setError("--format must be text, csv, json, markdown or html");
    } else if (auto j = cursor.takeValue("--json-out")) {
        a->jsonOut = *j;
    } else if (cursor.takeFlag("--isolate")) {
        a->isolate = true;
    } else if (cursor.takeFlag("--counters")) {
        a->counters = true;
    } else if (cursor.takeFlag("--compare")) {
        a->compare = true;
    } else {
        return false;
    }
    return true;
}

// Empty when the options make sense together; else what to tell the user.
std::string checkStreamArgs(const StreamArgs& a) {
    if (a.loop.variable != "msg_size") return "-oo loops over msg_size only";
    const std::vector<uint64_t> sizes = a.loop.values();
    if (sizes.empty() || sizes.front() < 1 || sizes.back() > (16u << 20)) return "message sizes must be 1..16M";
    if (a.tests.empty()) return "--test needs at least one test";
    if (a.preset.empty()) {
        if (!a.columnKeys.empty() || a.isolate || a.counters || a.format || !a.jsonOut.empty()) {
            return "--columns, --isolate, --counters, --format and --json-out go with --preset datapath";
        }
    } else if (a.compare) {
        return "--compare and --preset are different modes; pick one";
    }
    return {};
}

int runClassicMode(const StreamArgs& a) {
    const std::vector<std::string> transports =
        a.compare ? std::vector<std::string>{"smcr", "tcp"} : std::vector<std::string>{a.transport};
    return runClassic(transports, a.link.value_or("ideal"), a.run, a.tests, a.loop.values());
}

int runDatapathMode(const StreamArgs& a) {
    DatapathOptions o;
    // The preset's own environment unless told otherwise (one definition with the campaign preset).
    o.link = a.link.value_or(orchestrator::kDatapathLink);
    o.durationMs = a.run.durationMs.value_or(kDefaultDurationMs);
    o.sizes = a.loop.values();
    o.tests = a.tests;
    o.columnKeys = a.columnKeys.empty() ? defaultDatapathColumnKeys() : a.columnKeys;
    if (a.isolate) {
        for (const std::string& key : isolationColumnKeys()) {
            if (std::find(o.columnKeys.begin(), o.columnKeys.end(), key) == o.columnKeys.end())
                o.columnKeys.push_back(key);
        }
    }
    o.format = a.format.value_or(report::Format::text);
    o.pin = a.run.pin;
    o.counterTables = a.counters;
    o.extraSettings = a.run.settings;
    o.jsonOutPath = a.jsonOut;
    o.repetitions = a.run.repetitions.value_or(orchestrator::kPresetRepetitions);
    o.dbPath = a.run.dbPath;
    return runDatapathBench(o);
}

}  // namespace

int runBenchStream(const Args& args) {
    StreamArgs a;
    auto takeOwn = [&a](ArgCursor& cursor) { return takeMatrixOption(cursor, &a) || takeModeOption(cursor, &a); };
    if (auto exit = readBenchOptions(args, kWho, printHelp, {}, &a.run, takeOwn)) return *exit;
    if (const std::string problem = checkStreamArgs(a); !problem.empty()) return benchUsage(kWho, problem);
    if (const auto refused = checkBenchSettings(a.run.settings)) return benchUsage(kWho, *refused);
    return a.preset.empty() ? runClassicMode(a) : runDatapathMode(a);
}

}  // namespace smclab::cli
