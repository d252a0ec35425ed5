// The controller side of the control protocol, shared by the orchestrator,
// the smclab CLI and the GUI: a QObject around a QWebSocket that connects
// with a bearer token (optionally over TLS), waits for the agent's hello,
// sends requests with ids and routes every reply and event to a signal.
// All I/O is asynchronous on the caller's event loop; nothing blocks.
#pragma once

#include <functional>

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>

#include "protocol/hello.h"
#include "protocol/messages.h"
#include "protocol/protocol_error.h"

namespace smclab {

struct AgentConnectOptions {
    QString token;                  // sent as "Authorization: Bearer TOKEN" in the upgrade request
    bool tls = false;               // wss:// instead of ws://
    QString caCertFile;             // PEM file of a CA (or self-signed cert) to trust, in addition to the system's
    bool ignoreSslErrors = false;   // accept any certificate: for lab setups with throwaway certs only
    int connectTimeoutMs = 10'000;  // until hello arrives
};

class AgentClient : public QObject {
    Q_OBJECT
public:
    // Called once with the reply that carries the request's id (run_accepted,
    // settings_applied, run_stopping, status_reply), or with an "error"
    // message (code "disconnected" if the connection ended first).
    using ReplyHandler = std::function<void(const QJsonObject& reply)>;

    explicit AgentClient(QObject* parent = nullptr);
    ~AgentClient() override;

    void connectToAgent(const QString& host, quint16 port, const AgentConnectOptions& options);
    void connectToAgent(const QUrl& url, const AgentConnectOptions& options);
    void disconnectFromAgent();

    bool isReady() const { return m_ready; }  // hello received
    const protocol::Hello& hello() const { return m_hello; }
    QUrl url() const { return m_url; }

    // Each returns the request id (> 0), or -1 when not connected (then
    // onReply gets a "disconnected" error at once).
    qint64 startRun(const protocol::StartRun& run, ReplyHandler onReply = {});
    qint64 setSettings(const QString& runId, const QJsonObject& settings, ReplyHandler onReply = {});
    qint64 stopRun(const QString& runId, ReplyHandler onReply = {});
    qint64 requestStatus(ReplyHandler onReply = {});
    // Any message; "id" is added.
    qint64 sendRequest(QJsonObject message, ReplyHandler onReply = {});
    // Raw text as is (diagnostics and tests of the agent's validation).
    void sendRawText(const QString& text);

signals:
    void connected();  // upgrade accepted; hello not yet received
    void helloReceived(const smclab::protocol::Hello& hello);
    void runAccepted(const QString& runId, qint64 requestId);
    void runReady(const smclab::protocol::RunReady& ready);
    void runStateChanged(const QString& runId, const QString& state);
    void samplesReceived(const smclab::protocol::Samples& samples);
    void settingsApplied(const smclab::protocol::SettingsApplied& applied);
    void runStopping(const QString& runId);
    void resultReceived(const smclab::protocol::RunResult& result);
    // An "error" message from the agent. requestId is -1 for errors not tied to a request.
    void errorReceived(const smclab::protocol::ProtocolError& error, qint64 requestId, const QString& runId);
    // Could not connect: refused, TLS failure, wrong token (HTTP 401), or no hello in time.
    void connectionFailed(const QString& message);
    void disconnected();
    // Every message from the agent, before the specific signal.
    void messageReceived(const QJsonObject& message);

private:
    void onTextMessage(const QString& text);
    void onSocketError(QAbstractSocket::SocketError error);
    void onDisconnected();
    void failPending(const QString& message);
    void completeRequest(qint64 requestId, const QJsonObject& reply);

    QPointer<QWebSocket> m_socket;
    QTimer m_helloTimer;
    QUrl m_url;
    protocol::Hello m_hello;
    bool m_ready = false;
    bool m_failedReported = false;
    qint64 m_nextId = 1;
    QHash<qint64, ReplyHandler> m_pending;
};

}  // namespace smclab
