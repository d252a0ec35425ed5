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

#include <smcr/settings.h>

#include <QJsonObject>

#include "args.h"
#include "bench_commands.h"
#include "command.h"
#include "local_campaign.h"
#include "orchestrator/presets.h"
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
    uint64_t durationMs = 2000;
    // One client by default: several clients also measure head-of-line
    // blocking in the server, not the cost of the accept path.
    int clients = 1;
    uint64_t requestBytes = 64;
    int reps = 3;
    bool pin = true;
    std::string dbPath;
    SettingList settings;
};

// nullopt: go on; a value: exit with it (help printed, or a usage error).
std::optional<int> parseOptions(const Args& args, Options* o) {
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 100 || *ms > 3600000) return benchUsage(kWho, "-t needs a duration 100ms..1h");
            o->durationMs = *ms;
        } else if (auto c = cursor.takeValue("--clients")) {
            auto n = parseInt(*c);
            if (!n || *n < 1 || *n > 256) return benchUsage(kWho, "--clients needs 1..256");
            o->clients = static_cast<int>(*n);
        } else if (auto q = cursor.takeValue("--request")) {
            auto n = parseSize(*q);
            if (!n || *n < 1 || *n > kMaxRequestBytes) return benchUsage(kWho, "--request needs 1..1M bytes");
            o->requestBytes = *n;
        } else if (auto rp = cursor.takeValue("--reps")) {
            auto n = parseInt(*rp);
            if (!n || *n < 1 || *n > 100) return benchUsage(kWho, "--reps needs 1..100");
            o->reps = static_cast<int>(*n);
        } else if (auto st = cursor.takeValue("--set")) {
            if (!parseSettingArg(*st, &o->settings)) return benchUsage(kWho, "--set needs NAME=VALUE");
        } else if (auto db = cursor.takeValue("--db")) {
            o->dbPath = *db;
        } else if (cursor.takeFlag("--no-pin")) {
            o->pin = false;
        } else if (!cursor.error().empty()) {
            return benchUsage(kWho, cursor.error());
        } else {
            return benchUsage(kWho, cursor.unknownOption());
        }
    }
    if (!cursor.error().empty()) return benchUsage(kWho, cursor.error());
    // A bad setting is a usage error here, not a failed column later.
    smcr::Settings probe;
    for (const auto& [name, value] : o->settings) {
        if (auto set = probe.set(name, value); !set) return benchUsage(kWho, "--set: " + set.error().toString());
    }
    return std::nullopt;
}

// The fallback preset with the bench's clients, reply size, time and settings.
CampaignSpec benchSpec(const Options& o) {
    CampaignSpec spec = *presetCampaign(QStringLiteral("fallback"));
    spec.name = QStringLiteral("bench accept");
    spec.durationMs = static_cast<int>(o.durationMs);
    spec.warmupMs = spec.durationMs / 5;
    spec.repetitions = o.reps;
    spec.sizes = {o.requestBytes};
    for (WorkloadSpec& w : spec.workloads) {
        w.sizes = {o.requestBytes};
        w.params.insert(QStringLiteral("connections"), o.clients);
        w.params.insert(QStringLiteral("threads"), std::min(2, o.clients));
    }
    const QJsonObject extra = settingsObject(o.settings);
    for (ColumnSpec& c : spec.columns) {
        if (c.transport != QLatin1String("smcr")) continue;
        for (auto it = extra.begin(); it != extra.end(); ++it) c.settings.insert(it.key(), it.value());
    }
    spec.description = QStringLiteral(
                           "smclab bench accept: the fallback preset, %1 connection(s), %2 B replies, "
                           "%3 s per cell, %4 repetition(s)")
                           .arg(o.clients)
                           .arg(o.requestBytes)
                           .arg(static_cast<double>(o.durationMs) / 1000.0)
                           .arg(o.reps);
    return spec;
}

}  // namespace

int runBenchAccept(const Args& args) {
    Options o;
    if (auto exit = parseOptions(args, &o)) return *exit;
    const CampaignSpec spec = benchSpec(o);
    auto store = openBenchStore(o.dbPath, kWho);
    if (!store) return kExitFailure;
    LocalCampaignOptions labOptions;
    labOptions.who = kWho;
    labOptions.pin = o.pin;
    const auto ran = runBenchCampaign(spec, *store, labOptions);
    if (!ran) return kExitFailure;
    const qint64 id = ran->result.campaignId;
    if (!printCampaignTables(*store, id, stdout)) return kExitFailure;
    const QString latency = report::formatText(db::percentileTables(*store, id, orchestrator::storedWorkloads(spec),
                                                                    QStringLiteral("Connect + request latency %2")));
    std::printf("%s", qPrintable(latency));
    std::printf("wire: %s\ncampaign %lld in %s\n", qPrintable(ran->wireNote), static_cast<long long>(id),
                qPrintable(store->path()));
    std::fflush(stdout);
    return ran->result.failedCells == 0 ? kExitOk : kExitRunsFailed;
}

}  // namespace smclab::cli
