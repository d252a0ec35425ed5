// smclab bench stream: qperf-style tcp_bw / tcp_lat between two local
// agents, over libsmcr (SMC-R on the sim fabric) or kernel TCP.
//   default            one transport, qperf-like blocks per size
//   --compare          smcr and tcp side by side with the SMC/TCP ratio
//   --preset datapath  the patch series' columns in the cover-letter tables
//                      with the shapes check (bench_datapath.h)
//
// Every mode is a campaign of the agents' tcp_bw / tcp_lat workloads on the
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
#include "bench_settings.h"
#include "datapath_columns.h"
#include "orchestrator/campaign_spec.h"
#include "orchestrator/datapath_columns.h"
#include "stream_campaign.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench stream";

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

int usage(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n(see smclab bench stream --help)\n", kWho, message.c_str());
    return kExitUsage;
}

// The single-transport and --compare modes: one column per transport.
int runClassic(const std::vector<std::string>& transports, const std::string& link, const SettingList& extra,
               const std::vector<StreamTest>& tests, const std::vector<uint64_t>& sizes, uint64_t durationMs,
               int repetitions, bool pin, const std::string& dbPath) {
    const bool compare = transports.size() > 1;
    StreamCampaign campaign;
    campaign.name = compare ? QStringLiteral("bench stream --compare") : QStringLiteral("bench stream");
    campaign.tests = tests;
    campaign.sizes = sizes;
    campaign.durationMs = durationMs;
    campaign.repetitions = repetitions;
    campaign.link = QString::fromStdString(link);
    campaign.pin = pin;
    for (const std::string& tr : transports) {
        const bool smcr = tr == "smcr";
        campaign.columns.push_back({smcr ? QStringLiteral("SMC-R") : QStringLiteral("TCP"),
                                    QString::fromStdString(tr),
                                    {},
                                    smcr ? settingsObject(extra) : QJsonObject{},
                                    {},
                                    {}});
    }
    campaign.description = QStringLiteral(
                               "smclab bench stream: %1 sizes %2..%3 B, %4 s per cell, %5 repetitions, two "
                               "local agents")
                               .arg(sizes.size())
                               .arg(sizes.front())
                               .arg(sizes.back())
                               .arg(static_cast<double>(durationMs) / 1000.0)
                               .arg(repetitions);
    auto store = openBenchStore(dbPath, kWho);
    if (!store) return kExitFailure;
    auto ran = runStreamCampaign(campaign, *store);
    if (!ran) {
        std::fprintf(stderr, "%s: %s\n", kWho, ran.error().message.c_str());
        return kExitFailure;
    }
    printColumnFailures(ran->console, kWho);
    const std::string wire = ran->wireNote.toStdString();
    for (StreamTest test : tests) {
        const char* name = streamTestName(test);
        const auto& results = test == StreamTest::bw ? ran->grid.bw : ran->grid.lat;
        if (!compare) {
            std::printf("%s (%s, %s):\n", name, transports[0].c_str(), wire.c_str());
            for (size_t i = 0; i < sizes.size(); ++i) {
                const StreamResult& r = results[i][0];
                std::printf("    msg_size  =  %8s bytes\n", sizeText(sizes[i]).c_str());
                if (!r.ok) {
                    std::printf("    failed\n");
                } else if (test == StreamTest::bw) {
                    std::printf("    bw        =  %10.2f MB/sec\n", r.bwMBs);
                } else {
                    std::printf("    latency   =  %10.2f us   (p50 %.2f us, p99 %.2f us)\n", r.latMeanUs, r.latP50Us,
                                r.latP99Us);
                }
            }
            continue;
        }
        std::printf("==== %s: %s, %.1f s per size, median of %d ====\n", name,
                    test == StreamTest::bw ? "bandwidth MB/sec at the receiver" : "one-way latency us (mean, p50, p99)",
                    static_cast<double>(durationMs) / 1000.0, repetitions);
        if (test == StreamTest::bw) {
            std::printf("%-8s %12s %12s %9s\n", "MsgSize", "SMC-R", "TCP", "SMC/TCP");
        } else {
            std::printf("%-8s %10s %8s %8s %10s %8s %8s %9s\n", "MsgSize", "SMC-R", "p50", "p99", "TCP", "p50", "p99",
                        "SMC/TCP");
        }
        for (size_t i = 0; i < sizes.size(); ++i) {
            const StreamResult& m = results[i][0];
            const StreamResult& k = results[i][1];
            if (test == StreamTest::bw) {
                std::printf("%-8s %12.2f %12.2f %8.2fx\n", sizeText(sizes[i]).c_str(), m.bwMBs, k.bwMBs,
                            k.bwMBs > 0 ? m.bwMBs / k.bwMBs : 0.0);
            } else {
                std::printf("%-8s %10.2f %8.2f %8.2f %10.2f %8.2f %8.2f %8.2fx\n", sizeText(sizes[i]).c_str(),
                            m.latMeanUs, m.latP50Us, m.latP99Us, k.latMeanUs, k.latP50Us, k.latP99Us,
                            k.latMeanUs > 0 ? m.latMeanUs / k.latMeanUs : 0.0);
            }
        }
    }
    if (compare)
        std::printf("wire: %s\ncampaign %lld in %s\n", wire.c_str(), static_cast<long long>(ran->campaignId),
                    qPrintable(store->path()));
    std::fflush(stdout);
    return ran->console.failedCells == 0 ? kExitOk : kExitRunsFailed;
}

}  // namespace

int runBenchStream(const Args& args) {
    std::string transport = "smcr";
    std::optional<std::string> link;  // default: ideal, or the preset's
    std::string preset;
    SettingList extra;
    std::vector<StreamTest> tests = {StreamTest::bw, StreamTest::lat};
    SizeLoop loop;
    loop.first = 1;
    loop.last = 64 * 1024;
    loop.step = 2;
    loop.multiply = true;
    uint64_t durationMs = 2000;
    bool compare = false;
    int repetitions = 0;  // 0: the mode's default
    std::string dbPath;
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
                if (name == "tcp_bw")
                    tests.push_back(StreamTest::bw);
                else if (name == "tcp_lat")
                    tests.push_back(StreamTest::lat);
                else
                    return usage("unknown test '" + name + "' (tcp_bw, tcp_lat)");
            }
        } else if (auto oo = cursor.takeValue("-oo")) {
            std::string error;
            auto parsed = parseSizeLoop(*oo, &error);
            if (!parsed) return usage("-oo: " + error);
            loop = *parsed;
        } else if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 100 || *ms > 3600000) return usage("-t needs a duration 100ms..1h");
            durationMs = *ms;
        } else if (auto l = cursor.takeValue("--link")) {
            if (auto model = smcr::fabric::sim::linkPreset(*l); !model)
                return usage("--link: " + model.error().message);
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
            if (!parseSettingArg(*s, &extra)) return usage("--set expects NAME=VALUE");
        } else if (auto r = cursor.takeValue("--reps")) {
            auto n = parseInt(*r);
            if (!n || *n < 1 || *n > orchestrator::kMaxRepetitions) return usage("--reps needs 1..1000");
            repetitions = static_cast<int>(*n);
        } else if (auto db = cursor.takeValue("--db")) {
            dbPath = *db;
        } else if (cursor.takeFlag("--isolate")) {
            isolate = true;
        } else if (cursor.takeFlag("--counters")) {
            counters = true;
        } else if (cursor.takeFlag("--compare")) {
            compare = true;
        } else if (cursor.takeFlag("--no-pin")) {
            pin = false;
        } else if (!cursor.error().empty()) {
            return usage(cursor.error());
        } else {
            return usage("unknown option '" + cursor.peek() + "'");
        }
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (loop.variable != "msg_size") return usage("-oo loops over msg_size only");
    const std::vector<uint64_t> sizes = loop.values();
    if (sizes.empty() || sizes.front() < 1 || sizes.back() > (16u << 20)) return usage("message sizes must be 1..16M");
    if (tests.empty()) return usage("--test needs at least one test");

    if (preset.empty()) {
        if (!columnKeys.empty() || isolate || counters || format || !jsonOut.empty()) {
            return usage("--columns, --isolate, --counters, --format and --json-out go with --preset datapath");
        }
        const std::vector<std::string> transports =
            compare ? std::vector<std::string>{"smcr", "tcp"} : std::vector<std::string>{transport};
        return runClassic(transports, link.value_or("ideal"), extra, tests, sizes, durationMs,
                          repetitions > 0 ? repetitions : 1, pin, dbPath);
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
            if (std::find(o.columnKeys.begin(), o.columnKeys.end(), key) == o.columnKeys.end())
                o.columnKeys.push_back(key);
        }
    }
    o.format = format.value_or(report::Format::text);
    o.pin = pin;
    o.counterTables = counters;
    o.extraSettings = extra;
    o.jsonOutPath = jsonOut;
    o.repetitions = repetitions > 0 ? repetitions : orchestrator::kPresetRepetitions;
    o.dbPath = dbPath;
    return runDatapathBench(o);
}

}  // namespace smclab::cli
