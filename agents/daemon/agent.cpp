#include "agent.h"

#include <utility>

#include <QFile>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QWebSocket>

#include "host_probe.h"
#include "protocol/messages.h"
#include "run.h"
#include "session.h"

namespace smclab::daemon {

namespace {

// A workload that ignores its stop flag must not keep the agent alive forever.
constexpr int kShutdownDeadlineMs = 15'000;
// After the last close frame: time for it (and the results before it) to leave.
constexpr int kCloseLingerMs = 1'000;

std::optional<QSslConfiguration> loadTls(const DaemonOptions& options, QString* why) {
    QFile certFile(options.tlsCertFile);
    QFile keyFile(options.tlsKeyFile);
    if (!certFile.open(QIODevice::ReadOnly)) {
        *why = QString("cannot read --tls-cert %1: %2").arg(options.tlsCertFile, certFile.errorString());
        return std::nullopt;
    }
    if (!keyFile.open(QIODevice::ReadOnly)) {
        *why = QString("cannot read --tls-key %1: %2").arg(options.tlsKeyFile, keyFile.errorString());
        return std::nullopt;
    }
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certFile.readAll(), QSsl::Pem);
    const QByteArray keyPem = keyFile.readAll();
    QSslKey key(keyPem, QSsl::Rsa, QSsl::Pem);
    if (key.isNull()) key = QSslKey(keyPem, QSsl::Ec, QSsl::Pem);
    if (chain.isEmpty()) {
        *why = QString("no PEM certificate in %1").arg(options.tlsCertFile);
        return std::nullopt;
    }
    if (key.isNull()) {
        *why = QString("no PEM RSA or EC private key in %1").arg(options.tlsKeyFile);
        return std::nullopt;
    }
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setLocalCertificateChain(chain);
    config.setPrivateKey(key);
    config.setPeerVerifyMode(QSslSocket::VerifyNone);  // controllers authenticate with the token
    return config;
}

}  // namespace

Agent::Agent(DaemonOptions options, QByteArray token, PeerPolicy peers, QObject* parent)
    : QObject(parent),
      m_options(std::move(options)),
      m_peers(std::move(peers)),
      m_webSockets("smclab-agent",
                   m_options.tlsCertFile.isEmpty() ? QWebSocketServer::NonSecureMode : QWebSocketServer::SecureMode),
      m_gate(std::move(token), &m_webSockets) {
    m_peers.setLoopbackAllowed(m_options.allowLoopbackPeers);
    m_capabilities = probeCapabilities({m_options.maxRuns, m_options.maxDurationMs, protocol::kMinSampleIntervalMs});
    m_synOption = std::make_unique<SynOptionPorts>(m_capabilities);
    m_capabilities.synOption = m_synOption->state();
    connect(&m_webSockets, &QWebSocketServer::newConnection, this, &Agent::onNewConnection);
    m_shutdownDeadline.setSingleShot(true);
    connect(&m_shutdownDeadline, &QTimer::timeout, this, [this] {
        qCritical("shutdown: runs did not end within %d ms", kShutdownDeadlineMs);
        m_shutdownTimedOut = true;
        emit shutdownComplete();
    });
    m_closeLinger.setSingleShot(true);
    connect(&m_closeLinger, &QTimer::timeout, this, &Agent::shutdownComplete);
}

Agent::~Agent() {
    // Sessions unregister their runs from m_runs as they go, so they must
    // die while this object's members are still alive.
    const QList<Session*> sessions = std::exchange(m_sessions, {});
    qDeleteAll(sessions);
}

bool Agent::start(QString* why) {
    std::optional<QSslConfiguration> tls;
    if (!m_options.tlsCertFile.isEmpty()) {
        tls = loadTls(m_options, why);
        if (!tls) return false;
    }
    if (!m_gate.listen(m_options.listen, tls, why)) return false;
    return true;
}

void Agent::registerRun(const QString& runId, Run* run) {
    m_runs.insert(runId, run);
    ++m_runsStarted;
}

void Agent::unregisterRun(const QString& runId) {
    const auto found = m_runs.constFind(runId);
    if (found == m_runs.constEnd()) return;
    // A run dropped with its session before it ended counts as stopped.
    const protocol::RunState state = found.value()->state();
    ++m_runsEnded[protocol::isTerminal(state) ? state : protocol::RunState::stopped];
    m_runs.erase(found);
}

QList<const Run*> Agent::runs() const {
    QList<const Run*> out;
    for (const Run* run : m_runs) out.append(run);
    return out;
}

void Agent::onNewConnection() {
    while (QWebSocket* socket = m_webSockets.nextPendingConnection()) {
        if (m_shuttingDown) {
            socket->close(QWebSocketProtocol::CloseCodeGoingAway, "agent shutting down");
            socket->deleteLater();
            continue;
        }
        auto* session = new Session(socket, *this, QString("s%1").arg(m_nextSessionId++));
        connect(session, &Session::closed, this, &Agent::onSessionClosed);
        m_sessions.append(session);
    }
}

void Agent::onSessionClosed(Session* session) {
    m_sessions.removeOne(session);
    session->deleteLater();
    checkShutdownDone();
}

void Agent::shutdown() {
    if (m_shuttingDown) return;
    m_shuttingDown = true;
    qInfo("shutdown: stopping %d run(s), closing %d session(s)", activeRuns(), static_cast<int>(m_sessions.size()));
    m_gate.close();
    m_shutdownDeadline.start(kShutdownDeadlineMs);
    const QList<Session*> sessions = m_sessions;
    for (Session* session : sessions) session->beginShutdown();
    checkShutdownDone();
}

void Agent::checkShutdownDone() {
    if (!m_shuttingDown || !m_sessions.isEmpty() || m_closeLinger.isActive()) return;
    m_shutdownDeadline.stop();
    // Sessions close only after their sockets did, so little is left to send.
    m_closeLinger.start(m_runs.isEmpty() ? 0 : kCloseLingerMs);
}

}  // namespace smclab::daemon
