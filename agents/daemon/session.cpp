#include "session.h"

#include <smcr/version.h>

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include "agent.h"
#include "protocol/field_reader.h"
#include "protocol/hello.h"
#include "protocol/version.h"
#include "run.h"
#include "settings_bridge.h"
#include "transport.h"
#include "workload.h"

namespace smclab::daemon {

using namespace smclab::protocol;

namespace {

// workloads::validateParams errors start with the field name ("msg_size: ...").
ProtocolError paramsError(const smcr::Error& error) {
    const QString message = QString::fromStdString(error.message);
    const QString key = message.section(':', 0, 0).trimmed();
    if (keyPattern().match(key).hasMatch()) {
        return makeError(errc::kBadField, "params." + key, "params." + message);
    }
    return makeError(errc::kBadField, "params", "params: " + message);
}

bool schemaHas(const workloads::ParamSchema& schema, const char* name) {
    for (const workloads::ParamSpec& spec : schema) {
        if (spec.name == name) return true;
    }
    return false;
}

// Empty when `root` lies inside `allowedRoot` (both resolved, symlinks too).
QString checkServedRoot(const QString& root, const QString& allowedRoot) {
    if (root.isEmpty()) return {};
    if (allowedRoot.isEmpty()) return "serving files is off on this agent (start it with --http-root DIR)";
    const QString resolved = QFileInfo(root).canonicalFilePath();
    const QString allowed = QFileInfo(allowedRoot).canonicalFilePath();
    if (resolved.isEmpty()) return QString("'%1' does not exist").arg(root);
    if (allowed.isEmpty() || (resolved != allowed && !resolved.startsWith(allowed + '/'))) {
        return QString("'%1' is outside the agent's --http-root %2").arg(root, allowedRoot);
    }
    return {};
}

QStringList workloadNames() {
    QStringList names;
    for (const workloads::Workload* workload : workloads::workloadRegistry()) {
        names.append(QString::fromStdString(workload->name()));
    }
    return names;
}

}  // namespace

Session::Session(QWebSocket* socket, Agent& agent, QString id)
    : QObject(&agent), m_socket(socket), m_agent(agent), m_id(std::move(id)) {
    m_peer = socket->peerAddress().toString() + ':' + QString::number(socket->peerPort());
    socket->setParent(this);
    socket->setMaxAllowedIncomingMessageSize(kMaxMessageBytes);
    connect(socket, &QWebSocket::textMessageReceived, this, &Session::onText);
    connect(socket, &QWebSocket::binaryMessageReceived, this, [this] {
        sendError(makeError(errc::kBadJson, {}, "binary messages are not part of the protocol; send JSON text"), -1);
    });
    connect(socket, &QWebSocket::disconnected, this, &Session::onDisconnected);
    m_grace.setSingleShot(true);
    connect(&m_grace, &QTimer::timeout, this, [this] {
        qInfo("session %s: controller gone for %lld ms; stopping its %d run(s)", qPrintable(m_id),
              static_cast<long long>(m_agent.options().disconnectGraceMs), activeRuns());
        for (Run* run : m_runs) run->requestStop(Run::EndCause::request);
    });

    qInfo("session %s: controller %s connected", qPrintable(m_id), qPrintable(m_peer));
    const Hello hello{kProtocolVersion, smcr::versionString(), m_id, m_agent.capabilities()};
    send(hello.toJson());
}

Session::~Session() {
    for (Run* run : m_runs) m_agent.unregisterRun(run->id());
}

int Session::activeRuns() const {
    int count = 0;
    for (const Run* run : m_runs) count += run->isActive() ? 1 : 0;
    return count;
}

void Session::send(const QJsonObject& message) {
    if (!m_socket) return;
    m_socket->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void Session::sendReply(QJsonObject message, qint64 requestId) {
    if (requestId >= 0) message.insert("id", requestId);
    send(message);
}

void Session::sendError(const ProtocolError& error, qint64 requestId, const QString& runId) {
    QJsonObject message = error.toJson();
    if (!runId.isEmpty()) message.insert("run_id", runId);
    qInfo("session %s: error %s%s: %s", qPrintable(m_id), qPrintable(error.code),
          error.field.isEmpty() ? "" : qPrintable(" (" + error.field + ")"), qPrintable(error.message));
    sendReply(message, requestId);
}

void Session::onText(const QString& text) {
    const ControllerMessage message = parseControllerMessage(text.toUtf8());
    if (!message.ok()) {
        sendError(message.error, message.requestId);
        return;
    }
    if (const auto* start = std::get_if<StartRun>(&message.body)) {
        handleStartRun(*start, message.requestId);
    } else if (const auto* set = std::get_if<SetSettings>(&message.body)) {
        handleSetSettings(*set, message.requestId);
    } else if (const auto* stop = std::get_if<StopRun>(&message.body)) {
        handleStopRun(*stop, message.requestId);
    } else if (std::holds_alternative<StatusRequest>(message.body)) {
        handleStatus(message.requestId);
    }
}

// What handleStartRun gathers for a run before it starts: each step below
// fills its part or names the first problem, so a refused start leaves
// nothing behind (settings an aborted start applied are restored at once).
struct Session::PreparedRun {
    const workloads::Workload* workload = nullptr;
    const transports::TransportEntry* transportEntry = nullptr;
    QJsonObject params;
    std::shared_ptr<transports::Transport> transport;
    std::map<std::string, std::string> previousSettings;
};

void Session::handleStartRun(const StartRun& start, qint64 requestId) {
    PreparedRun prepared;
    ProtocolError error = checkRunAdmission(start);
    if (!error.isError()) error = resolveRunTargets(start, &prepared);
    if (!error.isError()) error = prepareRunParams(start, &prepared);
    if (!error.isError()) error = prepareRunTransport(start, &prepared);
    if (error.isError()) return sendError(error, requestId, start.runId);
    startPreparedRun(start, std::move(prepared), requestId);
}

ProtocolError Session::checkRunAdmission(const StartRun& start) const {
    if (m_agent.isShuttingDown() || m_state == SessionState::closing) {
        return makeError(errc::kShuttingDown, {}, "the agent is shutting down");
    }
    const qint64 maxDurationMs = m_agent.options().maxDurationMs;
    if (start.durationMs > maxDurationMs) {
        return makeError(errc::kBadField, "duration_ms",
                         QString("duration_ms: %1 exceeds this agent's limit of %2 ms (--max-duration)")
                             .arg(start.durationMs)
                             .arg(maxDurationMs));
    }
    if (m_agent.runIdInUse(start.runId)) {
        return makeError(errc::kDuplicateRun, "run_id",
                         QString("run_id: a run '%1' is already active").arg(start.runId));
    }
    if (m_agent.activeRuns() >= m_agent.options().maxRuns) {
        return makeError(errc::kTooManyRuns, {},
                         QString("%1 runs are active, the limit (--max-runs)").arg(m_agent.activeRuns()));
    }
    return {};
}

ProtocolError Session::resolveRunTargets(const StartRun& start, PreparedRun* prepared) const {
    prepared->workload = workloads::findWorkload(start.workload.toStdString());
    if (prepared->workload == nullptr) {
        return makeError(errc::kUnknownWorkload, "workload",
                         QString("workload: '%1' is not one of: %2").arg(start.workload, workloadNames().join(", ")));
    }
    prepared->transportEntry = transports::findTransport(start.transport.toStdString());
    if (prepared->transportEntry == nullptr) {
        return makeError(errc::kUnknownTransport, "transport",
                         QString("transport: '%1' is not built into this agent").arg(start.transport));
    }
    if (start.role == smcr::Side::client && !m_agent.peers().isAllowed(start.peer.address)) {
        return makeError(errc::kPeerNotAllowed, "peer",
                         QString("peer: %1 is outside the agent's --allow-peer list (%2)")
                             .arg(start.peer.address.toString(), m_agent.peers().describe().join(", ")));
    }
    return {};
}

ProtocolError Session::prepareRunParams(const StartRun& start, PreparedRun* prepared) const {
    // duration_ms and warmup_ms live at the top level of start_run; the
    // workload gets them as its own params so there is one source of truth.
    const workloads::ParamSchema schema = prepared->workload->schema(start.role);
    QJsonObject params = start.params;
    for (const char* key : {"duration_ms", "warmup_ms"}) {
        if (params.contains(key)) {
            return makeError(errc::kBadField, QString("params.") + key,
                             QString("params.%1: give %1 at the top level of start_run").arg(key));
        }
    }
    // A controller must not turn the agent into a file server for the whole
    // host: params.root only within --http-root.
    if (params.contains("root")) {
        const QString error = checkServedRoot(params.value("root").toString(), m_agent.options().httpRoot);
        if (!error.isEmpty()) return makeError(errc::kBadField, "params.root", "params.root: " + error);
    }
    if (schemaHas(schema, "duration_ms")) params.insert("duration_ms", start.durationMs);
    if (schemaHas(schema, "warmup_ms") && start.warmupMs >= 0) params.insert("warmup_ms", start.warmupMs);
    auto validated = workloads::validateParams(schema, params);
    if (!validated.ok()) return paramsError(validated.error());
    prepared->params = validated.value();
    return {};
}

ProtocolError Session::prepareRunTransport(const StartRun& start, PreparedRun* prepared) const {
    const transports::Availability availability = prepared->transportEntry->probe();
    if (!availability.available) {
        return makeError(errc::kTransportUnavailable, "transport",
                         QString("transport: %1 is not available on this host: %2")
                             .arg(start.transport, QString::fromStdString(availability.reason)));
    }
    transports::TransportOptions options;
    for (auto it = start.transportOptions.begin(); it != start.transportOptions.end(); ++it) {
        options[it.key().toStdString()] = settingText(it.value());
    }
    auto transport = transports::createTransport(start.transport.toStdString(), options);
    if (!transport.ok()) {
        const bool optionsAtFault = transport.error().code == smcr::Errc::invalidArgument;
        return makeError(optionsAtFault ? errc::kBadField : errc::kTransportUnavailable,
                         optionsAtFault ? "transport_options" : "transport",
                         QString("%1: %2").arg(optionsAtFault ? "transport_options" : "transport",
                                               QString::fromStdString(transport.error().message)));
    }
    QJsonObject applied;
    const ProtocolError settingsError =
        applySettings(*transport.value(), start.settings, &prepared->previousSettings, &applied);
    if (settingsError.isError()) {
        for (const auto& [name, value] : prepared->previousSettings) {
            (void)transport.value()->applySetting(name, value);
        }
        return settingsError;
    }
    prepared->transport = transport.value();
    return {};
}

void Session::startPreparedRun(const StartRun& startAsked, PreparedRun prepared, qint64 requestId) {
    StartRun start = startAsked;
    const QHostAddress& asked = start.listen.address;
    const bool wildcard = asked.isNull() || asked == QHostAddress::AnyIPv4 || asked == QHostAddress::AnyIPv6 ||
                          asked == QHostAddress::Any;
    if (start.role == smcr::Side::server && wildcard && !m_agent.options().dataAddress.isNull())
        start.listen.address = m_agent.options().dataAddress;
    // libsmcr over a real fabric: the SMC TCP option on the run's port, so
    // a kernel SMC-R peer takes it for SMC; a server asked for any port
    // gets one chosen here, since the option must be on before it listens.
    std::shared_ptr<void> synOption;
    if (m_agent.synOption().on() && SynOptionPorts::wants(start.transport, start.transportOptions)) {
        if (start.role == smcr::Side::server && start.listen.port == 0)
            start.listen.port = SynOptionPorts::freePort(start.listen.address.toString());
        synOption = m_agent.synOption().lease(start.role == smcr::Side::server ? start.listen.port : start.peer.port);
    }
    const QString& runId = start.runId;
    auto* run = new Run(start, prepared.workload, std::move(prepared.params), std::move(prepared.transport),
                        std::move(prepared.previousSettings), this);
    run->holdWhileRunning(std::move(synOption));
    m_runs.append(run);
    m_agent.registerRun(runId, run);
    forwardRunSignals(run);
    qInfo("run %s: %s %s over %s for %lld ms (session %s)", qPrintable(runId), smcr::sideName(start.role),
          qPrintable(start.workload), qPrintable(start.transport), static_cast<long long>(start.durationMs),
          qPrintable(m_id));
    sendReply(QJsonObject{{"type", type::kRunAccepted}, {"run_id", runId}, {"state", "accepted"}}, requestId);
    run->start();
    updateState();
}

void Session::forwardRunSignals(Run* run) {
    connect(run, &Run::stateChanged, this, [this](const QString& id, RunState state, qint64 tMs) {
        send(QJsonObject{{"type", type::kRunState}, {"run_id", id}, {"state", runStateName(state)}, {"t_ms", tMs}});
    });
    connect(run, &Run::ready, this, [this](const RunReady& ready) {
        qInfo("run %s: listening on port %u", qPrintable(ready.runId), ready.port);
        send(ready.toJson());
    });
    connect(run, &Run::samplesReady, this, [this](const Samples& samples) { send(samples.toJson()); });
    connect(run, &Run::failedToRun, this, [this](const QString& id, const QString& message) {
        sendError(makeError(errc::kRunFailed, {}, message), -1, id);
    });
    connect(run, &Run::finished, this, [this, run](const RunResult& result) { onRunFinished(run, result); });
}

void Session::handleSetSettings(const SetSettings& set, qint64 requestId) {
    Run* run = findRun(set.runId);
    if (run == nullptr || !run->isActive()) {
        return sendError(makeError(errc::kUnknownRun, "run_id", QString("run_id: no active run '%1'").arg(set.runId)),
                         requestId, set.runId);
    }
    SettingsApplied applied;
    const ProtocolError error = run->applyLiveSettings(set.settings, &applied);
    if (error.isError()) return sendError(error, requestId, set.runId);
    qInfo("run %s: settings applied at %lld ms: %s", qPrintable(set.runId), static_cast<long long>(applied.atMs),
          QJsonDocument(applied.applied).toJson(QJsonDocument::Compact).constData());
    sendReply(applied.toJson(), requestId);
}

void Session::handleStopRun(const StopRun& stop, qint64 requestId) {
    Run* run = findRun(stop.runId);
    if (run == nullptr || !run->isActive()) {
        return sendError(makeError(errc::kUnknownRun, "run_id", QString("run_id: no active run '%1'").arg(stop.runId)),
                         requestId, stop.runId);
    }
    run->requestStop(Run::EndCause::request);
    sendReply(QJsonObject{{"type", type::kRunStopping}, {"run_id", stop.runId}}, requestId);
}

void Session::handleStatus(qint64 requestId) {
    QJsonArray runs;
    for (const Run* run : m_runs) {
        runs.append(QJsonObject{{"run_id", run->id()},
                                {"state", runStateName(run->state())},
                                {"role", QLatin1String(smcr::sideName(run->spec().role))},
                                {"workload", run->spec().workload},
                                {"transport", run->spec().transport},
                                {"elapsed_ms", run->elapsedMs()}});
    }
    sendReply(QJsonObject{{"type", type::kStatusReply},
                          {"session_state", sessionStateName(m_state)},
                          {"runs", runs},
                          {"active_runs", m_agent.activeRuns()},
                          {"max_runs", m_agent.options().maxRuns}},
              requestId);
}

Run* Session::findRun(const QString& runId) const {
    for (Run* run : m_runs) {
        if (run->id() == runId) return run;
    }
    return nullptr;
}

void Session::onRunFinished(Run* run, const RunResult& result) {
    qInfo("run %s: %s after %lld ms%s%s", qPrintable(result.runId), qPrintable(runStateName(result.state)),
          static_cast<long long>(result.durationMs), result.error.isEmpty() ? "" : ": ", qPrintable(result.error));
    if (!m_socket) {
        qInfo("run %s: controller gone; result: %s", qPrintable(result.runId),
              QJsonDocument(result.summary).toJson(QJsonDocument::Compact).constData());
    }
    send(result.toJson());
    m_agent.unregisterRun(run->id());
    m_runs.removeOne(run);
    run->deleteLater();
    updateState();
    maybeClose();
}

void Session::updateState() {
    if (m_state == SessionState::closing) return;
    m_state = activeRuns() > 0 ? SessionState::running : SessionState::idle;
}

void Session::onDisconnected() {
    qInfo("session %s: controller %s disconnected (%s)", qPrintable(m_id), qPrintable(m_peer),
          m_socket ? qPrintable(m_socket->closeReason()) : "");
    m_state = SessionState::closing;
    if (m_socket) {
        m_socket->deleteLater();
        m_socket.clear();
    }
    if (!m_runs.isEmpty()) m_grace.start(static_cast<int>(m_agent.options().disconnectGraceMs));
    maybeClose();
}

void Session::beginShutdown() {
    m_state = SessionState::closing;
    m_grace.stop();
    for (Run* run : m_runs) run->requestStop(Run::EndCause::request);
    maybeClose();
}

void Session::maybeClose() {
    if (m_state != SessionState::closing || !m_runs.isEmpty()) return;
    if (m_socket) {
        // Shutdown: every result has been queued; close politely, then report.
        m_socket->close(QWebSocketProtocol::CloseCodeGoingAway, "agent shutting down");
        return;  // onDisconnected() comes back here with the socket gone
    }
    emit closed(this);
}

}  // namespace smclab::daemon
