// Runs one cell on one agent pair through the control protocol:
//
//   server agent: start_run(role server)  -> run_ready {port}
//   client agent: start_run(role client, peer = server address:port)
//   samples stream from both sides; the client's run_result ends the cell;
//   the server run is then stopped and its run_result collected.
//
// Any error (refused start_run, a failed run, a lost agent, a timeout) ends
// the cell as failed with a sentence naming the agent; abort() ends it as
// aborted (the orchestrator was stopped: the cell stays pending).
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QTimer>

#include "agent_link.h"
#include "protocol/messages.h"

namespace smclab::orchestrator {

struct CellOutcome {
    enum class Kind { invalid = 0, finished, failed, aborted };
    Kind kind = Kind::invalid;
    QString error;           // failed: why, naming the agent
    bool agentLost = false;  // failed because an agent disconnected
    protocol::RunResult client;
    protocol::RunResult server;
    bool haveServerResult = false;
    QList<protocol::Samples> clientSamples;
    QList<protocol::Samples> serverSamples;
    QList<protocol::SettingsApplied> settingChanges;  // live changes, as the client agent acknowledged them
    QDateTime startedAt;                              // UTC
    QDateTime finishedAt;                             // UTC
};

class CellRunner : public QObject {
    Q_OBJECT
public:
    // The runs' ids, peer and listen fields are filled in here.
    CellRunner(AgentLink* server, AgentLink* client, protocol::StartRun serverRun, protocol::StartRun clientRun,
               QObject* parent = nullptr);

    void start();
    void abort();
    bool isRunning() const { return m_phase == Phase::running; }
    bool isDone() const { return m_phase == Phase::done; }
    // Applies settings live to both sides of the running cell. onDone gets
    // an empty string, or the agents' error.
    void applySettings(const QJsonObject& settings, std::function<void(const QString& error)> onDone);

    // Time allowed beyond warm-up + duration before the cell is declared hung.
    static constexpr int kSlackMs = 20'000;
    static constexpr int kReadyTimeoutMs = 15'000;
    static constexpr int kServerResultTimeoutMs = 5'000;
    static constexpr int kCauseGraceMs = 1'000;

signals:
    void samplesReceived(const smclab::protocol::Samples& samples, bool fromServer);
    void settingsApplied(const smclab::protocol::SettingsApplied& applied);
    void finished(const smclab::orchestrator::CellOutcome& outcome);

private:
    // clientFailed: the client reported a failure; wait briefly for the
    // server side (its result, or the loss of its agent), which usually
    // says why (a killed server agent shows first as a reset at the client).
    enum class Phase { idle, startingServer, startingClient, running, clientFailed, collectingServer, done };

    void startClient(const protocol::RunReady& ready);
    void onResult(const protocol::RunResult& result, bool fromServer);
    void fail(const QString& error, bool agentLost = false);
    void finish(CellOutcome::Kind kind);
    void stopRuns();
    QString describe(const AgentLink* link) const;

    AgentLink* m_server;
    AgentLink* m_client;
    protocol::StartRun m_serverRun;
    protocol::StartRun m_clientRun;
    Phase m_phase = Phase::idle;
    bool m_clientStarted = false;
    QTimer m_phaseTimer;
    CellOutcome m_outcome;
    QList<QMetaObject::Connection> m_connections;
    QString m_clientError;
};

}  // namespace smclab::orchestrator

Q_DECLARE_METATYPE(smclab::orchestrator::CellOutcome)
