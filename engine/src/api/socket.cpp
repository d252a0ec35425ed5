#include <cerrno>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <smcr/socket.h>

#include "core/shell/link_group.h"
#include "core/shell/socket_impl.h"

namespace smcr {

namespace {

Status invalidSocket() {
    return fail(Errc::invalidState, "socket is not connected");
}

// Blocking TCP connect with a limit.
Result<int> tcpConnect(const std::string& host, uint16_t port, int timeoutMs) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0) {
        return fail(Errc::notFound, "resolve " + host + ": " + gai_strerror(rc));
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        ::freeaddrinfo(res);
        return fail(makeSystemError("socket", errno));
    }
    int rc = ::connect(fd, res->ai_addr, res->ai_addrlen);
    ::freeaddrinfo(res);
    if (rc != 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        rc = ::poll(&p, 1, timeoutMs);
        if (rc == 0) {
            ::close(fd);
            return fail(Errc::timedOut, "connect " + host + ":" + service + " timed out");
        }
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            ::close(fd);
            if (err == ECONNREFUSED)
                return fail(Errc::connectionRefused, "connect " + host + ":" + service + ": refused");
            return fail(makeSystemError("connect " + host + ":" + service, err));
        }
    } else if (rc != 0) {
        const int err = errno;
        ::close(fd);
        if (err == ECONNREFUSED) return fail(Errc::connectionRefused, "connect " + host + ":" + service + ": refused");
        return fail(makeSystemError("connect " + host + ":" + service, err));
    }
    const int flags = ::fcntl(fd, F_GETFL);
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    const int one = 1;
    // The CLC exchange is a few small request/response messages.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

}  // namespace

Result<Socket> Socket::connect(const std::string& host, uint16_t port, const ConnectOptions& options) {
    std::shared_ptr<Engine> engine = options.engine;
    if (!engine) {
        auto shared = Engine::shared();
        if (!shared) return fail(shared.error());
        engine = shared.value();
    }
    auto fd = tcpConnect(host, port, options.timeoutMs);
    if (!fd) return fail(fd.error());
    auto impl = engine->impl().clientHandshake(fd.value(), host + ":" + std::to_string(port));
    if (!impl) {
        ::close(fd.value());
        return fail(impl.error());
    }
    return Socket(impl.value());
}

Result<Socket> Socket::handshakeAsClient(int tcpFd, const std::string& peerName, std::shared_ptr<Engine> engine) {
    if (!engine) {
        auto shared = Engine::shared();
        if (!shared) return fail(shared.error());
        engine = shared.value();
    }
    auto impl = engine->impl().clientHandshake(tcpFd, peerName);
    if (!impl) return fail(impl.error());
    return Socket(impl.value());
}

Result<Socket> Socket::handshakeAsServer(int tcpFd, const std::string& peerName, std::shared_ptr<Engine> engine) {
    if (!engine) {
        auto shared = Engine::shared();
        if (!shared) return fail(shared.error());
        engine = shared.value();
    }
    return Socket(engine->impl().serverHandshake(tcpFd, peerName));
}

Result<Socket> Socket::declineAsServer(int tcpFd, const std::string& peerName, std::shared_ptr<Engine> engine) {
    if (!engine) {
        auto shared = Engine::shared();
        if (!shared) return fail(shared.error());
        engine = shared.value();
    }
    return Socket(engine->impl().serverDeclineCongested(tcpFd, peerName));
}

size_t Socket::readableBytes() const {
    if (!m_impl) return 0;
    if (!m_impl->smc()) {
        // The kernel's count; first bytes a listener's sort took are not in it.
        int n = 0;
        if (::ioctl(m_impl->tcpFd(), FIONREAD, &n) != 0 || n < 0) n = 0;
        return static_cast<size_t>(n);
    }
    std::lock_guard lock(m_impl->engine().mutex());
    const core::Connection* conn = m_impl->connection();
    return conn->core ? conn->core->rx().availableBytes() : 0;
}

Result<size_t> Socket::send(const void* data, size_t len, int flags) {
    if (!m_impl) return fail(invalidSocket().error());
    return m_impl->send(data, len, flags);
}
Result<size_t> Socket::recv(void* data, size_t len, int flags) {
    if (!m_impl) return fail(invalidSocket().error());
    return m_impl->recv(data, len, flags);
}
Result<size_t> Socket::sendfile(int fileFd, off_t offset, size_t len) {
    if (!m_impl) return fail(invalidSocket().error());
    return m_impl->sendfile(fileFd, offset, len);
}
Status Socket::setNonBlocking(bool enabled) {
    return m_impl ? m_impl->setNonBlocking(enabled) : invalidSocket();
}
bool Socket::nonBlocking() const {
    return m_impl && m_impl->nonBlocking();
}
Status Socket::setTimeoutMs(int timeoutMs) {
    if (!m_impl) return invalidSocket();
    if (timeoutMs < 0) return fail(Errc::invalidArgument, "timeout must be >= 0");
    m_impl->setTimeoutMs(timeoutMs);
    return {};
}
Status Socket::setNoDelay(bool enabled) {
    return m_impl ? m_impl->setNoDelay(enabled) : invalidSocket();
}
Status Socket::setCork(bool enabled) {
    return m_impl ? m_impl->setCork(enabled) : invalidSocket();
}
bool Socket::noDelay() const {
    return m_impl && m_impl->noDelay();
}
bool Socket::cork() const {
    return m_impl && m_impl->cork();
}
Status Socket::shutdown(int how) {
    if (!m_impl) return invalidSocket();
    if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) return fail(Errc::invalidArgument, "shutdown: bad how");
    return m_impl->shutdown(how);
}
void Socket::close() {
    if (m_impl) m_impl->close();
}
Result<uint32_t> Socket::waitReady(uint32_t events, int timeoutMs) {
    if (!m_impl) return fail(invalidSocket().error());
    return m_impl->waitReady(events, timeoutMs);
}
bool Socket::fellBack() const {
    return m_impl && !m_impl->smc();
}
uint32_t Socket::fallbackReason() const {
    return m_impl ? m_impl->fallbackReason() : 0;
}
uint32_t Socket::peerDeclineReason() const {
    return m_impl ? m_impl->peerDeclineReason() : 0;
}
std::string Socket::peerAddress() const {
    return m_impl ? m_impl->peer() : std::string();
}
ConnectionStats Socket::stats() const {
    return m_impl ? m_impl->stats() : ConnectionStats{};
}

}  // namespace smcr
