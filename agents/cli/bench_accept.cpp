// smclab bench accept: the cost of a libsmcr listener for plain TCP clients
// (seed 003, "shadow sockets for fallback connections": wrk with
// "Connection: Close" against nginx, TCP 145438 req/s, SMC-R fallback
// 114192, with the fallback accept queue 143528 = 98.7% of TCP).
//
// The `fallback` campaign preset with the bench's clients, request size,
// time and repetitions: short connections (connect, one request, the
// reply, the server's close) from plain TCP clients against the agents'
// http server on a kernel TCP listener and on a libsmcr listener with
// lab.fast_fallback off and on; connections/s and connect + request
// latency, in percent of the TCP listener. On the demo's local lab, stored
// like any campaign (local_campaign.h).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include <QJsonObject>

#include "args.h"
#include "bench_commands.h"
#include "bench_run_options.h"
#include "command.h"
#include "orchestrator/preset_params.h"
#include "orchestrator/run_record.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "smclab/report/stored_counters.h"
#include "stream_campaign.h"

namespace smclab::cli {

namespace {

using namespace smclab::orchestrator;

constexpr const char* kWho = "smclab bench accept";
constexpr uint64_t kMaxRequestBytes = 1 << 20;

void printHelp() {
    std::printf(
        "usage: smclab bench accept [-t SECONDS] [--clients N] [--request BYTES] [--reps N]\n"
        "                           [--set NAME=VALUE]... [--no-pin] [--db PATH]\n"
        "\n"
        "Short connections from plain TCP clients (connect, one request, the reply,\n"
        "the server's close: wrk -H 'Connection: close') against the agents' http\n"
        "server on a kernel TCP listener and on a libsmcr listener with\n"
        "lab.fast_fallback off and on: the `fallback` campaign preset between two local\n"
        "agents (the local lab of `smclab demo`), stored in the results database.\n"
        "Prints connections/s and the p50 and p99 connect+request latency in the patch\n"
        "layout, in percent of the TCP listener (seed 003: fast fallback on reached\n"
        "98.7%% of TCP where the SMC-R fallback path made 78.5%%).\n"
        "\n"
        "options:\n"
        "  -t SECONDS       measured time per cell (default 2; 100ms..1h)\n"
        "  --clients N      connections, one request in flight each (default 1; more\n"
        "                   also measure the server's head-of-line blocking)\n"
        "  --request BYTES  the served file's size, the reply body (default 64)\n"
        "  --reps N         repetitions in interleaved rounds (default 3)\n"
        "  --set NAME=VAL   a libsmcr setting for both libsmcr columns (limit_smc_hs=on, ...)\n"
        "  --no-pin         do not pin the agents to CPUs\n"
        "  --db PATH        results database (default: $SMCLAB_DB or the default file)\n");
}

struct Options {
    // One client by default: several clients also measure head-of-line
    // blocking in the server, not the cost of the accept path.
    int clients = 1;
    uint64_t requestBytes = 64;
    BenchRunOptions run;
};

// nullopt: go on; a value: exit with it (help printed, or a usage error).
std::optional<int> parseOptions(const Args& args, Options* o) {
    auto takeOwn = [o](ArgCursor& cursor) {
        if (auto c = cursor.takeValue("--clients")) {
            auto n = parseInt(*c);
            if (!n || *n < 1 || *n > 256)
                cursor.setError("--clients needs 1..256");
            else
                o->clients = static_cast<int>(*n);
        } else if (auto q = cursor.takeValue("--request")) {
            auto n = parseSize(*q);
            if (!n || *n < 1 || *n > kMaxRequestBytes)
                cursor.setError("--request needs 1..1M bytes");
            else
                o->requestBytes = *n;
        } else {
            return false;
        }
        return true;
    };
    if (auto exit = readBenchOptions(args, kWho, printHelp, {}, &o->run, takeOwn)) return exit;
    if (const auto refused = checkBenchSettings(o->run.settings)) return benchUsage(kWho, *refused);
    return std::nullopt;
}

// The fallback preset with the bench's clients, reply size, time and settings.
PresetParams benchParams(const Options& o) {
    PresetParams params;
    params.name = QStringLiteral("bench accept");
    applyBenchRunOptions(o.run, &params);
    params.durationMs = params.durationMs.value_or(2000);
    params.repetitions = params.repetitions.value_or(3);
    params.sizes = {o.requestBytes};
    params.workloadParams = {{QStringLiteral("connections"), o.clients},
                             {QStringLiteral("threads"), std::min(2, o.clients)}};
    params.description = QStringLiteral(
                             "smclab bench accept: the fallback preset, %1 connection(s), %2 B replies, "
                             "%3 s per cell, %4 repetition(s)")
                             .arg(o.clients)
                             .arg(o.requestBytes)
                             .arg(static_cast<double>(*params.durationMs) / 1000.0)
                             .arg(*params.repetitions);
    return params;
}

}  // namespace

int runBenchAccept(const Args& args) {
    Options o;
    if (auto exit = parseOptions(args, &o)) return *exit;
    auto bench = runPresetLocally(kWho, QStringLiteral("fallback"), benchParams(o), o.run);
    if (!bench) return kExitFailure;
    if (!printCampaignTables(*bench->store, bench->campaignId(), stdout)) return kExitFailure;
    const QString latency =
        report::formatText(db::percentileTables(*bench->store, bench->campaignId(), storedWorkloads(bench->spec),
                                                QStringLiteral("Connect + request latency %2")));
    std::printf("%s", qPrintable(latency));
    return finishBenchRun(*bench);
}

}  // namespace smclab::cli
