// Two smclab-agent processes on loopback sharing one token file: the server
// and the client side of a campaign, as the orchestrator tests run one.
#pragma once

#include <QByteArray>
#include <QString>

#include "agent_process.h"

namespace smclab::test {

class AgentPair {
public:
    explicit AgentPair(const QByteArray& token) : m_token(token) {}

    // Starts both (ephemeral ports); false with error() naming the one that failed.
    bool start();
    // SIGKILLs both (as their destructors would).
    void stop();
    QString error() const { return m_error; }

    const TokenFile& token() const { return m_token; }
    AgentProcess& server() { return m_server; }
    AgentProcess& client() { return m_client; }
    // "server,client" as --agents takes it.
    QString addresses() const { return m_server.address() + QLatin1Char(',') + m_client.address(); }

private:
    TokenFile m_token;
    AgentProcess m_server;
    AgentProcess m_client;
    QString m_error;
};

}  // namespace smclab::test
