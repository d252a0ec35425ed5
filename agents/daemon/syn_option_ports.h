// The SMC TCP option for the agent's libsmcr runs: a kernel SMC-R peer
// falls back at once (PEERNOSMC) when a SYN or SYN-ACK lacks the option,
// and user space cannot write it, so an agent on a host with an RDMA
// device loads the BPF program of smc_synopt (agents/syn_option) once at
// start, before any engine asks for the peers' record, and each run of
// libsmcr over a real fabric adds its port while it runs. Runs over the
// sim fabric have no kernel peer and keep the first-bytes detection.
// Without the privileges for BPF the agent says so once (its log, and
// hello.capabilities.syn_option, which the orchestrator stores with every
// run) and its runs detect SMC peers as before.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include <QJsonObject>
#include <QString>

#include "protocol/hello.h"

namespace smclab::synopt {
class SynOptionProgram;
}

namespace smclab::daemon {

class SynOptionPorts {
public:
    // Loads the program when the host has an RDMA device; logs the outcome once.
    explicit SynOptionPorts(const protocol::Capabilities& capabilities);
    ~SynOptionPorts();
    SynOptionPorts(const SynOptionPorts&) = delete;
    SynOptionPorts& operator=(const SynOptionPorts&) = delete;

    // What hello.capabilities.syn_option says (name empty: no RDMA device).
    const protocol::Availability& state() const { return m_state; }
    bool on() const { return m_program != nullptr; }

    // Whether a run over `transport` with these options takes the option:
    // libsmcr (smcr) over any fabric but sim.
    static bool wants(const QString& transport, const QJsonObject& transportOptions);

    // A free TCP port on `address` for a server that asked for any: the
    // port must be chosen before the listener exists.
    static uint16_t freePort(const QString& address);

    // The option on `port` until the returned lease is dropped; null when off.
    std::shared_ptr<void> lease(uint16_t port);

private:
    void release(uint16_t port);

    std::unique_ptr<synopt::SynOptionProgram> m_program;
    protocol::Availability m_state;
    std::map<uint16_t, int> m_leases;  // port -> runs using it
};

}  // namespace smclab::daemon
