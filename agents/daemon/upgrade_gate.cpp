#include "upgrade_gate.h"

#include <QSslServer>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

#include "token_auth.h"

namespace smclab::daemon {

namespace {

// The value of header `name` (case-insensitive) in a raw HTTP request head.
QByteArray headerValue(const QByteArray& head, const QByteArray& name) {
    const QList<QByteArray> lines = head.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0) continue;
        if (line.left(colon).trimmed().toLower() == name) return line.mid(colon + 1).trimmed();
    }
    return {};
}

}  // namespace

UpgradeGate::UpgradeGate(QByteArray token, QWebSocketServer* webSockets, QObject* parent)
    : QObject(parent), m_token(std::move(token)), m_webSockets(webSockets) {}

UpgradeGate::~UpgradeGate() = default;

bool UpgradeGate::listen(const protocol::Endpoint& endpoint, const std::optional<QSslConfiguration>& tls,
                         QString* why) {
    if (tls) {
        auto server = std::make_unique<QSslServer>();
        server->setSslConfiguration(*tls);
        server->setHandshakeTimeout(kRequestTimeoutMs);
        connect(server.get(), &QSslServer::errorOccurred, this, [](QSslSocket* socket, QAbstractSocket::SocketError) {
            qWarning("TLS handshake with %s failed: %s", qPrintable(socket->peerAddress().toString()),
                     qPrintable(socket->errorString()));
        });
        m_server = std::move(server);
    } else {
        m_server = std::make_unique<QTcpServer>();
    }
    connect(m_server.get(), &QTcpServer::pendingConnectionAvailable, this, &UpgradeGate::onPendingConnection);
    if (!m_server->listen(endpoint.address, endpoint.port)) {
        *why = QString("cannot listen on %1: %2").arg(endpoint.toString(), m_server->errorString());
        return false;
    }
    return true;
}

protocol::Endpoint UpgradeGate::localEndpoint() const {
    if (!m_server) return {};
    return {m_server->serverAddress(), m_server->serverPort()};
}

void UpgradeGate::close() {
    if (m_server) m_server->close();
}

void UpgradeGate::onPendingConnection() {
    while (m_server && m_server->hasPendingConnections()) {
        QTcpSocket* socket = m_server->nextPendingConnection();
        if (socket == nullptr) continue;
        socket->setParent(this);
        // A client that never finishes its request must not hold a socket forever.
        auto* timer = new QTimer(socket);
        timer->setSingleShot(true);
        connect(timer, &QTimer::timeout, socket, [socket] {
            qWarning("%s: no complete upgrade request in %d ms; closing", qPrintable(socket->peerAddress().toString()),
                     kRequestTimeoutMs);
            socket->abort();
            socket->deleteLater();
        });
        timer->start(kRequestTimeoutMs);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { inspect(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        if (socket->bytesAvailable() > 0) inspect(socket);
    }
}

void UpgradeGate::refuse(QTcpSocket* socket, const QByteArray& status, const QByteArray& extraHeaders,
                         const QByteArray& body) {
    socket->disconnect(this);
    const QByteArray response =
        "HTTP/1.1 " + status + "\r\n" + extraHeaders +
        "Content-Type: text/plain\r\nConnection: close\r\nContent-Length: " + QByteArray::number(body.size()) +
        "\r\n\r\n" + body;
    socket->write(response);
    socket->disconnectFromHost();
}

void UpgradeGate::inspect(QTcpSocket* socket) {
    // Peek, not read: an accepted request must reach QWebSocketServer intact.
    const QByteArray head = socket->peek(kMaxRequestBytes);
    const qsizetype end = head.indexOf("\r\n\r\n");
    const QHostAddress peer = socket->peerAddress();
    if (end < 0) {
        if (head.size() >= kMaxRequestBytes) {
            refuse(socket, "431 Request Header Fields Too Large", {}, "upgrade request too large\n");
        }
        return;  // wait for the rest of the request
    }
    const QByteArray request = head.left(end);

    const qint64 waitMs = m_limiter.retryAfterMs(peer);
    if (waitMs > 0) {
        qWarning("%s: login refused, %d failures; retry in %lld ms", qPrintable(peer.toString()),
                 m_limiter.failures(peer), static_cast<long long>(waitMs));
        refuse(socket, "429 Too Many Requests", "Retry-After: " + QByteArray::number((waitMs + 999) / 1000) + "\r\n",
               "too many failed logins from this address\n");
        return;
    }
    const QByteArray offered = bearerToken(headerValue(request, "authorization"));
    if (!tokensEqual(m_token, offered)) {
        m_limiter.recordFailure(peer);
        qWarning("%s: %s bearer token; refused with 401 (%d failures)", qPrintable(peer.toString()),
                 offered.isEmpty() ? "missing" : "wrong", m_limiter.failures(peer));
        refuse(socket, "401 Unauthorized", "WWW-Authenticate: Bearer realm=\"smclab-agent\"\r\n",
               "a valid 'Authorization: Bearer TOKEN' header is required\n");
        return;
    }
    m_limiter.recordSuccess(peer);
    // Hand over: drop our slots and timer, then let QWebSocketServer read the request.
    socket->disconnect(this);
    disconnect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    for (QTimer* timer : socket->findChildren<QTimer*>(QString(), Qt::FindDirectChildrenOnly)) timer->deleteLater();
    socket->setParent(m_webSockets);
    m_webSockets->handleConnection(socket);
}

}  // namespace smclab::daemon
