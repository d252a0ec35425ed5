// One application socket: an SMC-R connection, or a plain TCP connection
// after a fallback. The public smcr::Socket is a handle to it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include <smcr/result.h>
#include <smcr/stats.h>

#include "core/listener/rx_prefix.h"
#include "core/shell/engine_impl.h"

namespace smcr::core {

class SocketImpl {
public:
    // An SMC-R socket on an established connection.
    SocketImpl(std::shared_ptr<EngineImpl> engine, std::shared_ptr<Connection> conn, int tcpFd, std::string peer);
    // A fallback socket: plain TCP over tcpFd.
    SocketImpl(std::shared_ptr<EngineImpl> engine, int tcpFd, std::string peer, uint32_t fallbackReason,
               uint32_t peerDeclineReason);
    ~SocketImpl();
    SocketImpl(const SocketImpl&) = delete;
    SocketImpl& operator=(const SocketImpl&) = delete;

    bool smc() const { return m_conn != nullptr; }
    uint32_t fallbackReason() const { return m_fallbackReason; }
    uint32_t peerDeclineReason() const { return m_peerDeclineReason; }
    int tcpFd() const { return m_tcpFd; }
    const std::string& peer() const { return m_peer; }
    EngineImpl& engine() { return *m_engine; }
    Connection* connection() const { return m_conn.get(); }

    Result<size_t> send(const void* data, size_t len, int flags);
    Result<size_t> recv(void* data, size_t len, int flags);
    Result<size_t> sendfile(int fileFd, off_t offset, size_t len);
    Status shutdown(int how);
    void close();

    Status setNonBlocking(bool enabled);
    bool nonBlocking() const { return m_nonBlocking.load(std::memory_order_relaxed); }
    void setTimeoutMs(int timeoutMs) { m_timeoutMs.store(timeoutMs, std::memory_order_relaxed); }
    Status setNoDelay(bool enabled);
    Status setCork(bool enabled);
    bool noDelay() const { return m_noDelay.load(std::memory_order_relaxed); }
    bool cork() const { return m_cork.load(std::memory_order_relaxed); }

    // POLLIN/POLLOUT/POLLERR/POLLHUP as poll(2) would report them. SMC
    // sockets: computed from the connection (caller holds the engine lock).
    uint32_t readinessLocked() const;
    // Blocks until one of `events` is ready or the timeout (-1 forever).
    Result<uint32_t> waitReady(uint32_t events, int timeoutMs);

    ConnectionStats stats();

    // A fallback socket's first bytes, already read by the listener that
    // sorted it (rx_prefix.h); recv() serves them first. Set before the
    // socket is handed out.
    void setPrefix(std::vector<uint8_t> bytes) { m_prefix.set(std::move(bytes)); }
    bool hasPrefix() const { return !m_prefix.empty(); }

private:
    // send() and sendfile's pieces; notLast: more pieces of this sendfile follow
    // (MSG_SENDPAGE_NOTLAST).
    Result<size_t> sendImpl(const void* data, size_t len, int flags, bool notLast);
    uint64_t deadlineNs(bool dontWait) const;
    Status errorStatusLocked() const;

    std::shared_ptr<EngineImpl> m_engine;
    std::shared_ptr<Connection> m_conn;
    int m_tcpFd = -1;
    std::string m_peer;
    uint32_t m_fallbackReason = 0;
    uint32_t m_peerDeclineReason = 0;
    std::atomic<bool> m_nonBlocking{false};
    std::atomic<int> m_timeoutMs{0};
    std::atomic<bool> m_noDelay{false};
    std::atomic<bool> m_cork{false};
    std::atomic<bool> m_closed{false};
    RxPrefix m_prefix;
};

}  // namespace smcr::core
