#include "agent_pair.h"

namespace smclab::test {

bool AgentPair::start() {
    if (!m_server.start(m_token)) {
        m_error = QStringLiteral("server agent: ") + m_server.error();
        return false;
    }
    if (!m_client.start(m_token)) {
        m_error = QStringLiteral("client agent: ") + m_client.error();
        return false;
    }
    return true;
}

void AgentPair::stop() {
    m_server.kill();
    m_client.kill();
}

}  // namespace smclab::test
