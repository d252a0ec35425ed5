// One controller connection. Named states (protocol/states.h): handshake is
// handled by UpgradeGate; a Session starts in idle (hello sent), is running
// while any of its runs is active, and closing once the controller has gone
// or the agent is shutting down. A controller that vanishes mid-run gets a
// grace period to come back before its runs are stopped; the Session ends
// (closed()) when its socket is gone and its runs have ended.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QWebSocket>

#include "protocol/messages.h"
#include "protocol/protocol_error.h"
#include "protocol/states.h"
#include "protocol/validator.h"

namespace smclab::daemon {

class Agent;
class Run;

class Session : public QObject {
    Q_OBJECT
public:
    Session(QWebSocket* socket, Agent& agent, QString id);
    ~Session() override;

    const QString& id() const { return m_id; }
    protocol::SessionState state() const { return m_state; }
    int activeRuns() const;
    // Agent shutdown: stop every run; the socket closes once their results are sent.
    void beginShutdown();
    bool socketGone() const { return m_socket == nullptr; }

signals:
    void closed(smclab::daemon::Session* session);

private:
    void onText(const QString& text);
    void onDisconnected();
    void send(const QJsonObject& message);
    void sendError(const protocol::ProtocolError& error, qint64 requestId, const QString& runId = {});
    void sendReply(QJsonObject message, qint64 requestId);

    // start_run: admitted, its workload and transport found, its params
    // validated, its transport created with its settings, then started.
    struct PreparedRun;
    void handleStartRun(const protocol::StartRun& start, qint64 requestId);
    protocol::ProtocolError checkRunAdmission(const protocol::StartRun& start) const;
    protocol::ProtocolError resolveRunTargets(const protocol::StartRun& start, PreparedRun* prepared) const;
    protocol::ProtocolError prepareRunParams(const protocol::StartRun& start, PreparedRun* prepared) const;
    protocol::ProtocolError prepareRunTransport(const protocol::StartRun& start, PreparedRun* prepared) const;
    void startPreparedRun(const protocol::StartRun& start, PreparedRun prepared, qint64 requestId);
    void forwardRunSignals(Run* run);
    void handleSetSettings(const protocol::SetSettings& set, qint64 requestId);
    void handleStopRun(const protocol::StopRun& stop, qint64 requestId);
    void handleStatus(qint64 requestId);

    Run* findRun(const QString& runId) const;
    void onRunFinished(Run* run, const protocol::RunResult& result);
    void updateState();
    void maybeClose();

    QPointer<QWebSocket> m_socket;
    Agent& m_agent;
    const QString m_id;
    QString m_peer;
    protocol::SessionState m_state = protocol::SessionState::idle;
    QTimer m_grace;
    QList<Run*> m_runs;
};

}  // namespace smclab::daemon
