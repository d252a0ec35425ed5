// Connecting and listening for the kernel transports (tcp, ksmc).
#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel_socket.h"

namespace smclab::transports {

namespace {

std::string formatAddress(const sockaddr* sa) {
    char host[INET6_ADDRSTRLEN] = {};
    uint16_t port = 0;
    if (sa->sa_family == AF_INET) {
        sockaddr_in in{};
        std::memcpy(&in, sa, sizeof in);
        ::inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
        port = ntohs(in.sin_port);
        return std::string(host) + ":" + std::to_string(port);
    }
    if (sa->sa_family == AF_INET6) {
        sockaddr_in6 in6{};
        std::memcpy(&in6, sa, sizeof in6);
        ::inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
        port = ntohs(in6.sin6_port);
        return "[" + std::string(host) + "]:" + std::to_string(port);
    }
    return "?";
}

struct AddrInfoDeleter {
    void operator()(addrinfo* ai) const { ::freeaddrinfo(ai); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoDeleter>;

Result<AddrInfoPtr> resolve(const std::string& host, uint16_t port, bool passive) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    addrinfo* list = nullptr;
    const std::string service = std::to_string(port);
    const char* node = host.empty() ? nullptr : host.c_str();
    const int rc = ::getaddrinfo(node, service.c_str(), &hints, &list);
    if (rc != 0) {
        return smcr::fail(smcr::Errc::notFound, "cannot resolve '" + host + "': " + ::gai_strerror(rc));
    }
    return AddrInfoPtr(list);
}

int makeSocket(const SocketKind& kind, int resolvedFamily) {
    const bool v6 = resolvedFamily == AF_INET6;
    return ::socket(v6 ? kind.familyV6 : kind.familyV4, SOCK_STREAM | SOCK_CLOEXEC,
                    v6 ? kind.protocolV6 : kind.protocolV4);
}

Status applyOptions(int fd, const ConnectOptions& options) {
    if (options.noDelay) {
        const int on = 1;
        if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) < 0) {
            return smcr::fail(smcr::makeSystemError("setsockopt(TCP_NODELAY)", errno));
        }
    }
    if (options.sendBufferBytes > 0 &&
        ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &options.sendBufferBytes, sizeof(int)) < 0) {
        return smcr::fail(smcr::makeSystemError("setsockopt(SO_SNDBUF)", errno));
    }
    if (options.receiveBufferBytes > 0 &&
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &options.receiveBufferBytes, sizeof(int)) < 0) {
        return smcr::fail(smcr::makeSystemError("setsockopt(SO_RCVBUF)", errno));
    }
    return {};
}

// Non-blocking connect bounded by timeoutMs; leaves the socket blocking.
Status connectWithTimeout(int fd, const sockaddr* addr, socklen_t len, int timeoutMs) {
    const int flags = ::fcntl(fd, F_GETFL);
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc = ::connect(fd, addr, len);
    if (rc < 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        do {
            rc = ::poll(&p, 1, timeoutMs > 0 ? timeoutMs : -1);
        } while (rc < 0 && errno == EINTR);
        if (rc == 0) return smcr::fail(smcr::Errc::timedOut, "connect timed out");
        int err = 0;
        socklen_t errLen = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errLen);
        errno = err;
        rc = err == 0 ? 0 : -1;
    }
    ::fcntl(fd, F_SETFL, flags);
    if (rc < 0) {
        if (errno == ECONNREFUSED) return smcr::fail(smcr::Errc::connectionRefused, "connection refused");
        return smcr::fail(smcr::makeSystemError("connect", errno));
    }
    return {};
}

}  // namespace

Result<std::unique_ptr<Stream>> kernelConnect(const SocketKind& kind, const std::string& host, uint16_t port,
                                              const ConnectOptions& options, KernelTransportStats& stats) {
    auto resolved = resolve(host, port, false);
    if (!resolved) return smcr::fail(resolved.error());
    smcr::Error last = smcr::makeError(smcr::Errc::notFound, "no address for '" + host + "'");
    for (addrinfo* ai = resolved->get(); ai != nullptr; ai = ai->ai_next) {
        const int fd = makeSocket(kind, ai->ai_family);
        if (fd < 0) {
            last = smcr::makeSystemError("socket", errno);
            continue;
        }
        Status status = applyOptions(fd, options);
        if (status) status = connectWithTimeout(fd, ai->ai_addr, ai->ai_addrlen, options.timeoutMs);
        if (!status) {
            last = status.error();
            last.message = "connect to " + formatAddress(ai->ai_addr) + ": " + last.message;
            ::close(fd);
            continue;
        }
        stats.connects.fetch_add(1, std::memory_order_relaxed);
        return std::unique_ptr<Stream>(new KernelStream(fd, formatAddress(ai->ai_addr)));
    }
    stats.connectFailures.fetch_add(1, std::memory_order_relaxed);
    return smcr::fail(last);
}

Result<std::unique_ptr<Listener>> kernelListen(const SocketKind& kind, const std::string& addr, uint16_t port,
                                               int backlog, std::shared_ptr<KernelTransportStats> stats) {
    const std::string host = (addr == "*") ? std::string() : addr;
    auto resolved = resolve(host.empty() ? "0.0.0.0" : host, port, true);
    if (!resolved) return smcr::fail(resolved.error());
    addrinfo* ai = resolved->get();
    const int fd = makeSocket(kind, ai->ai_family);
    if (fd < 0) return smcr::fail(smcr::makeSystemError("socket", errno));
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        const int err = errno;
        ::close(fd);
        return smcr::fail(smcr::makeSystemError("bind " + formatAddress(ai->ai_addr), err));
    }
    if (::listen(fd, backlog > 0 ? backlog : SOMAXCONN) < 0) {
        const int err = errno;
        ::close(fd);
        return smcr::fail(smcr::makeSystemError("listen", err));
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    uint16_t boundPort = 0;
    if (bound.ss_family == AF_INET6) {
        sockaddr_in6 in6{};
        std::memcpy(&in6, &bound, sizeof in6);
        boundPort = ntohs(in6.sin6_port);
    } else {
        sockaddr_in in{};
        std::memcpy(&in, &bound, sizeof in);
        boundPort = ntohs(in.sin_port);
    }
    return std::unique_ptr<Listener>(new KernelListener(fd, boundPort, std::move(stats)));
}

KernelListener::KernelListener(int fd, uint16_t port, std::shared_ptr<KernelTransportStats> stats)
    : m_fd(fd), m_port(port), m_stats(std::move(stats)) {}

KernelListener::~KernelListener() {
    close();
}

Status KernelListener::setNonBlocking(bool enabled) {
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags < 0) return smcr::fail(smcr::makeSystemError("fcntl(F_GETFL)", errno));
    if (::fcntl(m_fd, F_SETFL, enabled ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK)) < 0) {
        return smcr::fail(smcr::makeSystemError("fcntl(F_SETFL)", errno));
    }
    m_nonBlocking = enabled;
    return {};
}

Result<std::unique_ptr<Stream>> KernelListener::accept() {
    for (;;) {
        sockaddr_storage peer{};
        socklen_t len = sizeof peer;
        const int fd = ::accept4(m_fd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
        if (fd >= 0) {
            if (m_stats) m_stats->accepts.fetch_add(1, std::memory_order_relaxed);
            return std::unique_ptr<Stream>(new KernelStream(fd, formatAddress(reinterpret_cast<sockaddr*>(&peer))));
        }
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN) return smcr::fail(smcr::Errc::wouldBlock, "accept");
        if (errno == EBADF || errno == EINVAL) return smcr::fail(smcr::Errc::closed, "listener is closed");
        return smcr::fail(smcr::makeSystemError("accept", errno));
    }
}

void KernelListener::close() {
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

}  // namespace smclab::transports
