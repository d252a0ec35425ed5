// One agent of an agent pair as the orchestrator sees it: its "HOST:PORT",
// the resolved IP address (the protocol names peers by IP literal only), an
// AgentClient, and (re)connecting with a deadline.
#pragma once

#include <optional>

#include <QHostAddress>
#include <QObject>
#include <QString>

#include "protocol/agent_client.h"

namespace smclab::orchestrator {

class AgentLink : public QObject {
    Q_OBJECT
public:
    AgentLink(QString address, AgentConnectOptions options, QObject* parent = nullptr);

    // Asynchronous; emits ready() once hello arrived, or failed(why).
    void connectNow();
    void disconnectNow();
    bool isReady() const { return m_client->isReady(); }
    bool isConnecting() const { return m_connecting; }

    AgentClient* client() const { return m_client; }
    QString address() const { return m_address; }  // as given: "lab1:7000"
    // For messages: "vm2 (127.0.0.1:35199)" when the lab names the agent, else the address.
    QString label() const { return m_name.isEmpty() ? m_address : QStringLiteral("%1 (%2)").arg(m_name, m_address); }
    void setName(const QString& name) { m_name = name; }
    QHostAddress hostAddress() const { return m_hostAddress; }
    const protocol::Hello& hello() const { return m_client->hello(); }

    // Set by the orchestrator once the agent is in the results store.
    std::optional<qint64> storeAgentId;

signals:
    void ready();
    void failed(const QString& why);
    void lost();  // was ready, connection gone (agent died or network)

private:
    QString m_name;  // the lab host's name, "" when the agent was given by address
    QString m_address;
    QString m_host;
    quint16 m_port = 0;
    QHostAddress m_hostAddress;
    AgentConnectOptions m_options;
    AgentClient* m_client;
    bool m_connecting = false;
    bool m_closingOnPurpose = false;
};

}  // namespace smclab::orchestrator
