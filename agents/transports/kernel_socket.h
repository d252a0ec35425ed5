// Stream, Listener and Poller over kernel socket fds, shared by the `tcp`
// and `ksmc` transports (kernel SMC sockets behave like TCP sockets apart
// from the family they are made with).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "transport.h"

namespace smclab::transports {

// How a kernel transport makes its sockets.
struct SocketKind {
    // socket(family, SOCK_STREAM, protocol) for a peer resolved as IPv4 / IPv6.
    int familyV4 = 0;
    int protocolV4 = 0;
    int familyV6 = 0;
    int protocolV6 = 0;
};

// Counters a kernel transport keeps across its streams.
struct KernelTransportStats {
    std::atomic<uint64_t> connects{0};
    std::atomic<uint64_t> connectFailures{0};
    std::atomic<uint64_t> accepts{0};
};

class KernelStream final : public Stream {
public:
    KernelStream(int fd, std::string peer);
    ~KernelStream() override;
    KernelStream(const KernelStream&) = delete;
    KernelStream& operator=(const KernelStream&) = delete;

    int nativeFd() const override { return m_fd; }
    Status setNonBlocking(bool enabled) override;
    Status setIoTimeoutMs(int timeoutMs) override;
    Result<size_t> read(void* buffer, size_t len) override;
    Result<size_t> write(const void* buffer, size_t len) override;
    Result<size_t> writev(const iovec* iov, int count) override;
    Result<size_t> sendfile(int fileFd, off_t offset, size_t len) override;
    Status setCork(bool enabled) override;
    Status setNoDelay(bool enabled) override;
    Status shutdownWrite() override;
    void close() override;
    Result<Interest> waitReady(Interest interest, int timeoutMs) override;
    std::string peerAddress() const override { return m_peer; }
    Counters counters() const override;

private:
    smcr::Unexpected ioError(const char* what, int err) const;

    int m_fd;
    bool m_nonBlocking = false;
    std::string m_peer;
};

class KernelListener final : public Listener {
public:
    KernelListener(int fd, uint16_t port, std::shared_ptr<KernelTransportStats> stats);
    ~KernelListener() override;
    KernelListener(const KernelListener&) = delete;
    KernelListener& operator=(const KernelListener&) = delete;

    int nativeFd() const override { return m_fd; }
    Status setNonBlocking(bool enabled) override;
    Result<std::unique_ptr<Stream>> accept() override;
    uint16_t localPort() const override { return m_port; }
    void close() override;

private:
    int m_fd;
    bool m_nonBlocking = false;
    uint16_t m_port;
    std::shared_ptr<KernelTransportStats> m_stats;
};

// Level-triggered epoll with an eventfd for wakeup().
class EpollPoller final : public Poller {
public:
    static Result<std::unique_ptr<Poller>> create();
    ~EpollPoller() override;
    EpollPoller(const EpollPoller&) = delete;
    EpollPoller& operator=(const EpollPoller&) = delete;

    Status add(Pollable& target, Interest interest, void* userData) override;
    Status modify(Pollable& target, Interest interest, void* userData) override;
    Status remove(Pollable& target) override;
    Result<size_t> wait(std::span<PollEvent> events, int timeoutMs) override;
    void wakeup() override;

private:
    EpollPoller(int epollFd, int wakeFd) : m_epollFd(epollFd), m_wakeFd(wakeFd) {}
    Status control(int op, Pollable& target, Interest interest, void* userData);

    int m_epollFd;
    int m_wakeFd;
};

// Resolves host:port and connects a socket of `kind` with options applied.
Result<std::unique_ptr<Stream>> kernelConnect(const SocketKind& kind, const std::string& host, uint16_t port,
                                              const ConnectOptions& options, KernelTransportStats& stats);
Result<std::unique_ptr<Listener>> kernelListen(const SocketKind& kind, const std::string& addr, uint16_t port,
                                               int backlog, std::shared_ptr<KernelTransportStats> stats);

std::string errnoText(int err);

}  // namespace smclab::transports
