// `smclab-agent --metrics ADDR:PORT`: a plain HTTP/1.1 endpoint for
// Prometheus scrapers, GET /metrics only, on its own listening socket (never
// the controllers' one, so a scraper needs no token and a controller's port
// serves no metrics). Scrapers are checked against the same peer policy as
// client runs (--allow-peer, loopback unless --no-loopback-peers): the page
// names runs and hosts' settings, so it is not for everyone on the network.
#pragma once

#include <functional>

#include <QByteArray>
#include <QObject>
#include <QTcpServer>

#include "peer_policy.h"
#include "protocol/endpoint.h"

namespace smclab::daemon {

class MetricsServer : public QObject {
    Q_OBJECT
public:
    using PageSource = std::function<QByteArray()>;

    MetricsServer(const PeerPolicy& peers, PageSource page, QObject* parent = nullptr);

    // False with *why when the address cannot be bound.
    bool listen(const protocol::Endpoint& endpoint, QString* why);
    protocol::Endpoint endpoint() const;
    void close() { m_server.close(); }

private:
    void onNewConnection();
    void serve(class QTcpSocket* socket);

    const PeerPolicy& m_peers;
    PageSource m_page;
    int m_open = 0;  // before m_server: its sockets still count down while it goes
    QTcpServer m_server;
};

}  // namespace smclab::daemon
