// `tcp`: kernel TCP. Its live settings are the host's TCP sysctls that
// matter for the comparisons the lab makes (autocorking is the TCP twin of
// SMC's autocorking_size).
#include <sys/socket.h>

#include "kernel_transport.h"
#include "transport_factories.h"

namespace smclab::transports {

Availability probeTcp() {
    return {true, {}};
}

Result<std::unique_ptr<Transport>> createTcp(const TransportOptions& options) {
    if (!options.empty()) {
        return smcr::fail(smcr::Errc::invalidArgument, options.begin()->first + ": the tcp transport takes no options");
    }
    SocketKind kind{AF_INET, 0, AF_INET6, 0};
    SysctlSettings settings({
        {"tcp_autocorking", "/proc/sys/net/ipv4/tcp_autocorking", SettingScope::immediate,
         "net.ipv4.tcp_autocorking: coalesce small writes while the device queue is busy"},
        {"tcp_slow_start_after_idle", "/proc/sys/net/ipv4/tcp_slow_start_after_idle", SettingScope::immediate,
         "net.ipv4.tcp_slow_start_after_idle"},
        {"tcp_wmem", "/proc/sys/net/ipv4/tcp_wmem", SettingScope::newConnections,
         "net.ipv4.tcp_wmem: min default max send buffer bytes"},
        {"tcp_rmem", "/proc/sys/net/ipv4/tcp_rmem", SettingScope::newConnections,
         "net.ipv4.tcp_rmem: min default max receive buffer bytes"},
    });
    return std::unique_ptr<Transport>(new KernelTransport("tcp", kind, std::move(settings)));
}

}  // namespace smclab::transports
