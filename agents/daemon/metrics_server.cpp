#include "metrics_server.h"

#include <QTcpSocket>
#include <QTimer>

#include "prometheus_text.h"

namespace smclab::daemon {

namespace {

// A scrape is one short request; anything bigger or slower is not one.
constexpr qsizetype kMaxRequestBytes = 8 * 1024;
constexpr int kRequestTimeoutMs = 5000;
constexpr int kMaxOpenConnections = 16;

QByteArray reply(const QByteArray& status, const QByteArray& contentType, const QByteArray& body, bool head) {
    QByteArray out = "HTTP/1.1 " + status + "\r\nContent-Type: " + contentType +
                     "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n";
    if (!head) out += body;
    return out;
}

}  // namespace

MetricsServer::MetricsServer(const PeerPolicy& peers, PageSource page, QObject* parent)
    : QObject(parent), m_peers(peers), m_page(std::move(page)) {
    connect(&m_server, &QTcpServer::newConnection, this, &MetricsServer::onNewConnection);
}

bool MetricsServer::listen(const protocol::Endpoint& endpoint, QString* why) {
    if (!m_server.listen(endpoint.address, endpoint.port)) {
        *why = QStringLiteral("--metrics: cannot listen on %1: %2").arg(endpoint.toString(), m_server.errorString());
        return false;
    }
    return true;
}

protocol::Endpoint MetricsServer::endpoint() const {
    return {m_server.serverAddress(), m_server.serverPort()};
}

void MetricsServer::onNewConnection() {
    while (QTcpSocket* socket = m_server.nextPendingConnection()) {
        const QHostAddress peer = socket->peerAddress();
        if (!m_peers.isAllowed(peer) || m_open >= kMaxOpenConnections) {
            qInfo("metrics: refused scrape from %s (%s)", qPrintable(peer.toString()),
                  m_open >= kMaxOpenConnections ? "too many open connections" : "not an allowed peer");
            socket->abort();
            socket->deleteLater();
            continue;
        }
        serve(socket);
    }
}

void MetricsServer::serve(QTcpSocket* socket) {
    ++m_open;
    auto* timeout = new QTimer(socket);
    timeout->setSingleShot(true);
    connect(timeout, &QTimer::timeout, socket, &QTcpSocket::abort);
    timeout->start(kRequestTimeoutMs);
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QObject::destroyed, this, [this] { --m_open; });
    connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
        if (socket->property("answered").toBool()) {
            socket->readAll();
            return;
        }
        QByteArray request = socket->property("request").toByteArray() + socket->readAll();
        const qsizetype end = request.indexOf("\r\n\r\n");
        if (end < 0) {
            if (request.size() > kMaxRequestBytes)
                socket->abort();
            else
                socket->setProperty("request", request);
            return;
        }
        const QList<QByteArray> line = request.left(request.indexOf("\r\n")).split(' ');
        const QByteArray method = line.value(0);
        const QByteArray target = line.value(1);
        const bool head = method == "HEAD";
        QByteArray answer;
        if (method != "GET" && !head) {
            answer = reply("405 Method Not Allowed", "text/plain", "GET /metrics\n", false);
        } else if (target != "/metrics" && !target.startsWith("/metrics?")) {
            answer = reply("404 Not Found", "text/plain", "the metrics are at /metrics\n", head);
        } else {
            answer = reply("200 OK", kExpositionContentType, m_page(), head);
        }
        socket->setProperty("answered", true);
        socket->write(answer);
        socket->disconnectFromHost();
    });
}

}  // namespace smclab::daemon
