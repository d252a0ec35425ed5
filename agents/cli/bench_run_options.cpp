#include "bench_run_options.h"

#include <cstdio>

#include <smcr/settings.h>

#include "bench_commands.h"
#include "orchestrator/campaign_spec.h"
#include "smclab/db/result_store.h"
#include "stream_campaign.h"

namespace smclab::cli {

bool takeBenchRunOption(ArgCursor& cursor, const BenchRunOptionSet& accepted, BenchRunOptions* options) {
    if (auto t = accepted.duration ? cursor.takeValue("-t") : std::nullopt) {
        auto ms = parseDurationMs(*t);
        if (!ms || *ms < 100 || *ms > 3600000)
            cursor.setError("-t needs a duration 100ms..1h");
        else
            options->durationMs = *ms;
    } else if (auto r = cursor.takeValue("--reps")) {
        auto n = parseInt(*r);
        if (!n || *n < 1 || *n > orchestrator::kMaxRepetitions)
            cursor.setError("--reps needs 1.." + std::to_string(orchestrator::kMaxRepetitions));
        else
            options->repetitions = static_cast<int>(*n);
    } else if (auto s = accepted.settings ? cursor.takeValue("--set") : std::nullopt) {
        if (!parseSettingArg(*s, &options->settings)) cursor.setError("--set needs NAME=VALUE");
    } else if (auto db = cursor.takeValue("--db")) {
        options->dbPath = *db;
    } else if (cursor.takeFlag("--no-pin")) {
        options->pin = false;
    } else {
        return false;
    }
    return true;
}

std::optional<int> readBenchOptions(const Args& args, const char* who, const std::function<void()>& help,
                                    const BenchRunOptionSet& accepted, BenchRunOptions* run,
                                    const std::function<bool(ArgCursor&)>& takeOwn) {
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            help();
            return kExitOk;
        }
        const bool taken = takeOwn(cursor) || takeBenchRunOption(cursor, accepted, run);
        if (!cursor.error().empty()) return benchUsage(who, cursor.error());
        if (!taken) return benchUsage(who, cursor.unknownOption());
    }
    if (!cursor.error().empty()) return benchUsage(who, cursor.error());
    return std::nullopt;
}

std::optional<std::string> checkBenchSettings(const SettingList& settings) {
    // A bad setting is a usage error here, not a failed column later.
    smcr::Settings probe;
    for (const auto& [name, value] : settings) {
        if (auto set = probe.set(name, value); !set) return "--set: " + set.error().toString();
    }
    return std::nullopt;
}

void applyBenchRunOptions(const BenchRunOptions& options, orchestrator::PresetParams* params) {
    if (options.durationMs) params->durationMs = static_cast<int>(*options.durationMs);
    if (options.repetitions) params->repetitions = *options.repetitions;
    const QJsonObject settings = settingsObject(options.settings);
    for (auto it = settings.begin(); it != settings.end(); ++it) params->smcSettings.insert(it.key(), it.value());
}

int finishBenchRun(const BenchRun& run) {
    std::printf("wire: %s\ncampaign %lld in %s\n", qPrintable(run.ran.wireNote),
                static_cast<long long>(run.campaignId()), qPrintable(run.store->path()));
    std::fflush(stdout);
    return run.ran.result.failedCells == 0 ? kExitOk : kExitRunsFailed;
}

std::optional<BenchRun> runPresetLocally(const char* who, const QString& preset,
                                         const orchestrator::PresetParams& params, const BenchRunOptions& options) {
    auto spec = orchestrator::presetWithParams(preset, params);
    if (!spec) {
        std::fprintf(stderr, "%s: %s\n", who, spec.error().message.c_str());
        return std::nullopt;
    }
    auto store = openBenchStore(options.dbPath, who);
    if (!store) return std::nullopt;
    LocalCampaignOptions lab;
    lab.who = who;
    lab.pin = options.pin;
    auto ran = runBenchCampaign(*spec, *store, lab);
    if (!ran) return std::nullopt;
    return BenchRun{std::move(store), std::move(*ran), std::move(*spec)};
}

}  // namespace smclab::cli
