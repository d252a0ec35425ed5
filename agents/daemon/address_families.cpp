#include "address_families.h"

namespace smclab::daemon {

std::optional<QStringList> requiredAddressFamilies(const QString& name) {
    // tcp: kernel TCP over IPv4 and IPv6.
    if (name == QLatin1String("tcp")) return QStringList{"AF_INET", "AF_INET6"};
    // smcr: the CLC handshake (and any fallback) runs over kernel TCP.
    if (name == QLatin1String("smcr")) return QStringList{"AF_INET", "AF_INET6"};
    // ksmc: socket(AF_SMC, ...) (family 43); newer kernels also take
    // socket(AF_INET, SOCK_STREAM, IPPROTO_SMC), tried second.
    if (name == QLatin1String("ksmc")) return QStringList{"AF_SMC", "AF_INET", "AF_INET6"};
    // sim: shared memory and FIFOs in /dev/shm, no sockets of its own.
    if (name == QLatin1String("sim")) return QStringList{};
    // verbs: rdma-core finds devices over rdma netlink (RDMA_NL_*); the
    // data path is /dev/infiniband/uverbs*, not sockets.
    if (name == QLatin1String("verbs")) return QStringList{"AF_NETLINK"};
    return std::nullopt;
}

QStringList agentBaseAddressFamilies() {
    return {"AF_UNIX", "AF_INET", "AF_INET6"};
}

}  // namespace smclab::daemon
