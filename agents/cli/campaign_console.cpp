#include "campaign_console.h"

#include <algorithm>
#include <atomic>
#include <csignal>

#include <unistd.h>

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>
#include <QTimer>

#include "orchestrator/campaign_analysis.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"
#include "workload.h"

namespace smclab::cli {

using orchestrator::CellInfo;
using orchestrator::Orchestrator;
using orchestrator::Progress;
using orchestrator::RunnerState;

namespace {

std::atomic<int> g_interrupts{0};

void onInterrupt(int) {
    g_interrupts.fetch_add(1, std::memory_order_relaxed);
}

QString bar(const Progress& p, int width) {
    const int finished = p.doneCells + p.failedCells;
    const int filled = p.totalCells > 0 ? finished * width / p.totalCells : 0;
    return QString(filled, QLatin1Char('#')) + QString(width - filled, QLatin1Char('.'));
}

// The console's view of a running campaign: a progress bar on a terminal,
// one line per cell otherwise. What it learns goes into `result`.
class ConsoleView {
public:
    ConsoleView(Orchestrator& o, ConsoleResult& result) : m_o(o), m_result(result), m_tty(isatty(STDERR_FILENO) == 1) {}

    void clearBar() {
        if (m_barShown) std::fprintf(stderr, "\r\033[K");
        m_barShown = false;
    }

    void drawBar(const Progress& p) {
        if (!m_tty || m_o.state() == RunnerState::connecting) return;
        const int finished = p.doneCells + p.failedCells;
        const QString line = QStringLiteral("[%1] %2/%3 cells%4  ETA %5  %6")
                                 .arg(bar(p, 30))
                                 .arg(finished)
                                 .arg(p.totalCells)
                                 .arg(p.failedCells > 0 ? QStringLiteral(" (%1 failed)").arg(p.failedCells) : QString())
                                 .arg(orchestrator::formatDurationMs(p.etaMs), m_current);
        std::fprintf(stderr, "\r\033[K%s", qPrintable(line.left(150)));
        std::fflush(stderr);
        m_barShown = true;
    }

    void say(const QString& text) {
        clearBar();
        std::fprintf(stderr, "%s\n", qPrintable(text));
        drawBar(m_o.progress());
    }

    void cellStarted(const CellInfo& cell) {
        m_current = QStringLiteral("%1 %2 %3 B").arg(cell.workloadLabel, cell.columnLabel).arg(cell.cell.sizeBytes);
        drawBar(m_o.progress());
    }

    void cellFinished(const CellInfo& cell, bool ok, const QString& error) {
        if (!ok) countFailure(cell, error);
        if (m_tty) return;
        const Progress p = m_o.progress();
        std::fprintf(stderr, "cell %d/%d %s %s %llu B rep %d: %s  ETA %s\n", p.doneCells + p.failedCells, p.totalCells,
                     qPrintable(cell.workloadLabel), qPrintable(cell.columnLabel),
                     static_cast<unsigned long long>(cell.cell.sizeBytes), cell.cell.repetition + 1,
                     ok ? "ok" : qPrintable(QStringLiteral("FAILED (%1)").arg(error)),
                     qPrintable(orchestrator::formatDurationMs(p.etaMs)));
        std::fflush(stderr);
    }

    // The interrupt watch's tick: the first Ctrl-C stops the runs in
    // flight, a second one gives up waiting for them.
    void checkInterrupts() {
        const int count = g_interrupts.load(std::memory_order_relaxed);
        if (count == m_handledInterrupts) return;
        m_handledInterrupts = count;
        if (count == 1) {
            say(QStringLiteral("interrupted: stopping the runs in flight (Ctrl-C again to give up waiting)"));
            m_o.stop();
        } else {
            m_result.state = RunnerState::stopped;
            QCoreApplication::exit(0);
        }
    }

private:
    // Each distinct reason once per column (at most 50), summed up at the end.
    void countFailure(const CellInfo& cell, const QString& error) {
        ++m_result.failedCells;
        bool known = false;
        for (const auto& entry : std::as_const(m_result.failuresByColumn))
            known = known || (entry.first == cell.columnLabel && entry.second == error);
        if (!known && m_result.failuresByColumn.size() < 50)
            m_result.failuresByColumn.append({cell.columnLabel, error});
    }

    Orchestrator& m_o;
    ConsoleResult& m_result;
    const bool m_tty;
    QString m_current;  // the cell in flight, after the bar
    bool m_barShown = false;
    int m_handledInterrupts = 0;
};

void connectView(Orchestrator& o, ConsoleView& view, ConsoleResult& result, QObject& context) {
    QObject::connect(&o, &Orchestrator::message, &context, [&view](const QString& text) {
        // Per-cell outcomes are printed by cellFinished (or counted by the
        // bar); failure reasons are summed up at the end.
        if (text.startsWith(QLatin1String("cell "))) return;
        view.say(text);
    });
    QObject::connect(&o, &Orchestrator::campaignStarted, &context, [&result](qint64 id) { result.campaignId = id; });
    QObject::connect(&o, &Orchestrator::cellStarted, &context,
                     [&view](const CellInfo& cell) { view.cellStarted(cell); });
    QObject::connect(
        &o, &Orchestrator::cellFinished, &context,
        [&view](const CellInfo& cell, bool ok, const QString& error) { view.cellFinished(cell, ok, error); });
    QObject::connect(&o, &Orchestrator::progressChanged, &context, [&view](const Progress& p) { view.drawBar(p); });
    // Paused (onAgentLoss: pause) waits for unpause() in the GUI; a command
    // line has nobody to ask, so it ends there and says how to resume.
    QObject::connect(&o, &Orchestrator::stateChanged, &context, [&result](RunnerState state) {
        if (state != RunnerState::paused) return;
        result.state = state;
        QCoreApplication::exit(0);
    });
    QObject::connect(&o, &Orchestrator::errorOccurred, &context,
                     [&result](const QString& error) { result.error = error; });
    QObject::connect(&o, &Orchestrator::finished, &context, [&result](qint64 id, RunnerState state) {
        if (id > 0) result.campaignId = id;
        result.state = state;
        QCoreApplication::exit(0);
    });
}

}  // namespace

void ensureCoreApplication() {
    if (QCoreApplication::instance() != nullptr) return;
    static int argc = 1;
    static char name[] = "smclab";
    static char* argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("smclab"));
}

void installInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() {
    return g_interrupts.load(std::memory_order_relaxed) > 0;
}

ConsoleResult runCampaignOnConsole(Orchestrator& o, const std::function<smcr::Status()>& start) {
    ConsoleResult result;
    ConsoleView view(o, result);
    QObject context;
    connectView(o, view, result, context);
    installInterruptHandlers();
    QTimer watch;
    QObject::connect(&watch, &QTimer::timeout, &context, [&view] { view.checkInterrupts(); });
    watch.start(100);

    if (smcr::Status s = start(); !s) {
        result.state = RunnerState::failed;
        result.error = QString::fromStdString(s.error().message);
        return result;
    }
    if (o.state() != RunnerState::finished && o.state() != RunnerState::failed && o.state() != RunnerState::stopped)
        QCoreApplication::exec();
    view.clearBar();
    if (result.campaignId == 0) result.campaignId = o.campaignId();
    if (result.state == RunnerState::idle) result.state = o.state();
    return result;
}

QString failedRunsText(int failedRuns, int totalRuns) {
    return QStringLiteral("%1 of %2 run%3 failed (exit status %4)")
        .arg(failedRuns)
        .arg(totalRuns)
        .arg(totalRuns == 1 ? QString() : QStringLiteral("s"))
        .arg(kExitRunsFailed);
}

QString fallbackBaseline(const QList<report::ComparisonTable>& tables) {
    auto columnHasValues = [&](int column) {
        for (const report::ComparisonTable& table : tables) {
            for (const report::Row& row : table.rows) {
                if (column < row.cells.size() && row.cells[column].value) return true;
            }
        }
        return false;
    };
    if (tables.isEmpty() || columnHasValues(0)) return {};
    for (int column = 1; column < tables.front().columns.size(); ++column) {
        if (columnHasValues(column)) return tables.front().columns[column];
    }
    return {};
}

void printColumnFailures(const ConsoleResult& result, const char* who) {
    if (result.failedCells == 0) return;
    // Degrade gracefully: name each failing column once with the agent's reason.
    QStringList seen;
    for (const auto& [column, error] : result.failuresByColumn) {
        if (seen.contains(column)) continue;
        seen << column;
        std::fprintf(stderr, "%s: note: column '%s' did not run: %s\n", who, qPrintable(column), qPrintable(error));
    }
    std::fprintf(stderr, "%s: note: %d cells failed; their columns show '-' in the tables.\n", who, result.failedCells);
    std::fflush(stderr);
}

QStringList overTcpCells(const QList<report::ComparisonTable>& tables) {
    QStringList lines;
    for (const report::ComparisonTable& table : tables) {
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            QStringList sizes;
            QStringList reasons;
            for (const report::Row& row : table.rows) {
                const report::Cell cell = row.cells.value(c);
                if (!cell.overTcp()) continue;
                sizes << QString::number(row.msgSize);
                if (!cell.fallbackReasons.isEmpty() && !reasons.contains(cell.fallbackReasons))
                    reasons << cell.fallbackReasons;
            }
            if (sizes.isEmpty()) continue;
            lines << QStringLiteral("%1, %2 at %3 B: %4")
                         .arg(table.title, table.columns[c], sizes.join(QStringLiteral(", ")),
                              reasons.join(QStringLiteral("; ")));
        }
    }
    return lines;
}

int reportOverTcpCells(const QStringList& overTcp, const char* who) {
    if (overTcp.isEmpty()) return 0;
    std::fprintf(stderr,
                 "%s: cells of SMC columns ran over TCP, not SMC-R (marked [TCP], left out of the percentages; "
                 "exit status %d):\n",
                 who, kExitRunsFailed);
    for (const QString& line : overTcp) std::fprintf(stderr, "  %s\n", qPrintable(line));
    std::fflush(stderr);
    return kExitRunsFailed;
}

bool printCampaignTables(db::ResultStore& store, qint64 campaignId, FILE* out, QStringList* overTcp) {
    auto tables = db::comparisonTables(store, campaignId, workloads::headlineMetricsByWorkload());
    if (!tables) {
        std::fprintf(stderr, "smclab: cannot build the tables of campaign %lld: %s\n",
                     static_cast<long long>(campaignId), tables.error().message.c_str());
        return false;
    }
    // A baseline column without a single result (its transport is missing
    // on the agents) would leave every percentage blank: compare against
    // the first column that has results instead, and say so.
    if (const QString baseline = fallbackBaseline(*tables); !baseline.isEmpty()) {
        std::fprintf(stderr, "note: the baseline column '%s' has no results; percentages are against '%s'\n",
                     qPrintable(tables->front().columns.front()), qPrintable(baseline));
        for (report::ComparisonTable& table : *tables) {
            if (auto moved = report::withBaseline(table, baseline)) table = *moved;
        }
    }
    // Runs measured while something else took the CPUs (host_load.h).
    if (auto busy = store.campaignRunFact(campaignId, smcr::Side::client, QStringLiteral("host_state.busy")); busy) {
        const auto busyRuns = std::count(busy->cbegin(), busy->cend(), QStringLiteral("yes"));
        if (busyRuns > 0) {
            std::fprintf(stderr,
                         "note: %lld of %lld runs ran on a busy host (other processes or steal); the\n"
                         "  Confidence section marks their cells \"busy\"; --repeat-busy N runs them again\n",
                         static_cast<long long>(busyRuns), static_cast<long long>(busy->size()));
        }
    }
    std::fflush(stderr);
    if (overTcp != nullptr) *overTcp = overTcpCells(*tables);
    // The letter's tables byte for byte, then the intervals behind them.
    const QByteArray text = report::formatTextWithConfidence(*tables).toUtf8();
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), out);
    std::fflush(out);
    return true;
}

QString writeHtmlReport(db::ResultStore& store, qint64 campaignId, const QString& path) {
    auto document =
        db::campaignReport(store, campaignId, workloads::headlineMetricsByWorkload(), QDateTime::currentDateTimeUtc());
    if (!document) return QString::fromStdString(document.error().message);
    if (auto analysis = orchestrator::addCampaignAnalysis(store, campaignId, *document); !analysis) {
        return QString::fromStdString(analysis.error().message);
    }
    if (const QString baseline = fallbackBaseline(document->tables); !baseline.isEmpty()) {
        if (auto moved = report::withBaseline(*document, baseline)) document = std::move(moved);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    file.write(report::formatHtml(*document).toUtf8());
    if (!file.commit()) return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return QString();
}

}  // namespace smclab::cli
