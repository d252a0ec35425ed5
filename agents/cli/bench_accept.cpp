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
#include <cstdio>
#include <string>

#include <QJsonObject>

#include <smcr/settings.h>

#include "args.h"
#include "bench_commands.h"
#include "command.h"
#include "local_campaign.h"
#include "orchestrator/presets.h"
#include "orchestrator/run_record.h"
#include "smclab/db/comparison_query.h"
#include "smclab/report/format_text.h"
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

int usage(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n(see smclab bench accept --help)\n", kWho, message.c_str());
    return kExitUsage;
}

}  // namespace

int runBenchAccept(const Args& args) {
    uint64_t durationMs = 2000;
    // One client by default: several clients also measure head-of-line
    // blocking in the server, not the cost of the accept path.
    int clients = 1;
    uint64_t requestBytes = 64;
    int reps = 3;
    bool pin = true;
    std::string dbPath;
    SettingList settings;
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 100 || *ms > 3600000) return usage("-t needs a duration 100ms..1h");
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
        } else if (auto db = cursor.takeValue("--db")) {
            dbPath = *db;
        } else if (cursor.takeFlag("--no-pin")) {
            pin = false;
        } else if (!cursor.error().empty()) {
            return usage(cursor.error());
        } else {
            return usage("unknown option '" + cursor.peek() + "'");
        }
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    // A bad setting is a usage error here, not a failed column later.
    if (!settings.empty()) {
        smcr::Settings probe;
        for (const auto& [name, value] : settings) {
            if (auto st = probe.set(name, value); !st) return usage("--set: " + st.error().toString());
        }
    }

    CampaignSpec spec = *presetCampaign(QStringLiteral("fallback"));
    spec.name = QStringLiteral("bench accept");
    spec.durationMs = static_cast<int>(durationMs);
    spec.warmupMs = spec.durationMs / 5;
    spec.repetitions = reps;
    spec.sizes = {requestBytes};
    for (WorkloadSpec& w : spec.workloads) {
        w.sizes = {requestBytes};
        w.params.insert(QStringLiteral("connections"), clients);
        w.params.insert(QStringLiteral("threads"), std::min(2, clients));
    }
    const QJsonObject extra = settingsObject(settings);
    for (ColumnSpec& c : spec.columns) {
        if (c.transport != QLatin1String("smcr")) continue;
        for (auto it = extra.begin(); it != extra.end(); ++it) c.settings.insert(it.key(), it.value());
    }
    spec.description = QStringLiteral("smclab bench accept: the fallback preset, %1 connection(s), %2 B replies, "
                                      "%3 s per cell, %4 repetition(s)")
                           .arg(clients)
                           .arg(requestBytes)
                           .arg(static_cast<double>(durationMs) / 1000.0)
                           .arg(reps);

    auto store = openBenchStore(dbPath, kWho);
    if (!store) return kExitFailure;
    LocalCampaignOptions labOptions;
    labOptions.who = kWho;
    labOptions.pin = pin;
    auto ran = runLocalCampaign(spec, *store, labOptions);
    if (!ran) {
        std::fprintf(stderr, "%s: %s\n", kWho, ran.error().message.c_str());
        return kExitFailure;
    }
    if (ran->result.state != RunnerState::finished) {
        std::fprintf(stderr, "%s: %s\n", kWho,
                     qPrintable(ran->result.error.isEmpty() ? QStringLiteral("the campaign did not finish")
                                                            : ran->result.error));
        return kExitFailure;
    }
    printColumnFailures(ran->result, kWho);
    const qint64 id = ran->result.campaignId;
    if (!printCampaignTables(*store, id, stdout)) return kExitFailure;
    QList<report::ComparisonTable> latency;
    for (const char* metric : {"p50_us", "p99_us"}) {
        auto table = db::metricTable(*store, id, storedWorkloadName(spec, 0), QString::fromLatin1(metric));
        if (!table) continue;
        table->title = QStringLiteral("Connect + request latency %1").arg(QString::fromLatin1(metric).section('_', 0, 0));
        latency.append(*table);
    }
    std::printf("%s", qPrintable(report::formatText(latency)));
    std::printf("wire: %s\ncampaign %lld in %s\n", qPrintable(ran->wireNote), static_cast<long long>(id),
                qPrintable(store->path()));
    std::fflush(stdout);
    return ran->result.failedCells == 0 ? kExitOk : kExitRunsFailed;
}

}  // namespace smclab::cli
