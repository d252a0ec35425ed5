#include "cell_runner.h"

#include "protocol/protocol_error.h"

namespace smclab::orchestrator {

using protocol::ProtocolError;

namespace {

QString errorText(const QJsonObject& reply) {
    const ProtocolError error = ProtocolError::fromJson(reply);
    QString text = error.message.isEmpty() ? error.code : error.message;
    if (!error.field.isEmpty() && !text.contains(error.field)) text = error.field + QStringLiteral(": ") + text;
    return text;
}

bool isError(const QJsonObject& reply) {
    return reply.value(QLatin1String("type")).toString() == QLatin1String("error");
}

}  // namespace

CellRunner::CellRunner(AgentLink* server, AgentLink* client, protocol::StartRun serverRun, protocol::StartRun clientRun,
                       QObject* parent)
    : QObject(parent),
      m_server(server),
      m_client(client),
      m_serverRun(std::move(serverRun)),
      m_clientRun(std::move(clientRun)) {
    m_serverRun.role = smcr::Side::server;
    m_clientRun.role = smcr::Side::client;
    m_phaseTimer.setSingleShot(true);
    connect(&m_phaseTimer, &QTimer::timeout, this, [this] {
        switch (m_phase) {
            case Phase::startingServer:
                fail(QStringLiteral("%1 did not report the server ready in time").arg(describe(m_server)));
                break;
            case Phase::startingClient:
            case Phase::running:
                fail(QStringLiteral("the run did not end in time (agents %1 and %2)")
                         .arg(m_server->address(), m_client->address()));
                break;
            case Phase::clientFailed:
                fail(m_clientError);
                break;
            case Phase::collectingServer:
                // The client's result is what the cell measures; a server
                // that does not report its side in time only loses its
                // counters.
                finish(CellOutcome::Kind::finished);
                break;
            case Phase::idle:
            case Phase::done:
                break;
        }
    });
}

QString CellRunner::describe(const AgentLink* link) const {
    return QStringLiteral("%1 agent %2")
        .arg(link == m_server ? QStringLiteral("server") : QStringLiteral("client"), link->label());
}

void CellRunner::start() {
    m_outcome = {};
    m_outcome.startedAt = QDateTime::currentDateTimeUtc();
    if (!m_server->isReady()) return fail(QStringLiteral("%1 is not connected").arg(describe(m_server)), true);
    if (!m_client->isReady()) return fail(QStringLiteral("%1 is not connected").arg(describe(m_client)), true);

    AgentClient* server = m_server->client();
    AgentClient* client = m_client->client();
    const QString serverId = m_serverRun.runId;
    const QString clientId = m_clientRun.runId;
    m_connections << connect(server, &AgentClient::runReady, this, [this, serverId](const protocol::RunReady& ready) {
        if (ready.runId == serverId && m_phase == Phase::startingServer) startClient(ready);
    });
    m_connections << connect(server, &AgentClient::samplesReceived, this, [this, serverId](const protocol::Samples& s) {
        if (s.runId != serverId || m_phase == Phase::done) return;
        m_outcome.serverSamples.append(s);
        emit samplesReceived(s, true);
    });
    m_connections << connect(client, &AgentClient::samplesReceived, this, [this, clientId](const protocol::Samples& s) {
        if (s.runId != clientId || m_phase == Phase::done) return;
        m_outcome.clientSamples.append(s);
        emit samplesReceived(s, false);
    });
    m_connections << connect(server, &AgentClient::resultReceived, this,
                             [this, serverId](const protocol::RunResult& r) {
                                 if (r.runId == serverId) onResult(r, true);
                             });
    m_connections << connect(client, &AgentClient::resultReceived, this,
                             [this, clientId](const protocol::RunResult& r) {
                                 if (r.runId == clientId) onResult(r, false);
                             });
    m_connections << connect(m_server, &AgentLink::lost, this, [this] {
        if (m_phase == Phase::collectingServer) return finish(CellOutcome::Kind::finished);
        QString error = QStringLiteral("%1 disconnected mid-run").arg(describe(m_server));
        if (m_phase == Phase::clientFailed) error += QStringLiteral(" (then %1)").arg(m_clientError);
        fail(error, true);
    });
    m_connections << connect(m_client, &AgentLink::lost, this,
                             [this] { fail(QStringLiteral("%1 disconnected mid-run").arg(describe(m_client)), true); });

    m_phase = Phase::startingServer;
    m_phaseTimer.start(kReadyTimeoutMs);
    server->startRun(m_serverRun, [this](const QJsonObject& reply) {
        if (m_phase != Phase::startingServer || !isError(reply)) return;
        fail(QStringLiteral("%1 refused the run: %2").arg(describe(m_server), errorText(reply)));
    });
}

void CellRunner::startClient(const protocol::RunReady& ready) {
    // The server may report the wildcard address it bound; the client then
    // reaches it at the address we reach its agent by.
    QHostAddress address(ready.address);
    if (address.isNull() || address == QHostAddress::AnyIPv4 || address == QHostAddress::AnyIPv6 ||
        address == QHostAddress::Any)
        address = m_server->hostAddress();
    m_clientRun.peer.address = address;
    m_clientRun.peer.port = ready.port;
    m_phase = Phase::startingClient;
    m_phaseTimer.start(static_cast<int>(m_clientRun.warmupMs + m_clientRun.durationMs) + kSlackMs);
    m_clientStarted = true;
    m_client->client()->startRun(m_clientRun, [this](const QJsonObject& reply) {
        if (m_phase != Phase::startingClient && m_phase != Phase::running) return;
        if (isError(reply)) {
            fail(QStringLiteral("%1 refused the run: %2").arg(describe(m_client), errorText(reply)));
            return;
        }
        m_phase = Phase::running;
    });
}

void CellRunner::onResult(const protocol::RunResult& result, bool fromServer) {
    if (m_phase == Phase::done) return;
    if (fromServer) {
        m_outcome.server = result;
        m_outcome.haveServerResult = true;
        if (m_phase == Phase::collectingServer) return finish(CellOutcome::Kind::finished);
        if (m_phase == Phase::clientFailed) {
            QString error = m_clientError;
            if (result.state == protocol::RunState::failed && !result.error.isEmpty())
                error += QStringLiteral("; %1: %2").arg(describe(m_server), result.error);
            return fail(error);
        }
        // A server that ends before its client only matters when it failed
        // (it could not listen, or its side broke); the client then fails
        // too, but the server's error says why.
        if (result.state == protocol::RunState::failed)
            fail(QStringLiteral("%1: %2").arg(describe(m_server),
                                              result.error.isEmpty() ? QStringLiteral("run failed") : result.error));
        return;
    }
    m_outcome.client = result;
    if (result.state == protocol::RunState::failed) {
        m_clientError = QStringLiteral("%1: %2").arg(
            describe(m_client), result.error.isEmpty() ? QStringLiteral("run failed") : result.error);
        if (m_outcome.haveServerResult || !m_server->isReady()) return fail(m_clientError);
        m_phase = Phase::clientFailed;
        m_phaseTimer.start(kCauseGraceMs);
        if (m_server->isReady()) m_server->client()->stopRun(m_serverRun.runId);
        return;
    }
    if (result.state == protocol::RunState::stopped) {
        fail(QStringLiteral("%1 stopped the run before its end").arg(describe(m_client)));
        return;
    }
    if (m_outcome.haveServerResult) return finish(CellOutcome::Kind::finished);
    m_phase = Phase::collectingServer;
    m_phaseTimer.start(kServerResultTimeoutMs);
    if (m_server->isReady()) m_server->client()->stopRun(m_serverRun.runId);
}

void CellRunner::applySettings(const QJsonObject& settings, std::function<void(const QString&)> onDone) {
    if (m_phase != Phase::running) {
        if (onDone) onDone(QStringLiteral("no run is in progress"));
        return;
    }
    // Both sides get the change (each applies it to its own transport); the
    // client's acknowledgement carries the effective time recorded with the
    // run, since the stored samples are the client's.
    auto pending = std::make_shared<int>(2);
    auto errors = std::make_shared<QStringList>();
    auto complete = [this, pending, errors, onDone](const QString& error) {
        if (!error.isEmpty()) errors->append(error);
        if (--*pending == 0 && onDone) onDone(errors->join(QStringLiteral("; ")));
    };
    m_server->client()->setSettings(m_serverRun.runId, settings, [this, complete](const QJsonObject& reply) {
        complete(isError(reply) ? QStringLiteral("%1: %2").arg(describe(m_server), errorText(reply)) : QString());
    });
    m_client->client()->setSettings(m_clientRun.runId, settings, [this, complete](const QJsonObject& reply) {
        if (isError(reply)) return complete(QStringLiteral("%1: %2").arg(describe(m_client), errorText(reply)));
        const protocol::SettingsApplied applied = protocol::SettingsApplied::fromJson(reply);
        if (m_phase != Phase::done) {
            m_outcome.settingChanges.append(applied);
            emit settingsApplied(applied);
        }
        complete(QString());
    });
}

void CellRunner::stopRuns() {
    if (m_server->isReady()) m_server->client()->stopRun(m_serverRun.runId);
    if (m_clientStarted && m_client->isReady()) m_client->client()->stopRun(m_clientRun.runId);
}

void CellRunner::fail(const QString& error, bool agentLost) {
    if (m_phase == Phase::done) return;
    m_outcome.error = error;
    m_outcome.agentLost = agentLost;
    stopRuns();
    finish(CellOutcome::Kind::failed);
}

void CellRunner::abort() {
    if (m_phase == Phase::done) return;
    stopRuns();
    m_outcome.error = QStringLiteral("stopped");
    finish(CellOutcome::Kind::aborted);
}

void CellRunner::finish(CellOutcome::Kind kind) {
    if (m_phase == Phase::done) return;
    m_phase = Phase::done;
    m_phaseTimer.stop();
    for (const auto& connection : m_connections) disconnect(connection);
    m_connections.clear();
    m_outcome.kind = kind;
    m_outcome.finishedAt = QDateTime::currentDateTimeUtc();
    // Queued, so the receiver may delete this runner from its slot.
    QMetaObject::invokeMethod(
        this, [this, outcome = m_outcome] { emit finished(outcome); }, Qt::QueuedConnection);
}

}  // namespace smclab::orchestrator
