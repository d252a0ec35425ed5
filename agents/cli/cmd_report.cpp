// smclab report ID: a campaign's comparison tables in the cover-letter
// layout, or markdown, CSV, JSON or a self-contained HTML report.
#include <cstdio>

#include <QDateTime>

#include "commands.h"
#include "orchestrator/campaign_analysis.h"
#include "report_options.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/letter_query.h"
#include "store_cli.h"
#include "workload.h"

namespace smclab::cli {

int runReport(const Args& args) {
    ArgCursor cursor(args);
    ReportOptions options;
    bool help = false;
    const bool parsed = parseReportOptions(cursor, &options, &help);
    if (help) {
        std::printf(
            "usage: smclab report ID [--format text|md|csv|json|html] [--baseline COLUMN] [-o FILE] [--db PATH]\n"
            "\n"
            "Prints campaign ID's comparison tables: one per workload's headline metric\n"
            "(Bandwidth in MB/s, Latency in us, ...), rows by message size, one column\n"
            "per settings variant, each value the median of its finished repetitions.\n"
            "Then, where the runs stored them, the engines' counters per 1000 messages of\n"
            "tcp_bw and the p50 / p99 latency of each workload (the GUI's Results page\n"
            "shows the same tables), and a datapath campaign's Shapes in the documents.\n"
            "\n");
        printReportOptionsHelp();
        return kExitOk;
    }
    if (parsed && options.positional.size() != 1) {
        cursor.setError(options.positional.empty() ? "which campaign? (smclab list shows the ids)"
                                                   : "one campaign id expected (smclab compare takes two)");
    }
    std::optional<qint64> id;
    if (parsed && cursor.error().empty()) {
        id = parseCampaignId(options.positional[0]);
        if (!id) cursor.setError("'" + options.positional[0] + "' is not a campaign id");
    }
    if (!cursor.error().empty()) {
        std::fprintf(stderr, "smclab report: %s\n(see smclab report --help)\n", cursor.error().c_str());
        return kExitUsage;
    }
    auto store = openExistingStore(options.dbPath, "smclab report");
    if (!store) return kExitFailure;
    auto document =
        db::campaignReport(*store, *id, workloads::headlineMetricsByWorkload(), QDateTime::currentDateTimeUtc());
    if (!document) return reportError("smclab report", document.error());
    // The analysis the GUI's Results page shows too: counters per message and
    // latency percentiles after the cover letter's tables, and a datapath
    // campaign's shapes, with the same verdicts as smclab bench stream, in
    // the documents.
    auto analysis = orchestrator::addCampaignAnalysis(*store, *id, *document);
    if (!analysis) return reportError("smclab report", analysis.error());
    // The tool presets' letters print their own lines after the tables.
    QString letter;
    if (options.format == report::Format::text) {
        auto lines = db::letterLines(*store, *id);
        if (!lines) return reportError("smclab report", lines.error());
        letter = *lines;
    }
    return emitReport("smclab report", options, *document, letter);
}

}  // namespace smclab::cli
