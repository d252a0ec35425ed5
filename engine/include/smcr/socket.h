// smcr::Socket: a stream socket over SMC-R, with TCP semantics.
//
// connect() opens a kernel TCP connection, runs the SMC-R CLC handshake on
// it and moves the data path to RDMA (RDMA WRITE into the peer's RMB plus a
// CDC message per push). When the peer does not speak SMC-R or anything in
// the handshake fails, the socket falls back to plain TCP on the same
// connection: fellBack() and fallbackReason() (a CLC decline code, see
// <smcr/wire/decline_reasons.h>) say so, and the API behaves the same.
//
// Errors: Errc::wouldBlock (non-blocking or MSG_DONTWAIT), timedOut (the
// socket's I/O timeout), connectionReset (peer aborted or died),
// connectionAborted (the link group was lost), closed (after close or
// shutdown). recv() returning 0 means end of stream.
//
// Flags: MSG_DONTWAIT, MSG_PEEK (recv), MSG_MORE (send) from <sys/socket.h>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <sys/socket.h>
#include <sys/types.h>

#include <smcr/engine.h>
#include <smcr/result.h>
#include <smcr/stats.h>

namespace smcr {

namespace core {
class SocketImpl;
}

struct ConnectOptions {
    int timeoutMs = 5000;            // TCP connect limit (the CLC waits are settings)
    std::shared_ptr<Engine> engine;  // null: Engine::shared()
};

class Socket {
public:
    Socket() = default;
    explicit Socket(std::shared_ptr<core::SocketImpl> impl) : m_impl(std::move(impl)) {}

    // host: IPv4 address or name.
    static Result<Socket> connect(const std::string& host, uint16_t port, const ConnectOptions& options = {});

    // The CLC handshake on a TCP connection the caller made or accepted
    // itself (the LD_PRELOAD carrier, engine/src/preload): from here on the
    // socket owns tcpFd and closes it. SMC-R, or fallen back like connect().
    // The server side expects the client's Proposal next on tcpFd.
    static Result<Socket> handshakeAsClient(int tcpFd, const std::string& peerName,
                                            std::shared_ptr<Engine> engine = nullptr);
    static Result<Socket> handshakeAsServer(int tcpFd, const std::string& peerName,
                                            std::shared_ptr<Engine> engine = nullptr);
    // limit_smc_hs for such a server while its handshakes are congested:
    // takes the client's Proposal off tcpFd and declines it (PEERNOSMC,
    // counted in smcr.limit_hs_fallbacks), as libsmcr's listener does; the
    // socket is a fallback one, owning tcpFd.
    static Result<Socket> declineAsServer(int tcpFd, const std::string& peerName,
                                          std::shared_ptr<Engine> engine = nullptr);

    bool valid() const { return m_impl != nullptr; }

    Result<size_t> send(const void* data, size_t len, int flags = 0);
    Result<size_t> recv(void* data, size_t len, int flags = 0);
    // Sends len bytes of fileFd from offset (copied into the send buffer, as
    // the kernel does since sendpage went away). May be partial.
    Result<size_t> sendfile(int fileFd, off_t offset, size_t len);

    Status setNonBlocking(bool enabled);
    bool nonBlocking() const;
    // Blocking calls give up with Errc::timedOut after this long; 0 = never.
    Status setTimeoutMs(int timeoutMs);
    // TCP_NODELAY / TCP_CORK: stored (and counted); every send pushes at once
    // today, so no data is ever held back.
    Status setNoDelay(bool enabled);
    Status setCork(bool enabled);
    bool noDelay() const;
    bool cork() const;

    Status shutdown(int how);  // SHUT_RD, SHUT_WR, SHUT_RDWR
    void close();

    // poll(2)-style readiness: waits for any of events (POLLIN, POLLOUT);
    // POLLERR/POLLHUP always reported. timeoutMs -1 = forever.
    Result<uint32_t> waitReady(uint32_t events, int timeoutMs);

    // Bytes a recv() would return now without waiting (FIONREAD).
    size_t readableBytes() const;

    bool fellBack() const;
    uint32_t fallbackReason() const;     // 0 when on SMC-R
    uint32_t peerDeclineReason() const;  // the peer's Decline code, if it declined
    std::string peerAddress() const;
    ConnectionStats stats() const;

    const std::shared_ptr<core::SocketImpl>& impl() const { return m_impl; }

private:
    std::shared_ptr<core::SocketImpl> m_impl;
};

}  // namespace smcr
