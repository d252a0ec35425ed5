// Running a campaign from a terminal, shared by `smclab run` and
// `smclab demo`: the Qt event loop around the orchestrator, a progress bar
// on a terminal (plain lines otherwise), Ctrl-C to stop cleanly (the
// campaign stays resumable), and the cover-letter tables at the end.
#pragma once

#include <cstdio>
#include <functional>

#include <smcr/result.h>

#include <QString>

#include "orchestrator/orchestrator.h"
#include "smclab/report/comparison_table.h"

namespace smclab::db {
class ResultStore;
}

namespace smclab::cli {

// A QCoreApplication for commands that need Qt's event loop or its SQL
// plugins; created once, named "smclab" (the default database path uses it).
void ensureCoreApplication();

// Installs SIGINT/SIGTERM handlers that set a flag (no Qt calls inside the
// handler); interrupted() reads it.
void installInterruptHandlers();
bool interrupted();

// Exit status of `smclab run` and `smclab demo` when the campaign ran to
// its end but some of its runs failed (their table cells show '-'), or
// some cell of an SMC column ran over TCP (its cells show [TCP]).
inline constexpr int kExitRunsFailed = 3;

// "2 of 34 runs failed" (exit status 3).
QString failedRunsText(int failedRuns, int totalRuns);

struct ConsoleResult {
    orchestrator::RunnerState state = orchestrator::RunnerState::idle;
    qint64 campaignId = 0;
    QString error;  // failed: why
    int failedCells = 0;
    // Distinct failure reasons per column ("SMC-NoCork" -> the agent's error).
    QList<QPair<QString, QString>> failuresByColumn;
};

// Starts (via `start`, which calls o.start() or o.resume()) and runs the
// event loop until the orchestrator finishes. Progress goes to stderr.
// Ctrl-C stops the orchestrator; a second Ctrl-C gives up waiting.
ConsoleResult runCampaignOnConsole(orchestrator::Orchestrator& o, const std::function<smcr::Status()>& start);

// After a campaign with failed cells: each failing column once, with the
// agent's reason (typically: a transport the agents lack), to stderr.
void printColumnFailures(const ConsoleResult& result, const char* who);

// The label of the first column with results when the tables' baseline
// column has none at all (empty when the baseline is fine).
QString fallbackBaseline(const QList<report::ComparisonTable>& tables);

// The cells of SMC columns whose data went over TCP (Cell::overTcp), one
// line per table and column: "Bandwidth, SMC with patches at 1, 4 B: no
// SMC-R connection x6". Empty when every SMC cell ran SMC-R.
QStringList overTcpCells(const QList<report::ComparisonTable>& tables);

// The cover-letter tables of a campaign (report text layout) to `out`;
// false (after printing why to stderr) if the store cannot build them.
// `overTcp`, if given, receives overTcpCells() of the tables.
bool printCampaignTables(db::ResultStore& store, qint64 campaignId, FILE* out, QStringList* overTcp = nullptr);
// After the tables: the cells that ran over TCP and the exit status they
// give (kExitRunsFailed), or kExitOk when there are none.
int reportOverTcpCells(const QStringList& overTcp, const char* who);
// Writes the self-contained HTML report; returns the error text or empty.
QString writeHtmlReport(db::ResultStore& store, qint64 campaignId, const QString& path);

}  // namespace smclab::cli
