#include "kernel_transport.h"

#include <csignal>

namespace smclab::transports {

KernelTransport::KernelTransport(std::string name, SocketKind kind, SysctlSettings settings,
                                 std::function<Counters()> moreCounters)
    : m_name(std::move(name)),
      m_kind(kind),
      m_settings(std::move(settings)),
      m_stats(std::make_shared<KernelTransportStats>()),
      m_moreCounters(std::move(moreCounters)) {
    // sendfile() to a socket the peer has closed raises SIGPIPE (there is no
    // MSG_NOSIGNAL for it); a benchmark process must see EPIPE instead.
    std::signal(SIGPIPE, SIG_IGN);
}

Result<std::unique_ptr<Stream>> KernelTransport::connect(const std::string& host, uint16_t port,
                                                         const ConnectOptions& options) {
    return kernelConnect(m_kind, host, port, options, *m_stats);
}

Result<std::unique_ptr<Listener>> KernelTransport::listen(const std::string& addr, uint16_t port, int backlog) {
    return kernelListen(m_kind, addr, port, backlog, m_stats);
}

Counters KernelTransport::counters() const {
    Counters out{{m_name + ".connects", m_stats->connects.load(std::memory_order_relaxed)},
                 {m_name + ".connect_failures", m_stats->connectFailures.load(std::memory_order_relaxed)},
                 {m_name + ".accepts", m_stats->accepts.load(std::memory_order_relaxed)}};
    if (m_moreCounters) {
        Counters more = m_moreCounters();
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

}  // namespace smclab::transports
