// The agent's listening socket. It reads each WebSocket upgrade request
// itself, before Qt's QWebSocketServer sees it, so a missing or wrong bearer
// token is refused with a real "HTTP/1.1 401 Unauthorized" (QWebSocketServer
// has no hook to refuse an upgrade), and an address with repeated failures
// gets "429 Too Many Requests". Accepted sockets are handed, with their
// request still unread, to QWebSocketServer::handleConnection. With TLS the
// listening socket is a QSslServer, so the request is read after the TLS
// handshake.
#pragma once

#include <memory>
#include <optional>

#include <QByteArray>
#include <QObject>
#include <QSslConfiguration>
#include <QTcpServer>
#include <QWebSocketServer>

#include "login_limiter.h"
#include "protocol/endpoint.h"

namespace smclab::daemon {

class UpgradeGate : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxRequestBytes = 8192;
    static constexpr int kRequestTimeoutMs = 5000;

    UpgradeGate(QByteArray token, QWebSocketServer* webSockets, QObject* parent = nullptr);
    ~UpgradeGate() override;

    bool listen(const protocol::Endpoint& endpoint, const std::optional<QSslConfiguration>& tls, QString* why);
    protocol::Endpoint localEndpoint() const;
    void close();

private:
    void onPendingConnection();
    void inspect(QTcpSocket* socket);
    void refuse(QTcpSocket* socket, const QByteArray& status, const QByteArray& extraHeaders, const QByteArray& body);

    QByteArray m_token;
    QWebSocketServer* m_webSockets;
    std::unique_ptr<QTcpServer> m_server;
    LoginLimiter m_limiter;
};

}  // namespace smclab::daemon
