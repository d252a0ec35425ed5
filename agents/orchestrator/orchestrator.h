// The campaign runner used by the smclab CLI and the GUI.
//
//   Orchestrator o(store);                // a db::ResultStore opened in this thread
//   o.setConnectOptions({.token = token});
//   auto id = o.start(spec);              // or o.resume(campaignId, agents)
//   ... signals report progress; finished() ends it.
//
// Everything is asynchronous on the event loop of the thread the
// orchestrator lives in (it never blocks). The GUI moves it, with its
// store, to a worker thread so database writes stay off the UI thread, and
// talks to it through queued signals and QMetaObject::invokeMethod.
//
// Per cell (see cell_runner.h): the server agent's run starts first, the
// client's against the port it reports; the client's run_result ends the
// cell, which is then written to the store in its own transaction
// (ResultStore::recordRun), or marked failed with the agents' error
// (ResultStore::markRunFailed). Cells of columns whose transport or
// settings the agents lack fail with the agent's error and the campaign
// goes on. A lost agent fails the cell in flight; the policy then either
// goes on (reconnecting before the next cell of that pair) or pauses.
// stop() abandons the cells in flight; they stay pending in the store, so
// resume() runs exactly the cells not done yet (never run, interrupted, or
// failed).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <smcr/result.h>

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include "agent_link.h"
#include "campaign_spec.h"
#include "cell_matrix.h"
#include "cell_runner.h"
#include "protocol/agent_client.h"
#include "run_record.h"
#include "runner_lock.h"
#include "smclab/db/types.h"

namespace smclab::db {
class ResultStore;
}

namespace smclab::orchestrator {

enum class RunnerState {
    idle = 0,    // nothing started
    connecting,  // connecting to the agents
    running,     // cells running
    pausing,     // pause() called; cells in flight finish first
    paused,      // waiting for unpause() (or a later resume)
    stopping,    // stop() called; cells in flight are being stopped
    stopped,     // ended early; the campaign is resumable
    finished,    // every cell ran (some may have failed)
    failed,      // could not run (agents unreachable, database error)
};
const char* runnerStateName(RunnerState state);

struct Progress {
    int totalCells = 0;      // the whole campaign
    int doneCells = 0;       // recorded, including those done before a resume
    int failedCells = 0;     // failed in this session
    int runningCells = 0;    // in flight
    int remainingCells = 0;  // not yet started in this session
    qint64 elapsedMs = 0;    // since start()/resume()
    qint64 etaMs = 0;        // estimated time to the end
};

// A cell as signals report it.
struct CellInfo {
    qint64 campaignId = 0;
    Cell cell;
    QString key;  // "Bandwidth|TCP|4096|0"
    QString workloadLabel;
    QString workload;
    QString columnLabel;
    QString transport;
    int pairIndex = 0;
};

class Orchestrator : public QObject {
    Q_OBJECT
public:
    explicit Orchestrator(db::ResultStore& store, QObject* parent = nullptr);
    ~Orchestrator() override;

    // Token and TLS options used for every agent.
    void setConnectOptions(const AgentConnectOptions& options) { m_connectOptions = options; }
    // Tokens by agent address ("HOST:PORT", as in the agent pairs) that
    // replace the options' token for those agents: a lab where every agent
    // has a token of its own (smclab lab deploy).
    void setAgentTokens(const QHash<QString, QString>& tokenByAddress) { m_tokenByAddress = tokenByAddress; }
    // Lab host names by "HOST:PORT", for messages that name an agent (a VM
    // lab host is dialled at 127.0.0.1, which names nothing).
    void setAgentNames(const QHash<QString, QString>& nameByAddress) { m_nameByAddress = nameByAddress; }
    // The wire between the agents when smclab made it (a local lab's
    // locallab::WireRecord as JSON); every run records it in its facts.
    // Empty: the agents' own network, which smclab neither made nor shaped.
    void setWire(const QJsonObject& wire) { m_wire = wire; }
    // How long to wait for an agent (first connection and reconnects).
    void setConnectTimeoutMs(int ms) { m_connectOptions.connectTimeoutMs = ms; }

    // Validates the spec (agents come from spec.agents and must be given),
    // connects to every agent, then plans the campaign in the store and
    // runs it. Errors that make starting impossible (invalid spec, no
    // agents, database error) return at once; an unreachable agent or a
    // wrong token ends in state failed with finished() and errorOccurred().
    smcr::Status start(const CampaignSpec& spec);
    // Picks up a stored campaign at its pending cells. `agents`, if not
    // empty, replace the stored agent pairs (they are usually different
    // processes by now).
    smcr::Status resume(qint64 campaignId, const std::vector<AgentPair>& agents = {});

    void pause();
    void unpause();
    void stop();
    // Applies settings live to the agents of every cell in flight; each
    // acknowledgement is recorded with its run (setting_changes) at the
    // time the agent applied it, and reported by settingsApplied(). Fails
    // when no cell is running.
    smcr::Status setSettings(const QJsonObject& settings);

    RunnerState state() const { return m_state; }
    Progress progress() const;
    qint64 campaignId() const { return m_campaignId; }
    const CampaignSpec& spec() const { return m_spec; }
    const std::vector<Cell>& cells() const { return m_cells; }
    int estimatedCellMs() const;

signals:
    void stateChanged(smclab::orchestrator::RunnerState state);
    // The campaign is in the store (start: just created; resume: reopened).
    void campaignStarted(qint64 campaignId);
    void progressChanged(const smclab::orchestrator::Progress& progress);
    void cellStarted(const smclab::orchestrator::CellInfo& cell);
    // The client's result of a cell that ran to its end (just before its
    // cellFinished): what a tool that prints only at its end reported.
    void cellResult(const smclab::orchestrator::CellInfo& cell, const smclab::protocol::RunResult& client);
    void cellFinished(const smclab::orchestrator::CellInfo& cell, bool ok, const QString& error);
    void samplesReceived(const smclab::orchestrator::CellInfo& cell, const smclab::protocol::Samples& samples,
                         bool fromServer);
    void settingsApplied(const smclab::orchestrator::CellInfo& cell, const QJsonObject& applied,
                         const QDateTime& effectiveAt, qint64 runTimeMs);
    // An agent refused a live change (or no cell was in flight): `settings`
    // as asked, the agents' error. What was in force stays in force.
    void settingsFailed(const QJsonObject& settings, const QString& error);
    void message(const QString& text);  // a log line for people
    void errorOccurred(const QString& error);
    void finished(qint64 campaignId, smclab::orchestrator::RunnerState state);

private:
    struct Pair {
        AgentLink* server = nullptr;
        AgentLink* client = nullptr;
        QPointer<CellRunner> runner;
        int cellIndex = -1;
        bool reconnecting = false;
        bool waiting = false;  // quietHost.waitMs after a busy run
    };
    // A cell that ran on a busy host and is run again (quietHost.repeatBusy):
    // the quietest outcome so far is what gets recorded in the end.
    struct BusyRetry {
        int attempts = 0;
        std::optional<CellOutcome> quietest;
        double quietestOtherCpuPct = 0.0;
    };

    smcr::Status prepare(const CampaignSpec& spec, const std::vector<AgentPair>& agents);
    void connectAll();
    void onInitialLinkReady();
    void onInitialLinkFailed(const QString& why);
    smcr::Status registerAgent(AgentLink* link);
    void beginRunning();
    // A resumed campaign's notes get a line: when, which cells, on what agents and wire.
    void noteResume();
    void dispatch(int pairIndex);
    void runCell(int pairIndex, int cellIndex);
    void reconnectPair(int pairIndex, int cellIndex);
    void onCellFinished(int pairIndex, int cellIndex, const CellOutcome& outcome);
    // `seen`: what the run produced before it failed, stored with the failure.
    void recordFailure(int pairIndex, int cellIndex, const QString& error, bool agentLost,
                       const std::optional<db::RunRecord>& seen = std::nullopt);
    RecordInputs recordInputs(const Pair& pair, const Cell& cell) const;
    void settle();
    // done, or failed when no run of the campaign finished.
    db::CampaignStatus finalStatus();
    void setState(RunnerState state);
    void fatal(const QString& error);
    void emitProgress();
    CellInfo cellInfo(int cellIndex, int pairIndex) const;
    int activeRunners() const;

    db::ResultStore& m_store;
    AgentConnectOptions m_connectOptions;
    QHash<QString, QString> m_tokenByAddress;
    QHash<QString, QString> m_nameByAddress;
    QJsonObject m_wire;
    CampaignSpec m_spec;
    std::vector<Cell> m_cells;
    std::deque<int> m_queue;                 // cell indices still to run in this session
    std::map<int, BusyRetry> m_busyRetries;  // by cell index
    std::vector<Pair> m_pairs;
    std::vector<AgentLink*> m_links;  // every distinct agent
    RunnerState m_state = RunnerState::idle;
    bool m_resuming = false;
    QDateTime m_sessionStarted;  // when this runner began running the campaign (UTC)
    qint64 m_campaignId = 0;
    int m_doneBefore = 0;  // recorded before this session (resume)
    int m_done = 0;
    int m_failed = 0;
    int m_linksPending = 0;
    int m_attempts = 0;
    QString m_sessionTag;
    qint64 m_cellWallMsSum = 0;
    int m_cellWallCount = 0;
    QElapsedTimer m_elapsed;
    QTimer m_progressTimer;
    // Held while this runner has the campaign (runner_lock.h): readers tell a
    // running campaign from one whose runner went away.
    std::unique_ptr<RunnerLock> m_runnerLock;
};

}  // namespace smclab::orchestrator

Q_DECLARE_METATYPE(smclab::orchestrator::Progress)
Q_DECLARE_METATYPE(smclab::orchestrator::CellInfo)
Q_DECLARE_METATYPE(smclab::orchestrator::RunnerState)
