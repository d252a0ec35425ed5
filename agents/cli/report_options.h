// The options `smclab report` and `smclab compare` share: --format,
// --baseline, -o and --db, and rendering a report document with them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <QString>

#include "args.h"
#include "smclab/report/formats.h"

namespace smclab::cli {

struct ReportOptions {
    report::Format format = report::Format::text;
    QString baseline;    // empty: the first column
    QString outputPath;  // empty or "-": stdout
    QString dbPath;
    std::vector<std::string> positional;  // campaign ids
};

// Consumes every word; returns false (error set on the cursor) on a bad one.
bool parseReportOptions(ArgCursor& cursor, ReportOptions* options, bool* help);

// Applies the baseline, renders and writes; returns the exit code.
// `textAfter` follows the text rendering (compare's differences section).
int emitReport(const char* command, const ReportOptions& options, const report::ReportDocument& document,
               const QString& textAfter = QString());

// The options' help text (shared by both commands).
void printReportOptionsHelp();

}  // namespace smclab::cli
