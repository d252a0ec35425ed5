// smclab db copy SRC DST: campaigns between results stores (an SQLite file
// or a postgresql:// URL on either side); db/store_copy.h says what
// "already there" means and why copying twice adds nothing.
#include <cstdio>

#include "args.h"
#include "campaign_console.h"
#include "commands.h"
#include "smclab/db/store_copy.h"
#include "store_cli.h"

namespace smclab::cli {

namespace {

void printDbHelp() {
    std::printf(
        "usage: smclab db copy SRC DST\n"
        "\n"
        "Copies every campaign of the results database SRC into DST, with its runs,\n"
        "settings, host facts, results, histograms, samples and counters. SRC and DST\n"
        "are SQLite files or postgresql://USER@HOST[:PORT]/DBNAME URLs (the password\n"
        "from ~/.pgpass or PGPASSWORD); DST is created and migrated if need be.\n"
        "Campaigns already in DST (same name and creation time) get only the runs\n"
        "they lack, so running it twice copies nothing the second time.\n");
}

int copy(const std::string& from, const std::string& to) {
    const char* command = "smclab db copy";
    auto source = openExistingStore(QString::fromStdString(from), command);
    if (!source) return kExitFailure;
    ensureCoreApplication();
    auto destination = db::ResultStore::open(QString::fromStdString(to));
    if (!destination) return reportError(command, destination.error());
    auto counts = db::copyCampaigns(*source, **destination);
    if (!counts) return reportError(command, counts.error());
    std::printf("copied %d campaign(s), %d run(s), %lld sample(s) from %s to %s", counts->campaignsCopied,
                counts->runsCopied, static_cast<long long>(counts->samplesCopied), qPrintable(source->path()),
                qPrintable((*destination)->path()));
    std::printf("; %d campaign(s) completed with new runs, %d already there\n", counts->campaignsUpdated,
                counts->campaignsPresent);
    return kExitOk;
}

}  // namespace

int runDb(const Args& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        printDbHelp();
        return args.empty() ? kExitUsage : kExitOk;
    }
    if (args[0] == "copy") {
        if (args.size() == 2 && (args[1] == "--help" || args[1] == "-h")) {
            printDbHelp();
            return kExitOk;
        }
        if (args.size() != 3) {
            std::fprintf(stderr, "smclab db copy: needs SRC and DST\n(see smclab db --help)\n");
            return kExitUsage;
        }
        return copy(args[1], args[2]);
    }
    std::fprintf(stderr, "smclab db: unknown subcommand '%s'\n(see smclab db --help)\n", args[0].c_str());
    return kExitUsage;
}

}  // namespace smclab::cli
