#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel_socket.h"

namespace smclab::transports {

std::string errnoText(int err) {
    return std::strerror(err);
}

KernelStream::KernelStream(int fd, std::string peer) : m_fd(fd), m_peer(std::move(peer)) {}

KernelStream::~KernelStream() {
    close();
}

smcr::Unexpected KernelStream::ioError(const char* what, int err) const {
    if (err == EAGAIN) {  // == EWOULDBLOCK on Linux
        // A blocking socket only returns EAGAIN when SO_RCVTIMEO/SO_SNDTIMEO expired.
        return smcr::fail(m_nonBlocking ? smcr::Errc::wouldBlock : smcr::Errc::timedOut, what);
    }
    if (err == ECONNRESET || err == EPIPE) {
        return smcr::fail(smcr::Errc::connectionReset, std::string(what) + ": " + errnoText(err));
    }
    if (err == EBADF) return smcr::fail(smcr::Errc::closed, std::string(what) + ": stream is closed");
    return smcr::fail(smcr::makeSystemError(what, err));
}

Status KernelStream::setNonBlocking(bool enabled) {
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags < 0) return smcr::fail(smcr::makeSystemError("fcntl(F_GETFL)", errno));
    const int wanted = enabled ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    if (::fcntl(m_fd, F_SETFL, wanted) < 0) return smcr::fail(smcr::makeSystemError("fcntl(F_SETFL)", errno));
    m_nonBlocking = enabled;
    return {};
}

Status KernelStream::setIoTimeoutMs(int timeoutMs) {
    if (timeoutMs < 0) return smcr::fail(smcr::Errc::invalidArgument, "io timeout must be >= 0 ms");
    timeval tv{};
    tv.tv_sec = timeoutMs / 1000;
    tv.tv_usec = (timeoutMs % 1000) * 1000;
    if (::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
        ::setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0) {
        return smcr::fail(smcr::makeSystemError("setsockopt(SO_RCVTIMEO)", errno));
    }
    return {};
}

Result<size_t> KernelStream::read(void* buffer, size_t len) {
    for (;;) {
        const ssize_t n = ::recv(m_fd, buffer, len, 0);
        if (n >= 0) return static_cast<size_t>(n);
        if (errno != EINTR) return ioError("recv", errno);
    }
}

Result<size_t> KernelStream::write(const void* buffer, size_t len) {
    for (;;) {
        const ssize_t n = ::send(m_fd, buffer, len, MSG_NOSIGNAL);
        if (n >= 0) return static_cast<size_t>(n);
        if (errno != EINTR) return ioError("send", errno);
    }
}

Result<size_t> KernelStream::writev(const iovec* iov, int count) {
    msghdr msg{};
    msg.msg_iov = const_cast<iovec*>(iov);
    msg.msg_iovlen = static_cast<size_t>(count);
    for (;;) {
        const ssize_t n = ::sendmsg(m_fd, &msg, MSG_NOSIGNAL);
        if (n >= 0) return static_cast<size_t>(n);
        if (errno != EINTR) return ioError("sendmsg", errno);
    }
}

Result<size_t> KernelStream::sendfile(int fileFd, off_t offset, size_t len) {
    for (;;) {
        off_t at = offset;
        const ssize_t n = ::sendfile(m_fd, fileFd, &at, len);
        if (n >= 0) return static_cast<size_t>(n);
        if (errno != EINTR) return ioError("sendfile", errno);
    }
}

Status KernelStream::setCork(bool enabled) {
    const int on = enabled ? 1 : 0;
    if (::setsockopt(m_fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on) < 0) {
        return smcr::fail(smcr::makeSystemError("setsockopt(TCP_CORK)", errno));
    }
    return {};
}

Status KernelStream::setNoDelay(bool enabled) {
    const int on = enabled ? 1 : 0;
    if (::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) < 0) {
        return smcr::fail(smcr::makeSystemError("setsockopt(TCP_NODELAY)", errno));
    }
    return {};
}

Status KernelStream::shutdownWrite() {
    if (::shutdown(m_fd, SHUT_WR) < 0) return ioError("shutdown", errno);
    return {};
}

void KernelStream::close() {
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

Result<Interest> KernelStream::waitReady(Interest interest, int timeoutMs) {
    pollfd p{};
    p.fd = m_fd;
    if (any(interest & Interest::read)) p.events |= POLLIN;
    if (any(interest & Interest::write)) p.events |= POLLOUT;
    for (;;) {
        const int n = ::poll(&p, 1, timeoutMs);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return smcr::fail(smcr::makeSystemError("poll", errno));
        Interest ready = Interest::none;
        if (n == 0) return ready;
        if (p.revents & POLLIN) ready = ready | Interest::read;
        if (p.revents & POLLOUT) ready = ready | Interest::write;
        if (p.revents & (POLLHUP | POLLERR)) ready = ready | Interest::hangup | (interest & Interest::read);
        return ready;
    }
}

Counters KernelStream::counters() const {
    tcp_info info{};
    socklen_t len = sizeof info;
    if (m_fd < 0 || ::getsockopt(m_fd, IPPROTO_TCP, TCP_INFO, &info, &len) < 0) return {};
    return {{"tcp.total_retrans", info.tcpi_total_retrans},
            {"tcp.rtt_us", info.tcpi_rtt},
            {"tcp.snd_cwnd", info.tcpi_snd_cwnd}};
}

}  // namespace smclab::transports
