#include "protocol/agent_client.h"

#include <QFile>
#include <QJsonDocument>
#include <QNetworkRequest>
#include <QSslCertificate>
#include <QSslConfiguration>

#include "protocol/json_number.h"
#include "protocol/version.h"

namespace smclab {

using namespace smclab::protocol;

namespace {

QJsonObject disconnectedError(const QString& message) {
    return makeError(errc::kDisconnected, {}, message).toJson();
}

}  // namespace

AgentClient::AgentClient(QObject* parent) : QObject(parent) {
    m_helloTimer.setSingleShot(true);
    connect(&m_helloTimer, &QTimer::timeout, this, [this] {
        if (!m_failedReported) {
            m_failedReported = true;
            emit connectionFailed(QString("no hello from %1 in time").arg(m_url.toString()));
        }
        if (m_socket) m_socket->abort();
    });
}

AgentClient::~AgentClient() {
    // Handlers may capture objects that are going away with us: drop them unrun.
    m_pending.clear();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
}

void AgentClient::connectToAgent(const QString& host, quint16 port, const AgentConnectOptions& options) {
    QUrl url;
    url.setScheme(options.tls ? "wss" : "ws");
    url.setHost(host);
    url.setPort(port);
    url.setPath("/");
    connectToAgent(url, options);
}

void AgentClient::connectToAgent(const QUrl& url, const AgentConnectOptions& options) {
    disconnectFromAgent();
    m_url = url;
    m_ready = false;
    m_failedReported = false;
    m_hello = {};

    auto* socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
    m_socket = socket;
    socket->setMaxAllowedIncomingMessageSize(static_cast<quint64>(kMaxMessageBytes) * 4);
    if (url.scheme() == "wss") {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        if (!options.caCertFile.isEmpty()) {
            const auto certificates = QSslCertificate::fromPath(options.caCertFile, QSsl::Pem);
            if (certificates.isEmpty()) {
                m_failedReported = true;
                QTimer::singleShot(0, this, [this, file = options.caCertFile] {
                    emit connectionFailed(QString("no PEM certificate in %1").arg(file));
                });
                return;
            }
            ssl.addCaCertificates(certificates);
        }
        if (options.ignoreSslErrors) ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
        socket->setSslConfiguration(ssl);
        if (options.ignoreSslErrors) {
            connect(socket, &QWebSocket::sslErrors, socket,
                    [socket](const QList<QSslError>&) { socket->ignoreSslErrors(); });
        }
    }
    connect(socket, &QWebSocket::connected, this, &AgentClient::connected);
    connect(socket, &QWebSocket::textMessageReceived, this, &AgentClient::onTextMessage);
    connect(socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), this, &AgentClient::onSocketError);
    connect(socket, &QWebSocket::disconnected, this, &AgentClient::onDisconnected);

    QNetworkRequest request(url);
    if (!options.token.isEmpty()) request.setRawHeader("Authorization", "Bearer " + options.token.toUtf8());
    m_helloTimer.start(options.connectTimeoutMs);
    socket->open(request);
}

void AgentClient::disconnectFromAgent() {
    m_helloTimer.stop();
    if (!m_socket) return;
    QWebSocket* socket = m_socket;
    m_socket.clear();
    socket->disconnect(this);
    socket->close();
    socket->deleteLater();
    const bool wasReady = m_ready;
    m_ready = false;
    failPending("disconnected by the controller");
    if (wasReady) emit disconnected();
}

qint64 AgentClient::startRun(const StartRun& run, ReplyHandler onReply) {
    return sendRequest(run.toJson(), std::move(onReply));
}

qint64 AgentClient::setSettings(const QString& runId, const QJsonObject& settings, ReplyHandler onReply) {
    return sendRequest(SetSettings{runId, settings}.toJson(), std::move(onReply));
}

qint64 AgentClient::stopRun(const QString& runId, ReplyHandler onReply) {
    return sendRequest(StopRun{runId}.toJson(), std::move(onReply));
}

qint64 AgentClient::requestStatus(ReplyHandler onReply) {
    return sendRequest(QJsonObject{{"type", type::kStatus}}, std::move(onReply));
}

qint64 AgentClient::sendRequest(QJsonObject message, ReplyHandler onReply) {
    if (!m_socket || m_socket->state() != QAbstractSocket::ConnectedState) {
        if (onReply) onReply(disconnectedError("not connected to an agent"));
        return -1;
    }
    const qint64 id = m_nextId++;
    message.insert("id", id);
    if (onReply) m_pending.insert(id, std::move(onReply));
    m_socket->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
    return id;
}

void AgentClient::sendRawText(const QString& text) {
    if (m_socket) m_socket->sendTextMessage(text);
}

void AgentClient::completeRequest(qint64 requestId, const QJsonObject& reply) {
    if (requestId <= 0) return;
    auto it = m_pending.find(requestId);
    if (it == m_pending.end()) return;
    ReplyHandler handler = std::move(it.value());
    m_pending.erase(it);
    handler(reply);
}

void AgentClient::onTextMessage(const QString& text) {
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8());
    if (!document.isObject()) return;  // the agent only sends objects; ignore garbage rather than crash
    const QJsonObject message = document.object();
    const QString messageType = message.value("type").toString();
    const qint64 requestId = message.contains("id") ? toInt64(message.value("id")) : -1;
    const QString runId = message.value("run_id").toString();
    emit messageReceived(message);

    if (messageType == type::kHello) {
        m_helloTimer.stop();
        m_hello = Hello::fromJson(message);
        const int major = m_hello.protocolVersion.section('.', 0, 0).toInt();
        if (major != kProtocolMajor) {
            m_failedReported = true;
            emit connectionFailed(
                QString("agent speaks protocol %1, this controller %2").arg(m_hello.protocolVersion, kProtocolVersion));
            disconnectFromAgent();
            return;
        }
        m_ready = true;
        emit helloReceived(m_hello);
    } else if (messageType == type::kRunAccepted) {
        emit runAccepted(runId, requestId);
    } else if (messageType == type::kRunReady) {
        emit runReady(RunReady::fromJson(message));
    } else if (messageType == type::kRunState) {
        emit runStateChanged(runId, message.value("state").toString());
    } else if (messageType == type::kSamples) {
        emit samplesReceived(Samples::fromJson(message));
    } else if (messageType == type::kSettingsApplied) {
        emit settingsApplied(SettingsApplied::fromJson(message));
    } else if (messageType == type::kRunStopping) {
        emit runStopping(runId);
    } else if (messageType == type::kRunResult) {
        emit resultReceived(RunResult::fromJson(message));
    } else if (messageType == type::kError) {
        emit errorReceived(ProtocolError::fromJson(message), requestId, runId);
    }
    completeRequest(requestId, message);
}

void AgentClient::onSocketError(QAbstractSocket::SocketError) {
    if (!m_socket || m_ready || m_failedReported) return;
    m_failedReported = true;
    m_helloTimer.stop();
    QString message = m_socket->errorString();
    // The agent answers a bad or missing token with HTTP 401 at the upgrade;
    // Qt reports it only in the error text.
    if (message.contains("401"))
        message = "the agent refused the token (HTTP 401 Unauthorized)";
    else if (message.contains("429"))
        message = "too many failed logins from this address; retry later (HTTP 429)";
    emit connectionFailed(QString("%1: %2").arg(m_url.toString(), message));
}

void AgentClient::onDisconnected() {
    m_helloTimer.stop();
    const bool wasReady = m_ready;
    m_ready = false;
    if (!wasReady && !m_failedReported) {
        m_failedReported = true;
        const QString reason = m_socket ? m_socket->closeReason() : QString();
        emit connectionFailed(QString("%1: connection closed before hello%2")
                                  .arg(m_url.toString(), reason.isEmpty() ? QString() : " (" + reason + ")"));
    }
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->deleteLater();
        m_socket.clear();
    }
    failPending("the connection to the agent closed");
    if (wasReady) emit disconnected();
}

void AgentClient::failPending(const QString& message) {
    auto pending = std::move(m_pending);
    m_pending.clear();
    for (auto it = pending.begin(); it != pending.end(); ++it) it.value()(disconnectedError(message));
}

}  // namespace smclab
