#include "syn_option_ports.h"

#include <cstdlib>

#include <QHostAddress>
#include <QTcpServer>

#include "syn_option_program.h"

namespace smclab::daemon {

SynOptionPorts::SynOptionPorts(const protocol::Capabilities& capabilities) {
    // No RDMA device, no kernel SMC-R peer to speak to: nothing to load.
    if (capabilities.rdmaDevices.isEmpty()) return;
    m_state.name = QStringLiteral("syn_option");
    std::string why;
    m_program = synopt::SynOptionProgram::load({}, &why);
    if (!m_program) {
        m_state.reason = QString::fromStdString(why);
        qWarning(
            "the SMC TCP option is off (%s): libsmcr runs keep the first-bytes detection, and kernel SMC-R "
            "peers fall back (PEERNOSMC)",
            why.c_str());
        return;
    }
    m_state.available = true;
    if (!m_program->recordWarning().empty()) qWarning("SMC TCP option: %s", m_program->recordWarning().c_str());
    // Before any engine exists: libsmcr opens the record once, at its first question.
    if (!m_program->recordPath().empty()) ::setenv("SMCR_SYN_OPTION_MAP", m_program->recordPath().c_str(), 1);
    qInfo("the SMC TCP option goes on the SYNs of libsmcr runs over RDMA devices (peers' record %s)",
          m_program->recordPath().empty() ? "not pinned" : m_program->recordPath().c_str());
}

SynOptionPorts::~SynOptionPorts() = default;

bool SynOptionPorts::wants(const QString& transport, const QJsonObject& transportOptions) {
    if (transport != QLatin1String("smcr")) return false;
    const QString fabric = transportOptions.value(QLatin1String("fabric")).toString();
    return !fabric.isEmpty() && fabric != QLatin1String("sim");
}

uint16_t SynOptionPorts::freePort(const QString& address) {
    QTcpServer probe;
    const QHostAddress host(address);
    if (!probe.listen(host.isNull() ? QHostAddress(QHostAddress::AnyIPv4) : host, 0)) return 0;
    return probe.serverPort();
}

std::shared_ptr<void> SynOptionPorts::lease(uint16_t port) {
    if (!m_program || port == 0) return nullptr;
    if (m_leases[port]++ == 0) {
        std::string why;
        if (!m_program->addPort(port, &why)) {
            qWarning("SMC TCP option: %s", why.c_str());
            m_leases.erase(port);
            return nullptr;
        }
    }
    return {this, [this, port](SynOptionPorts*) { release(port); }};
}

void SynOptionPorts::release(uint16_t port) {
    auto it = m_leases.find(port);
    if (it == m_leases.end() || --it->second > 0) return;
    m_leases.erase(it);
    m_program->removePort(port);
}

}  // namespace smclab::daemon
