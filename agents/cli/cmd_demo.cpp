// smclab demo: the main job on one machine. The local lab (locallab/: two
// smclab-agent processes, generated token, free ports, one CPU each; the
// server agent in a network namespace behind a veth shaped to the link
// model where the host allows it, so TCP crosses the same modelled wire as
// SMC), a shortened datapath campaign (both tables, sizes 1..64K x4 apart,
// short cells) over the sim fabric, stored in the results database; then
// the two cover-letter tables and a self-contained HTML report. The agents
// and the namespace are removed at the end, also on Ctrl-C or an error.
#include <cstdio>
#include <optional>

#include <smcr/version.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include "args.h"
#include "campaign_console.h"
#include "commands.h"
#include "local_campaign.h"
#include "orchestrator/campaign_json.h"
#include "orchestrator/datapath_columns.h"
#include "orchestrator/presets.h"
#include "orchestrator/size_text.h"
#include "smclab/db/database_path.h"
#include "smclab/db/result_store.h"

namespace smclab::cli {

namespace {

using namespace smclab::orchestrator;

// Every cell three times (interleaved rounds, for the intervals): 9 sizes
// (qperf's loop in steps of x4) x 2 tests x 4 columns x 3 = 216 cells of
// ~1 s each (0.5 s measured, 0.1 s warm-up, ~0.4 s setup) is about 4
// minutes on a 2-core machine: inside the 5 minutes the demo promises.
// `--sizes 1:64K:*2` runs the letter's 17 sizes.
constexpr int kDemoDurationMs = 500;
constexpr int kQuickDurationMs = 200;
constexpr const char* kDemoSizes = "msg_size:1:64K:*4";

void printDemoHelp() {
    std::printf(
        "usage: smclab demo [-t SECONDS] [--quick] [--sizes LIST] [--db PATH] [-o FILE]\n"
        "\n"
        "Runs the main job on this machine: starts two smclab-agent processes (the\n"
        "server in a network namespace behind a veth shaped to the link model, where\n"
        "the host allows it, so that TCP and SMC cross the same modelled wire), runs\n"
        "a shortened 'datapath' campaign (qperf-style tcp_bw and tcp_lat, sizes\n"
        "1..64K in steps of x4, three interleaved repetitions, columns SMC-NoCork,\n"
        "TCP, SMC-AutoCorking and SMC with patches; SMC over the sim fabric with the\n"
        "cx4lx-vf link model of the series' environment, waiting like the kernel),\n"
        "stores it in the results database, prints the two cover-letter tables with\n"
        "their confidence intervals and writes an HTML report. Takes under 5 minutes.\n"
        "\n"
        "options:\n"
        "  -t SECONDS     measured time per cell (default %.1f)\n"
        "  --quick        %.1f s per cell, for a smoke test\n"
        "  --sizes LIST   message sizes instead of 1:64K:*4 (e.g. 1,1K,64K or 1:64K:*2)\n"
        "  --db PATH      results database, a file or postgresql://USER@HOST[:PORT]/DB (default: $SMCLAB_DB or %s)\n"
        "  -o FILE        HTML report path (default: smclab-demo-<campaign>.html here)\n"
        "\n"
        "exit status: 0 every run finished; 1 the demo could not run; 2 usage;\n"
        "3 tables and report written but some runs failed, or some cell of an SMC\n"
        "column ran over TCP (stderr says which);\n"
        "130 interrupted.\n",
        kDemoDurationMs / 1000.0, kQuickDurationMs / 1000.0, qPrintable(db::defaultDatabasePath()));
}

int usage(const std::string& message) {
    std::fprintf(stderr, "smclab demo: %s\n(see smclab demo --help)\n", message.c_str());
    return kExitUsage;
}

struct DemoArgs {
    int durationMs = kDemoDurationMs;
    QString dbPath, outPath, sizesText;
};

// The exit status when the command line says to stop here (help, a usage error).
std::optional<int> parseDemoArgs(const Args& args, DemoArgs* a) {
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printDemoHelp();
            return kExitOk;
        }
        if (cursor.takeFlag("--quick")) {
            a->durationMs = kQuickDurationMs;
        } else if (auto v1 = cursor.takeValue("-t")) {
            auto ms = parseDurationText(QString::fromStdString(*v1));
            if (!ms || *ms < 100 || *ms > 600'000) return usage("-t: '" + *v1 + "' must be a duration of 0.1 to 600 s");
            a->durationMs = static_cast<int>(*ms);
        } else if (auto v2 = cursor.takeValue("--db")) {
            a->dbPath = QString::fromStdString(*v2);
        } else if (auto v3 = cursor.takeValue("-o")) {
            a->outPath = QString::fromStdString(*v3);
        } else if (auto v4 = cursor.takeValue("--sizes")) {
            a->sizesText = QString::fromStdString(*v4);
        } else {
            return usage(cursor.unknownOption());
        }
        if (!cursor.error().empty()) return usage(cursor.error());
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    return std::nullopt;
}

// The datapath preset shortened to the demo's time and sizes; a bad --sizes
// leaves its message in *error.
std::optional<CampaignSpec> demoCampaign(const DemoArgs& a, QString* error) {
    CampaignSpec spec = *presetCampaign(QStringLiteral("datapath"));
    spec.durationMs = a.durationMs;
    spec.warmupMs = a.durationMs / 5;
    spec.sampleIntervalMs = std::max(kMinSampleIntervalMs, std::min(500, a.durationMs / 2));
    auto sizes = parseSizeListText(a.sizesText.isEmpty() ? QString::fromLatin1(kDemoSizes) : a.sizesText, error);
    if (!sizes) return std::nullopt;
    spec.sizes = *sizes;
    // What ran, not what the letter ran: the notes go into every table and report.
    spec.description = QStringLiteral(
                           "smclab demo: the datapath preset shortened: %1 sizes %2..%3 B, %4 s per cell "
                           "after %5 s of warm-up, %6 repetitions in interleaved rounds, two local agents; "
                           "%7")
                           .arg(spec.sizes.size())
                           .arg(spec.sizes.front())
                           .arg(spec.sizes.back())
                           .arg(a.durationMs / 1000.0)
                           .arg(spec.warmupMs / 1000.0)
                           .arg(spec.repetitions)
                           .arg(QLatin1String(kDatapathWaitingNote));
    return spec;
}

void announceDemo(const CampaignSpec& spec, int durationMs) {
    std::fprintf(stderr, "smclab %s demo: two local agents, the datapath campaign, %zu cells of %.1f s (about %s)\n",
                 smcr::versionString(), expandCells(spec).size(), durationMs / 1000.0,
                 qPrintable(formatDurationMs(
                     estimateCampaignMs(spec, static_cast<int>(expandCells(spec).size()), kEstimatedCellOverheadMs))));
}

// A campaign that did not finish: why, and the exit status (130 when stopped).
int reportUnfinished(const ConsoleResult& result) {
    if (result.state == RunnerState::stopped)
        std::fprintf(stderr,
                     "smclab demo: stopped; the agents are shut down. Finished runs of campaign %lld are kept.\n",
                     static_cast<long long>(result.campaignId));
    else
        std::fprintf(stderr, "smclab demo: %s\n",
                     qPrintable(result.error.isEmpty() ? QStringLiteral("the campaign did not finish") : result.error));
    return result.state == RunnerState::stopped ? 130 : kExitFailure;
}

// A finished campaign: the summary line, the tables on stdout, the HTML report.
int reportFinished(db::ResultStore& store, const ConsoleResult& result, int totalCells, qint64 elapsedMs,
                   QString outPath) {
    std::fprintf(stderr, "campaign %lld: %d of %d cells ran in %s; database %s\n",
                 static_cast<long long>(result.campaignId), totalCells - result.failedCells, totalCells,
                 qPrintable(formatDurationMs(elapsedMs)), qPrintable(store.path()));
    printColumnFailures(result, "smclab demo");
    std::fflush(stderr);

    QStringList overTcp;
    if (!printCampaignTables(store, result.campaignId, stdout, &overTcp)) return kExitFailure;
    if (outPath.isEmpty()) outPath = QStringLiteral("smclab-demo-%1.html").arg(result.campaignId);
    const QString absolute = QFileInfo(outPath).absoluteFilePath();
    if (const QString error = writeHtmlReport(store, result.campaignId, absolute); !error.isEmpty()) {
        std::fprintf(stderr, "smclab demo: %s\n", qPrintable(error));
        return kExitFailure;
    }
    std::printf("\nHTML report: %s\n", qPrintable(absolute));
    std::fflush(stdout);
    const int overTcpExit = reportOverTcpCells(overTcp, "smclab demo");
    if (result.failedCells > 0) {
        std::fprintf(stderr, "smclab demo: %s\n", qPrintable(failedRunsText(result.failedCells, totalCells)));
        return kExitRunsFailed;
    }
    return overTcpExit == 0 ? kExitOk : overTcpExit;
}

}  // namespace

int runDemo(const Args& args) {
    DemoArgs a;
    if (const auto exitCode = parseDemoArgs(args, &a)) return *exitCode;

    ensureCoreApplication();
    QElapsedTimer clock;
    clock.start();
    QString sizesError;
    const auto spec = demoCampaign(a, &sizesError);
    if (!spec) return usage("--sizes: " + sizesError.toStdString());

    auto store = db::ResultStore::open(db::resolveDatabasePath(a.dbPath));
    if (!store) {
        std::fprintf(stderr, "smclab demo: %s\n", store.error().message.c_str());
        return kExitFailure;
    }
    announceDemo(*spec, a.durationMs);
    LocalCampaignOptions labOptions;
    labOptions.who = "smclab demo";
    auto ran = runLocalCampaign(*spec, **store, labOptions);
    if (!ran) {
        std::fprintf(stderr, "smclab demo: %s\n", ran.error().message.c_str());
        return kExitFailure;
    }
    const ConsoleResult& result = ran->result;
    if (result.state != RunnerState::finished) return reportUnfinished(result);
    const int totalCells = static_cast<int>(expandCells(*spec).size());
    return reportFinished(**store, result, totalCells, clock.elapsed(), a.outPath);
}

}  // namespace smclab::cli
