// The local lab, the one launcher of the CLI demo, the GUI's "Local lab" and
// the tests: the wire for a link model (a shaped veth between network
// namespaces where the host allows it, loopback otherwise, with the reason)
// and the agents on it (local_agents.h). Stops everything when destroyed.
#pragma once

#include <memory>

#include <smcr/result.h>

#include <QString>

#include "local_agents.h"
#include "wire.h"

namespace smclab::locallab {

class LocalLab {
public:
    LocalLab() = default;
    ~LocalLab();
    LocalLab(const LocalLab&) = delete;
    LocalLab& operator=(const LocalLab&) = delete;

    // The wire for the sim link model `linkModel` ("ideal" runs unshaped on
    // loopback), then `agentCount` agents (server first). An unknown model or
    // an agent that does not start is an error; a wire the host cannot make
    // is not (TCP then runs over loopback and record().note says why).
    smcr::Status start(const QString& linkModel, int agentCount = 2,
                       const QString& agentProgram = LocalAgents::findAgentProgram());
    void stop();
    // Off: the agents are not pinned to CPUs (LocalAgents::setPinned). Before start().
    void setPinned(bool pinned) { m_agents.setPinned(pinned); }

    const LocalAgents& agents() const { return m_agents; }
    const WireRecord& wire() const { return m_record; }
    bool shaped() const { return m_wire != nullptr; }

private:
    std::unique_ptr<NamespaceWire> m_wire;
    WireRecord m_record;
    LocalAgents m_agents;
};

}  // namespace smclab::locallab
