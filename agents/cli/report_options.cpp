#include "report_options.h"

#include <cstdio>

#include "command.h"
#include "smclab/db/database_path.h"
#include "store_cli.h"

namespace smclab::cli {

bool parseReportOptions(ArgCursor& cursor, ReportOptions* options, bool* help) {
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            *help = true;
            return true;
        }
        if (auto format = cursor.takeValue("--format")) {
            const auto parsed = report::parseFormat(QString::fromStdString(*format));
            if (!parsed) {
                cursor.setError("unknown format '" + *format + "' (text, md, csv, json, html)");
                return false;
            }
            options->format = *parsed;
        } else if (auto baseline = cursor.takeValue("--baseline")) {
            options->baseline = QString::fromStdString(*baseline);
        } else if (auto output = cursor.takeValue("-o")) {
            options->outputPath = QString::fromStdString(*output);
        } else if (auto output2 = cursor.takeValue("--output")) {
            options->outputPath = QString::fromStdString(*output2);
        } else if (auto db = cursor.takeValue("--db")) {
            options->dbPath = QString::fromStdString(*db);
        } else if (!cursor.peek().empty() && (cursor.peek()[0] != '-' || cursor.peek() == "-")) {
            options->positional.push_back(cursor.next());
        } else {
            cursor.setError("unexpected argument '" + cursor.peek() + "'");
            return false;
        }
        if (!cursor.error().empty()) return false;
    }
    return true;
}

int emitReport(const char* command, const ReportOptions& options, const report::ReportDocument& document,
               const QString& textAfter) {
    report::ReportDocument doc = document;
    if (!options.baseline.isEmpty()) {
        auto moved = report::withBaseline(doc, options.baseline);
        if (!moved) return reportError(command, moved.error());
        doc = std::move(moved).value();
    }
    if (doc.tables.isEmpty()) {
        std::fprintf(stderr, "%s: no results to report yet (no finished run)\n", command);
        return kExitFailure;
    }
    QString text = report::render(doc, options.format);
    if (options.format == report::Format::text) text += textAfter;
    return writeOutput(command, options.outputPath, text) ? kExitOk : kExitFailure;
}

void printReportOptionsHelp() {
    std::printf(
        "options:\n"
        "  --format F       text (the cover-letter layout, default), md, csv, json or html\n"
        "                   (html: one self-contained file with plots, tables, counters\n"
        "                   and provenance)\n"
        "  --baseline COL   the column percentages are computed against (default: the\n"
        "                   first); it is printed first, without a percentage\n"
        "  -o FILE          write to FILE instead of stdout\n"
        "  --db PATH        results database, a file or postgresql://USER@HOST[:PORT]/DB (default: $%s, else %s)\n"
        "\n"
        "Percentages are (x / baseline - 1) * 100 from the stored, unrounded values.\n",
        db::kDatabaseEnv, qPrintable(db::defaultDatabasePath()));
}

}  // namespace smclab::cli
