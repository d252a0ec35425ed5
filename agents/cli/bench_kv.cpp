// smclab bench kv: redis-benchmark-style SET and GET between two local
// agents, over libsmcr (SMC-R on the sim fabric) or kernel TCP.
//
//   --preset credits   the RQ credits RFC's benchmark (seed 004: redis-benchmark
//                      -t set,get -P 1 -c 200 -d 10): the `credits` campaign
//                      preset (columns SMC with credits off, credits on,
//                      rx_backlog, and TCP, in the configuration that makes
//                      RNR happen without them) with the bench's counts.
//
// A quick local runner: the preset runs on the demo's local lab through the
// orchestrator and lands in the results store (local_campaign.h); the
// tables come back from the store, plus the RNR and credit counters.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QJsonObject>

#include "args.h"
#include "bench_commands.h"
#include "bench_run_options.h"
#include "command.h"
#include "orchestrator/preset_params.h"
#include "orchestrator/presets.h"
#include "orchestrator/run_record.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "smclab/report/stored_counters.h"
#include "stream_campaign.h"

namespace smclab::cli {

namespace {

using namespace smclab::orchestrator;

constexpr const char* kWho = "smclab bench kv";

struct Options {
    int clients = 200;
    uint64_t requests = 20000;
    uint64_t dataSize = 10;
    int recvWr = kCreditsRecvWr;
    int repostDelayUs = kCreditsRepostDelayUs;
    std::vector<std::string> columns;  // the preset's column keys; empty: all of them
    BenchRunOptions run;
};

// The preset's columns by key, in its order: "off, on, backlog, tcp".
std::string columnKeys() {
    std::string out;
    for (const PresetColumnChoice& c : presetColumnChoices(QStringLiteral("credits")))
        out += (out.empty() ? "" : ", ") + c.key.toStdString();
    return out;
}

// Counters of the client engine that say where the credits went, summed over
// a column's runs (gauges: their largest value).
constexpr const char* kCounters[] = {
    "smcr.rnr_naks_received",     "smcr.rnr_naks_sent",        "smcr.credit_waits",   "smcr.credits_announced_cdc",
    "smcr.credits_announced_llc", "smcr.credit_announce_llcs", "smcr.rx_backlog_max", "smcr.credit_links"};

bool isGauge(const QString& name) {
    return name == QLatin1String("smcr.rx_backlog_max") || name == QLatin1String("smcr.credit_links");
}

void printCounters(db::ResultStore& store, qint64 campaignId, const CampaignSpec& spec) {
    auto runs = store.runs(campaignId);
    if (!runs) return;
    std::printf("==== Engine counters (client side, SET + GET) ====\n%-28s", "counter");
    for (const ColumnSpec& c : spec.columns) std::printf(" %16s", qPrintable(c.label));
    std::printf("\n");
    std::vector<std::map<QString, qint64>> sums(spec.columns.size());
    for (const db::Run& run : *runs) {
        const int column = spec.columnIndex(run.cell.column);
        if (run.status != db::RunStatus::done || column < 0) continue;
        auto counters = store.counters(run.id);
        if (!counters) continue;
        for (const db::Counter& c : *counters) {
            if (c.side != smcr::Side::client) continue;
            qint64& sum = sums[static_cast<size_t>(column)][c.name];
            sum = isGauge(c.name) ? std::max(sum, c.value) : sum + c.value;
        }
    }
    for (const char* counter : kCounters) {
        std::printf("%-28s", counter);
        for (size_t i = 0; i < spec.columns.size(); ++i) {
            if (spec.columns[i].transport == QLatin1String("tcp")) {
                std::printf(" %16s", "-");
            } else {
                std::printf(" %16lld", static_cast<long long>(sums[i][QString::fromLatin1(counter)]));
            }
        }
        std::printf("\n");
    }
}

void printHelp() {
    std::printf(
        "usage: smclab bench kv --preset credits [-c CLIENTS] [-n REQUESTS] [-d SIZE]\n"
        "                       [--recv-wr N] [--repost-delay-us N] [--columns LIST]\n"
        "                       [--reps N] [--no-pin] [--db PATH]\n"
        "\n"
        "redis-benchmark-style SET and GET (pipeline 1) between two local agents (the\n"
        "local lab of `smclab demo`), the kv workload's RESP server and client, over\n"
        "libsmcr on the sim fabric or TCP. The run is a campaign in the results store.\n"
        "\n"
        "--preset credits: the RQ credits RFC's benchmark (seed 004: redis-benchmark\n"
        "-t set,get -P 1 -c 200 -d 10), the `credits` campaign preset. All connections\n"
        "share one link group with one link (smcr_max_links_per_lgr=1, the seed's single\n"
        "port); every SMC column runs the condition that makes RNR happen: a small\n"
        "receive queue (smcr_max_recv_wr) and a slow receive path (lab.rx_repost_delay_us,\n"
        "a lab knob: each CDC is handled and its receive WQE refilled that many\n"
        "microseconds after it arrived, a late rx tasklet; a delay, no CPU is spent),\n"
        "both ends. Tables in the cover-letter layout, percentages against the first\n"
        "column: requests/s, p50 and p99 latency per test, and the client engine's RNR\n"
        "and credit counters.\n"
        "\n"
        "options:\n"
        "  -c CLIENTS            connections (default 200)\n"
        "  -n REQUESTS           requests per test and column (default 20000)\n"
        "  -d SIZE               SET value size (default 10)\n"
        "  --recv-wr N           smcr_max_recv_wr of both engines (default %d)\n"
        "  --repost-delay-us N   lab.rx_repost_delay_us of both engines (default %d):\n"
        "                        CDC handling and receive WQE refill this late\n"
        "  --columns LIST        off,on,backlog,tcp (default all, first = baseline):\n",
        kCreditsRecvWr, kCreditsRepostDelayUs);
    for (const PresetColumnChoice& c : presetColumnChoices(QStringLiteral("credits")))
        std::printf("                        %-8s %s\n", qPrintable(c.key), qPrintable(c.summary));
    std::printf(
        "  --reps N              repetitions in interleaved rounds (default 1)\n"
        "  --no-pin              do not pin the agents to CPUs\n"
        "  --db PATH             results database (default: $SMCLAB_DB or the default file)\n");
}

// The credits preset with the bench's counts and columns.
PresetParams benchParams(const Options& o) {
    PresetParams params;
    params.name = QStringLiteral("bench kv credits");
    applyBenchRunOptions(o.run, &params);
    params.repetitions = o.run.repetitions.value_or(1);
    params.sizes = {o.dataSize};
    params.workloadParams = {{QStringLiteral("clients"), o.clients},
                             {QStringLiteral("requests"), static_cast<double>(o.requests)}};
    params.smcSettings.insert(QString::fromLatin1(kCreditsRecvWrSetting), o.recvWr);
    params.smcSettings.insert(QString::fromLatin1(kCreditsRepostDelaySetting), o.repostDelayUs);
    for (const std::string& key : o.columns) params.columns << QString::fromStdString(key);
    params.description = QStringLiteral(
                             "smclab bench kv --preset credits: SET and GET, %1 connections, value %2 B, "
                             "pipeline 1, %3 requests per test, %4 repetition(s); every SMC column: one link "
                             "per link group, smcr_max_recv_wr %5, lab.rx_repost_delay_us %6")
                             .arg(o.clients)
                             .arg(o.dataSize)
                             .arg(o.requests)
                             .arg(*params.repetitions)
                             .arg(o.recvWr)
                             .arg(o.repostDelayUs);
    return params;
}

// A number option's value, or (with the cursor's error set) its minimum.
int64_t numberArg(ArgCursor& cursor, const std::string& option, const std::string& text, int64_t min, int64_t max) {
    auto n = parseInt(text);
    if (!n || *n < min || *n > max) {
        cursor.setError(option + ": expects a number " + std::to_string(min) + ".." + std::to_string(max) + ", got '" +
                        text + "'");
        return min;
    }
    return *n;
}

// The exit status when the command line says to stop here (help, a usage error).
std::optional<int> parseOptions(const Args& args, Options* o, std::optional<std::string>* preset) {
    auto takeOwn = [o, preset](ArgCursor& cursor) {
        if (auto v = cursor.takeValue("--preset")) {
            *preset = *v;
        } else if (auto c = cursor.takeValue("-c")) {
            o->clients = static_cast<int>(numberArg(cursor, "-c", *c, 1, 10000));
        } else if (auto n = cursor.takeValue("-n")) {
            o->requests = static_cast<uint64_t>(numberArg(cursor, "-n", *n, 1, 1000000000));
        } else if (auto d = cursor.takeValue("-d")) {
            auto size = parseSize(*d);
            if (!size || *size == 0)
                cursor.setError("-d: bad size '" + *d + "'");
            else
                o->dataSize = *size;
        } else if (auto w = cursor.takeValue("--recv-wr")) {
            o->recvWr = static_cast<int>(numberArg(cursor, "--recv-wr", *w, 2, 2048));
        } else if (auto r = cursor.takeValue("--repost-delay-us")) {
            o->repostDelayUs = static_cast<int>(numberArg(cursor, "--repost-delay-us", *r, 0, 100000));
        } else if (auto cols = cursor.takeValue("--columns")) {
            o->columns = splitList(*cols);
            if (o->columns.empty()) cursor.setError("--columns: none given");
        } else {
            return false;
        }
        return true;
    };
    return readBenchOptions(args, kWho, printHelp, {.duration = false, .settings = false}, &o->run, takeOwn);
}

// Empty when the options make a campaign; else what to tell the user.
std::string checkOptions(const Options& o, const std::optional<std::string>& preset) {
    if (!preset) return "--preset credits is required (the only preset)";
    if (*preset != "credits") return "--preset: unknown preset '" + *preset + "' (known: credits)";
    const std::vector<PresetColumnChoice> choices = presetColumnChoices(QStringLiteral("credits"));
    for (const std::string& key : o.columns) {
        const bool known = std::any_of(choices.begin(), choices.end(), [&](const PresetColumnChoice& c) {
            return c.key == QString::fromStdString(key);
        });
        if (!known) return "--columns: unknown column '" + key + "' (" + columnKeys() + ")";
    }
    return {};
}

}  // namespace

int runBenchKv(const Args& args) {
    Options o;
    std::optional<std::string> preset;
    if (const auto exitCode = parseOptions(args, &o, &preset)) return *exitCode;
    if (const std::string problem = checkOptions(o, preset); !problem.empty()) return benchUsage(kWho, problem);

    const PresetParams params = benchParams(o);
    std::printf("%s\n", qPrintable(params.description));
    std::fflush(stdout);
    auto bench = runPresetLocally(kWho, QStringLiteral("credits"), params, o.run);
    if (!bench) return kExitFailure;
    if (!printCampaignTables(*bench->store, bench->campaignId(), stdout)) return kExitFailure;
    // Latency percentiles of each test, as redis-benchmark prints them.
    std::printf(
        "%s", qPrintable(report::formatText(db::percentileTables(
                  *bench->store, bench->campaignId(), storedWorkloads(bench->spec), QStringLiteral("%1 %2 latency")))));
    printCounters(*bench->store, bench->campaignId(), bench->spec);
    return finishBenchRun(*bench);
}

}  // namespace smclab::cli
