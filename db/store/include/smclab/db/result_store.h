// ResultStore: the lab's results database (Qt SQL; QSQLITE today, written
// so a lab can later point it at QPSQL without touching callers).
//
// Schema (version kSchemaVersion; db/store/src/schema.cpp has the DDL):
//   meta(key, value)                 'schema_version'
//   hosts(id, name, facts, last_seen)
//   agents(id, host_id, address, version, capabilities, last_seen)
//   campaigns(id, name, preset, spec, notes, status, created_at, finished_at)
//   runs(id, campaign_id, workload, transport, column_label, msg_size,
//        repetition, client_agent_id, server_agent_id, status, started_at,
//        finished_at, error)         one row per matrix cell
//   run_settings(run_id, name, value)          full settings snapshot
//   run_host_facts(run_id, side, name, value)  both ends: cpu, kernel, fabric, link model
//   results(run_id, metric, value)             bw_mbps, latency_us, p99_us, rps, ...
//   histograms(run_id, metric, encoding, data) serialized histogram blob
//   samples(run_id, t_ms, metric, value)       time series
//   counters(run_id, side, name, value)        engine counters
//   setting_changes(run_id, t_ms, name, value) live toggles
// Timestamps are ISO 8601 UTC text.
//
// Durability: WAL journal, synchronous=FULL, foreign keys on. Every write
// method is one transaction; recordRun() writes a run with all its data at
// once, so a crash (even SIGKILL) loses at most the run in flight.
// Migrations run forward only, each in one transaction, when open() finds
// an older schema; a newer schema is refused (Errc::notSupported).
//
// Errors (smcr::Result): Errc::timedOut = "database is locked" (another
// process kept a write lock longer than OpenOptions::busyTimeoutMs);
// Errc::notFound = unknown campaign/run id; Errc::notSupported = schema
// newer than this program; Errc::invalidArgument = bad input;
// Errc::systemError = any other SQL or file error. Messages name the file.
//
// Threads: a ResultStore is bound to the thread that opened it (it owns one
// named Qt SQL connection). Open one store per thread; SQLite's WAL lets
// readers (the GUI) run while a worker thread writes. Needs a
// QCoreApplication (Qt loads the SQL driver as a plugin).
#pragma once

#include <memory>
#include <optional>

#include <smcr/result.h>

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include "smclab/db/types.h"

class QSqlDatabase;
class QThread;

namespace smclab::db {

inline constexpr int kSchemaVersion = 2;

struct OpenOptions {
    int busyTimeoutMs = 5000;  // wait for another writer before reporting "locked"
};

// Run facts of both ends of a run.
struct RunFacts {
    HostFacts client;
    HostFacts server;
};

// One stored result value with the cell that produced it (bulk read for
// reports: every done run of a campaign).
struct ResultValue {
    qint64 runId = 0;
    RunCell cell;
    QString metric;
    double value = 0.0;
};

// Counters summed over the done runs of one column.
struct CounterSum {
    QString column;
    smcr::Side side = smcr::Side::client;
    QString name;
    qint64 value = 0;
};

class ResultStore {
public:
    // Opens (creating the file and its folder if needed) and migrates.
    static smcr::Result<std::unique_ptr<ResultStore>> open(const QString& path, OpenOptions options = {});
    ~ResultStore();
    ResultStore(const ResultStore&) = delete;
    ResultStore& operator=(const ResultStore&) = delete;

    QString path() const { return m_path; }
    // The version found on disk after migration (== kSchemaVersion).
    int schemaVersion() const { return m_schemaVersion; }
    // The live SQLite journal mode ("wal").
    smcr::Result<QString> journalMode();

    // --- hosts and agents ---------------------------------------------
    smcr::Result<qint64> upsertHost(const QString& name, const HostFacts& facts);
    smcr::Result<qint64> upsertAgent(const QString& address, std::optional<qint64> hostId, const QString& version,
                                     const QJsonObject& capabilities);
    smcr::Result<QList<Host>> hosts();
    smcr::Result<QList<Agent>> agents();

    // --- campaigns ----------------------------------------------------
    // Writes the campaign (status planned) and one planned run per cell.
    smcr::Result<qint64> createCampaign(const NewCampaign& campaign);
    // A campaign from another store (db copy): its name, preset, spec,
    // notes, status and timestamps as they were, one planned run per cell.
    smcr::Result<qint64> importCampaign(const Campaign& campaign, const QList<RunCell>& cells);
    // done/failed also set finished_at.
    smcr::Status updateCampaignStatus(qint64 campaignId, CampaignStatus status);
    // Adds a line to the campaign's notes (a resume says when and on what).
    smcr::Status appendCampaignNotes(qint64 campaignId, const QString& line);
    // Deletes the campaign with its runs and all their data (foreign-key cascade).
    smcr::Status deleteCampaign(qint64 campaignId);
    smcr::Result<QList<Campaign>> listCampaigns();  // newest first
    smcr::Result<Campaign> campaign(qint64 campaignId);
    // Column labels in plan order (first appearance among the cells).
    smcr::Result<QStringList> columns(qint64 campaignId);

    // --- runs ---------------------------------------------------------
    // Marks a cell running (optional; shows progress to other readers).
    smcr::Status markRunStarted(qint64 campaignId, const RunCell& cell, std::optional<qint64> clientAgentId = {},
                                std::optional<qint64> serverAgentId = {});
    // Writes a finished run with settings, facts, results, histograms,
    // samples, counters and setting changes in ONE transaction; replaces
    // the data of an earlier attempt at the same cell. Returns the run id.
    // A cell that was not planned is added to the campaign.
    smcr::Result<qint64> recordRun(const RunRecord& record);
    // Records a failed attempt (status failed, error text); returns the run id.
    smcr::Result<qint64> markRunFailed(qint64 campaignId, const RunCell& cell, const QString& error);
    // A failed attempt with what it produced before it failed (samples,
    // counters, settings, facts, live changes), in one transaction, so the
    // run's view keeps what was seen live. Status failed: no comparison,
    // report or pending-cell query counts it as measured.
    smcr::Result<qint64> recordFailedRun(const RunRecord& record, const QString& error);
    smcr::Result<QList<Run>> runs(qint64 campaignId);  // plan order
    smcr::Result<Run> run(qint64 runId);
    // Cells not done yet (planned, running or failed), in plan order: what
    // a resumed campaign still has to run.
    smcr::Result<QList<RunCell>> pendingCells(qint64 campaignId);

    // --- per-run data -------------------------------------------------
    smcr::Result<QMap<QString, double>> results(qint64 runId);
    smcr::Result<QMap<QString, QString>> settings(qint64 runId);
    smcr::Result<RunFacts> hostFacts(qint64 runId);
    smcr::Result<QList<Histogram>> histograms(qint64 runId);
    // All metrics when `metric` is empty; ordered by time.
    smcr::Result<QList<Sample>> samples(qint64 runId, const QString& metric = QString());
    smcr::Result<QList<Counter>> counters(qint64 runId);
    smcr::Result<QList<SettingChange>> settingChanges(qint64 runId);

    // --- campaign-wide reads for reports -------------------------------
    smcr::Result<QList<ResultValue>> campaignResults(qint64 campaignId);  // done runs only
    smcr::Result<QList<CounterSum>> campaignCounters(qint64 campaignId);  // done runs, by column
    // One host fact of every done run: run id -> value (runs without it are
    // absent), e.g. "host_state.busy" on the client side.
    smcr::Result<QMap<qint64, QString>> campaignRunFact(qint64 campaignId, smcr::Side side, const QString& name);

    // --- campaign runners (result_store_runners.cpp) --------------------
    // Whether the store itself can tell who runs a campaign. PostgreSQL: a
    // session-level advisory lock held by the runner's connection, freed by
    // the server when that connection ends (a killed runner, a lost
    // network), seen by every controller of the database. SQLite: no (the
    // orchestrator's lock file beside the database file does it); the calls
    // below then fail with Errc::notSupported.
    bool hasRunnerLocks() const;
    // true when taken by this store's connection, false when another holds it.
    smcr::Result<bool> tryLockCampaignRunner(qint64 campaignId);
    smcr::Status unlockCampaignRunner(qint64 campaignId);
    // Whether any connection holds the lock (this one included).
    smcr::Result<bool> campaignRunnerHeld(qint64 campaignId);

private:
    ResultStore(QString path, QString connectionName);
    QSqlDatabase database() const;
    // Finds the run row of a cell, inserting a planned one if the cell was not
    // planned; call inside a write transaction.
    smcr::Result<qint64> cellRunId(qint64 campaignId, const RunCell& cell);
    smcr::Result<qint64> insertCampaign(const Campaign& fields, const QList<RunCell>& cells);
    smcr::Status deleteRunData(qint64 runId);
    // recordRun() and recordFailedRun(): the run row set to `status` and all its data.
    smcr::Result<qint64> writeRun(const RunRecord& record, RunStatus status, const QString& error);

    QString m_path;
    QString m_connectionName;
    int m_schemaVersion = 0;
    QThread* m_thread = nullptr;  // the owner; Qt SQL connections are per thread
};

}  // namespace smclab::db
