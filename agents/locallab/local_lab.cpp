#include "local_lab.h"

namespace smclab::locallab {

LocalLab::~LocalLab() {
    stop();
}

smcr::Status LocalLab::start(const QString& linkModel, int agentCount, const QString& agentProgram) {
    auto model = locallab::linkModel(linkModel);
    if (!model) return smcr::fail(model.error());
    const bool unshaped = model->bandwidthGbps <= 0 && model->wireLatencyNs == 0;
    if (unshaped) {
        m_record = loopbackRecord(*model, QString());
    } else {
        // Both veth ends' receive processing on the server agent's CPU.
        VethOptions options;
        options.receiveCpu = m_agents.agentCpu(0);
        auto wire = NamespaceWire::create(*model, options);
        if (wire) {
            m_wire = std::move(wire).value();
            m_record = m_wire->record();
        } else {
            m_record = loopbackRecord(*model, QString::fromStdString(wire.error().message));
        }
    }
    if (smcr::Status s = m_agents.start(agentCount, agentProgram, m_wire.get()); !s) {
        stop();
        return s;
    }
    return {};
}

void LocalLab::stop() {
    m_agents.stopAll();  // before the namespace goes: the server agents live in it
    m_wire.reset();
}

}  // namespace smclab::locallab
