// smclab-agent's core: listens (UpgradeGate + QWebSocketServer), owns the
// controller sessions, enforces the agent-wide limits (concurrent runs, run
// ids), and shuts down cleanly: stop every run, send every result, close
// every connection, then shutdownComplete().
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QTimer>
#include <QWebSocketServer>

#include "options.h"
#include "peer_policy.h"
#include "protocol/hello.h"
#include "protocol/states.h"
#include "syn_option_ports.h"
#include "upgrade_gate.h"

namespace smclab::daemon {

class Run;
class Session;

class Agent : public QObject {
    Q_OBJECT
public:
    Agent(DaemonOptions options, QByteArray token, PeerPolicy peers, QObject* parent = nullptr);
    ~Agent() override;

    // Listens (with TLS when the options name a certificate); false with *why on failure.
    bool start(QString* why);
    protocol::Endpoint endpoint() const { return m_gate.localEndpoint(); }
    void shutdown();

    const DaemonOptions& options() const { return m_options; }
    const PeerPolicy& peers() const { return m_peers; }
    const protocol::Capabilities& capabilities() const { return m_capabilities; }
    SynOptionPorts& synOption() { return *m_synOption; }
    bool isShuttingDown() const { return m_shuttingDown; }
    bool shutdownTimedOut() const { return m_shutdownTimedOut; }

    int activeRuns() const { return static_cast<int>(m_runs.size()); }
    bool runIdInUse(const QString& runId) const { return m_runs.contains(runId); }
    void registerRun(const QString& runId, Run* run);
    void unregisterRun(const QString& runId);

    // For the metrics page: sessions now, runs now, and runs since start.
    int sessionCount() const { return static_cast<int>(m_sessions.size()); }
    QList<const Run*> runs() const;
    quint64 runsStarted() const { return m_runsStarted; }
    // Runs that ended, by terminal state (finished, stopped, failed).
    const QMap<protocol::RunState, quint64>& runsEnded() const { return m_runsEnded; }

signals:
    void shutdownComplete();

private:
    void onNewConnection();
    void onSessionClosed(Session* session);
    void checkShutdownDone();

    DaemonOptions m_options;
    PeerPolicy m_peers;
    protocol::Capabilities m_capabilities;
    std::unique_ptr<SynOptionPorts> m_synOption;
    QWebSocketServer m_webSockets;
    UpgradeGate m_gate;
    QList<Session*> m_sessions;
    QHash<QString, Run*> m_runs;
    quint64 m_nextSessionId = 1;
    quint64 m_runsStarted = 0;
    QMap<protocol::RunState, quint64> m_runsEnded;
    bool m_shuttingDown = false;
    bool m_shutdownTimedOut = false;
    QTimer m_shutdownDeadline;
    QTimer m_closeLinger;
};

}  // namespace smclab::daemon
