#include "agent_link.h"

#include <QHostInfo>
#include <QTimer>

#include "campaign_json.h"

namespace smclab::orchestrator {

AgentLink::AgentLink(QString address, AgentConnectOptions options, QObject* parent)
    : QObject(parent), m_address(std::move(address)), m_options(std::move(options)), m_client(new AgentClient(this)) {
    splitHostPort(m_address, &m_host, &m_port);
    connect(m_client, &AgentClient::helloReceived, this, [this] {
        m_connecting = false;
        emit ready();
    });
    connect(m_client, &AgentClient::connectionFailed, this, [this](const QString& message) {
        m_connecting = false;
        emit failed(QStringLiteral("cannot reach agent %1: %2").arg(label(), message));
    });
    connect(m_client, &AgentClient::disconnected, this, [this] {
        if (m_closingOnPurpose) return;
        emit lost();
    });
}

void AgentLink::connectNow() {
    if (m_port == 0) {
        QTimer::singleShot(0, this, [this] { emit failed(QStringLiteral("'%1' is not HOST:PORT").arg(m_address)); });
        return;
    }
    if (m_hostAddress.isNull()) {
        // Names are resolved once, here: the agents only accept IP literals
        // as peers, and the data path uses the same address.
        QHostAddress literal;
        if (literal.setAddress(m_host)) {
            m_hostAddress = literal;
        } else {
            const QHostInfo info = QHostInfo::fromName(m_host);
            for (const QHostAddress& candidate : info.addresses()) {
                if (m_hostAddress.isNull() || (candidate.protocol() == QAbstractSocket::IPv4Protocol &&
                                               m_hostAddress.protocol() != QAbstractSocket::IPv4Protocol))
                    m_hostAddress = candidate;
            }
            if (m_hostAddress.isNull()) {
                QTimer::singleShot(0, this, [this, why = info.errorString()] {
                    emit failed(QStringLiteral("cannot resolve agent host '%1': %2").arg(m_host, why));
                });
                return;
            }
        }
    }
    m_connecting = true;
    m_closingOnPurpose = false;
    m_client->connectToAgent(m_hostAddress.toString(), m_port, m_options);
}

void AgentLink::disconnectNow() {
    m_closingOnPurpose = true;
    m_connecting = false;
    m_client->disconnectFromAgent();
}

}  // namespace smclab::orchestrator
