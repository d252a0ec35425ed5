// The options the bench commands that run a preset on the local lab share
// (-t, --reps, --db, --no-pin, --set), read in one place, and what such a
// command does with them: the preset with its parameters, run locally into
// the results store.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "args.h"
#include "bench_settings.h"
#include "local_campaign.h"
#include "orchestrator/preset_params.h"

namespace smclab::db {
class ResultStore;
}

namespace smclab::cli {

// Which of the shared options a command takes (each takes --reps, --db and --no-pin).
struct BenchRunOptionSet {
    bool duration = true;  // -t SECONDS
    bool settings = true;  // --set NAME=VALUE
};

struct BenchRunOptions {
    std::optional<uint64_t> durationMs;
    std::optional<int> repetitions;
    std::string dbPath;
    bool pin = true;
    SettingList settings;  // --set, in command-line order
};

// Takes the word at the cursor when it is one of `accepted` (returns true);
// a malformed value leaves its message in cursor.error().
bool takeBenchRunOption(ArgCursor& cursor, const BenchRunOptionSet& accepted, BenchRunOptions* options);

// A bench command's command line, word by word: -h/--help prints `help`;
// any other word is one of the command's own options (`takeOwn` takes it
// and returns true, leaving a malformed value's message in cursor.error())
// or one of the shared options `accepted`. Returns the exit status when the
// command stops here: kExitOk after the help, a usage error (benchUsage) at
// the first malformed value or unknown word; nullopt to go on.
std::optional<int> readBenchOptions(const Args& args, const char* who, const std::function<void()>& help,
                                    const BenchRunOptionSet& accepted, BenchRunOptions* run,
                                    const std::function<bool(ArgCursor&)>& takeOwn);

// What to tell the user about a --set the engine refuses (unknown name,
// value out of range); nullopt when the engine takes them all.
std::optional<std::string> checkBenchSettings(const SettingList& settings);

// The run time, repetitions and --set settings of `options` as preset parameters.
void applyBenchRunOptions(const BenchRunOptions& options, orchestrator::PresetParams* params);

// The campaign a bench ran, with the store that holds it.
struct BenchRun {
    std::unique_ptr<db::ResultStore> store;
    LocalCampaign ran;
    orchestrator::CampaignSpec spec;

    qint64 campaignId() const { return ran.result.campaignId; }
};

// A bench's last lines, what the run crossed and where it is stored ("wire:
// ...", "campaign N in PATH"); returns the exit status, kExitRunsFailed
// when a cell failed.
int finishBenchRun(const BenchRun& run);

// The preset `preset` with `params`, on the local lab, into the store of
// options.dbPath; nullopt after saying why on stderr (prefixed with `who`).
std::optional<BenchRun> runPresetLocally(const char* who, const QString& preset,
                                         const orchestrator::PresetParams& params, const BenchRunOptions& options);

}  // namespace smclab::cli
