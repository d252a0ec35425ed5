// smclab compare A B: two campaigns' tables side by side in one layout,
// columns labelled "#<id> <column>", then which differences between them
// are outside the noise (report/campaign_diff.h).
#include <cstdio>

#include <QDateTime>

#include "commands.h"
#include "report_options.h"
#include "smclab/report/campaign_diff.h"
#include "smclab/report/comparison_query.h"
#include "store_cli.h"
#include "workload.h"

namespace smclab::cli {

int runCompare(const Args& args) {
    ArgCursor cursor(args);
    ReportOptions options;
    bool help = false;
    const bool parsed = parseReportOptions(cursor, &options, &help);
    if (help) {
        std::printf(
            "usage: smclab compare ID_A ID_B [--format text|md|csv|json|html] [--baseline COLUMN] [-o FILE]\n"
            "                                [--db PATH]\n"
            "\n"
            "Prints the comparison tables of two campaigns side by side: A's columns\n"
            "then B's, labelled \"#ID column\" (e.g. \"#3 TCP\"); the baseline is A's first\n"
            "column unless --baseline names another (e.g. --baseline \"#4 TCP\").\n"
            "Then, for every column both campaigns ran, B's median against A's with the\n"
            "95%% interval of the change: outside the noise when the interval excludes 0%%\n"
            "(text: a ==== Differences ==== section; md/html/json: a Differences table).\n"
            "\n");
        printReportOptionsHelp();
        return kExitOk;
    }
    if (parsed && options.positional.size() != 2) cursor.setError("two campaign ids expected");
    std::optional<qint64> a, b;
    if (parsed && cursor.error().empty()) {
        a = parseCampaignId(options.positional[0]);
        b = parseCampaignId(options.positional[1]);
        if (!a || !b) cursor.setError("'" + options.positional[a ? 1 : 0] + "' is not a campaign id");
    }
    if (!cursor.error().empty()) {
        std::fprintf(stderr, "smclab compare: %s\n(see smclab compare --help)\n", cursor.error().c_str());
        return kExitUsage;
    }
    auto store = openExistingStore(options.dbPath, "smclab compare");
    if (!store) return kExitFailure;
    auto document =
        db::compareReport(*store, *a, *b, workloads::headlineMetricsByWorkload(), QDateTime::currentDateTimeUtc());
    if (!document) return reportError("smclab compare", document.error());
    const QString nameA = QStringLiteral("#%1").arg(*a);
    const QString nameB = QStringLiteral("#%1").arg(*b);
    const QList<report::CampaignDifference> differences =
        report::campaignDifferences(document->tables, nameA + QLatin1Char(' '), nameB + QLatin1Char(' '));
    if (!differences.isEmpty()) document->details.prepend(report::differencesDetail(differences, nameA, nameB));
    return emitReport("smclab compare", options, *document, report::formatDifferences(differences, nameA, nameB));
}

}  // namespace smclab::cli
