#include "core/shell/socket_impl.h"

#include <algorithm>
#include <cerrno>
#include <vector>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

namespace smcr::core {

namespace {

Status errnoStatus(const char* what, int err) {
    switch (err) {
        case EAGAIN:
            return fail(Errc::wouldBlock, std::string(what) + ": would block");
        case ECONNRESET:
        case EPIPE:
            return fail(Errc::connectionReset, std::string(what) + ": connection reset");
        default:
            return fail(makeSystemError(what, err));
    }
}

// Sendfile reads the file and sends it in page-sized pieces, like splice
// hands pages to sendpage; all but the last carry MSG_SENDPAGE_NOTLAST.
constexpr size_t kSendfilePieceBytes = 4096;

// How much of a send one copy takes. Busy polling, a send larger than a
// quarter of the sndbuf goes in quarter-sndbuf pieces, each pushed as soon as
// it is copied: the first piece is on the wire while the next one is copied,
// and the sndbuf frees piece by piece as the writes are acknowledged. One
// copy of the whole free space (smc_tx_sendmsg's way) leaves the wire idle
// for the copy and the ACK round trip of every sndbuf. Waiting like the
// kernel (lab.busy_poll_us 0), a piece would cost the sleeping peer a
// wake-up of its own, so the whole free space goes at once, as in the kernel
// (and with lab.tx_pieces off, to compare).
uint32_t sendPieceBytes(EngineImpl& engine, const Connection& conn, size_t remaining) {
    const auto all = static_cast<uint32_t>(std::min<size_t>(remaining, UINT32_MAX));
    const Settings& settings = engine.settings();
    if (settings.get(SettingId::txPieces) == 0 || settings.get(SettingId::busyPollUs) == 0) return all;
    return std::min(all, std::max<uint32_t>(conn.core->tx().sndbufBytes() / 4, 1));
}

// The thread is inside the socket (the kernel's sock_owned_by_user) during
// send(), except while it sleeps: completions that would push meanwhile leave
// the push to it (lab.tx_defer_to_owner). Lives inside the engine lock.
class OwnerScope {
public:
    OwnerScope(EngineImpl& engine, Connection& conn) : m_engine(engine), m_conn(conn) { enter(); }
    ~OwnerScope() { leave(); }
    OwnerScope(const OwnerScope&) = delete;
    OwnerScope& operator=(const OwnerScope&) = delete;
    void enter() {
        if (!m_inside) m_engine.enterOwnerLocked(m_conn);
        m_inside = true;
    }
    void leave() {
        if (m_inside) m_engine.leaveOwnerLocked(m_conn);
        m_inside = false;
    }

private:
    EngineImpl& m_engine;
    Connection& m_conn;
    bool m_inside = false;
};

// Kernel TCP I/O for fallback sockets, honouring the socket's timeout.
bool waitFd(int fd, short events, int timeoutMs) {
    pollfd p{fd, events, 0};
    return ::poll(&p, 1, timeoutMs <= 0 ? -1 : timeoutMs) > 0;
}

}  // namespace

SocketImpl::SocketImpl(std::shared_ptr<EngineImpl> engine, std::shared_ptr<Connection> conn, int tcpFd,
                       std::string peer)
    : m_engine(std::move(engine)), m_conn(std::move(conn)), m_tcpFd(tcpFd), m_peer(std::move(peer)) {}

SocketImpl::SocketImpl(std::shared_ptr<EngineImpl> engine, int tcpFd, std::string peer, uint32_t fallbackReason,
                       uint32_t peerDeclineReason)
    : m_engine(std::move(engine)),
      m_tcpFd(tcpFd),
      m_peer(std::move(peer)),
      m_fallbackReason(fallbackReason),
      m_peerDeclineReason(peerDeclineReason) {}

SocketImpl::~SocketImpl() {
    close();
}

uint64_t SocketImpl::deadlineNs(bool dontWait) const {
    if (dontWait) return 1;  // already past: one look, no wait
    const int timeoutMs = m_timeoutMs.load(std::memory_order_relaxed);
    return timeoutMs > 0 ? monotonicNs() + uint64_t(timeoutMs) * 1000000 : 0;
}

Status SocketImpl::errorStatusLocked() const {
    const Errc code = m_conn->error;
    if (code == Errc::connectionReset) return fail(code, "connection reset by peer");
    if (code == Errc::connectionAborted) return fail(code, "link group lost: connection aborted");
    if (code == Errc::protocolViolation) return fail(code, "peer violated the CDC protocol");
    return fail(Errc::closed, "connection closed");
}

Status SocketImpl::setNonBlocking(bool enabled) {
    m_nonBlocking.store(enabled, std::memory_order_relaxed);
    if (!smc() && m_tcpFd >= 0) {
        const int flags = ::fcntl(m_tcpFd, F_GETFL);
        if (::fcntl(m_tcpFd, F_SETFL, enabled ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK)) != 0) {
            return fail(makeSystemError("fcntl", errno));
        }
    }
    return {};
}

Status SocketImpl::setNoDelay(bool enabled) {
    m_noDelay.store(enabled, std::memory_order_relaxed);
    if (!smc() && m_tcpFd >= 0) {
        const int v = enabled ? 1 : 0;
        ::setsockopt(m_tcpFd, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v);
    }
    if (smc() && enabled) {
        std::lock_guard lock(m_engine->mutex());
        m_engine->setNoDelayLocked(*m_conn, cork());  // pending data goes now, in this thread
    }
    return {};
}

Status SocketImpl::setCork(bool enabled) {
    m_cork.store(enabled, std::memory_order_relaxed);
    if (!smc() && m_tcpFd >= 0) {
        const int v = enabled ? 1 : 0;
        ::setsockopt(m_tcpFd, IPPROTO_TCP, TCP_CORK, &v, sizeof v);
    }
    if (smc()) {
        std::lock_guard lock(m_engine->mutex());
        m_engine->setCorkLocked(*m_conn, enabled);  // clearing it pushes what it held
    }
    return {};
}

Result<size_t> SocketImpl::send(const void* data, size_t len, int flags) {
    return sendImpl(data, len, flags, false);
}

Result<size_t> SocketImpl::sendImpl(const void* data, size_t len, int flags, bool notLast) {
    if (m_closed.load()) return fail(Errc::closed, "socket closed");
    const bool dontWait = nonBlocking() || (flags & MSG_DONTWAIT) != 0;
    if (!smc()) {
        const int timeoutMs = m_timeoutMs.load(std::memory_order_relaxed);
        if (!dontWait && timeoutMs > 0 && !waitFd(m_tcpFd, POLLOUT, timeoutMs)) {
            return fail(Errc::timedOut, "send timed out");
        }
        const ssize_t n = ::send(m_tcpFd, data, len, (flags & (MSG_MORE | MSG_DONTWAIT)) | MSG_NOSIGNAL);
        if (n < 0) return fail(errnoStatus("send", errno).error());
        return static_cast<size_t>(n);
    }
    EngineImpl& engine = *m_engine;
    Connection& conn = *m_conn;
    std::unique_lock lock(engine.mutex());
    ++conn.stats.txCalls;
    if ((flags & MSG_MORE) != 0 || cork()) ++conn.stats.corkedCalls;
    if (noDelay()) ++conn.stats.nodelayCalls;
    // Autocorking, TCP_CORK, MSG_MORE and sendfile pieces decide per chunk
    // whether the bytes go now (engine_push.cpp, cork_policy.h).
    SendHints hints;
    hints.msgMore = (flags & MSG_MORE) != 0;
    hints.tcpCork = cork();
    hints.notLast = notLast;
    OwnerScope owner(engine, conn);
    const auto* bytes = static_cast<const uint8_t*>(data);
    // Read the clock only for a send that waits: a timeout (the agents'
    // workloads set one) must not cost a clock read per message.
    uint64_t deadline = 0;
    bool deadlineSet = false;
    auto waitDeadline = [&] {
        if (!deadlineSet) {
            deadline = deadlineNs(dontWait);
            deadlineSet = true;
        }
        return deadline;
    };
    size_t sent = 0;
    while (sent < len) {
        if (conn.error != Errc::invalid) {
            if (sent > 0) return sent;
            return fail(errorStatusLocked().error());
        }
        if (!conn.core->closer().canSend()) {
            if (sent > 0) return sent;
            if (conn.core->closer().peerClosed()) return fail(Errc::connectionReset, "peer closed the connection");
            return fail(Errc::closed, "send after shutdown");
        }
        const uint32_t chunk = sendPieceBytes(engine, conn, len - sent);
        const uint32_t copied = engine.sendCopyLocked(lock, conn, bytes + sent, chunk, hints);
        sent += copied;
        if (conn.sendQueued)
            engine.waitSendSlotLocked(lock, conn, waitDeadline());  // no free CDC slot: wait like the kernel
        if (sent == len) break;
        if (copied == chunk && conn.core->tx().sndbufFreeBytes() > 0) continue;  // the next piece
        ++conn.stats.bufFull;
        // Still inside while it spins (it polls its own completions and pushes
        // what they leave to it); waitUntil lets go while it sleeps. Bytes
        // that wait only for the peer's window are pushed by the kernel's
        // softirq when the window update arrives, without waking the writer;
        // here the writer polls for it up to lab.window_spin_us, about one
        // wake-up's cost, and sleeps only if the peer's reader is slower.
        const uint64_t windowSpinUs =
            conn.core->waitsForPeerWindow() ? engine.settings().get(SettingId::windowSpinUs) : 0;
        const EngineImpl::WaitResult waited = engine.waitUntil(
            lock,
            [&] {
                return conn.error != Errc::invalid || !conn.core->closer().canSend() ||
                       conn.core->tx().sndbufFreeBytes() > 0;
            },
            waitDeadline(), {}, &conn, EngineImpl::WaitFor::anyCompletion, windowSpinUs);
        if (!waited) {
            if (sent > 0) return sent;
            return dontWait ? fail(Errc::wouldBlock, "sndbuf full") : fail(Errc::timedOut, "send timed out");
        }
    }
    return sent;
}

Result<size_t> SocketImpl::recv(void* data, size_t len, int flags) {
    if (m_closed.load()) return fail(Errc::closed, "socket closed");
    const bool dontWait = nonBlocking() || (flags & MSG_DONTWAIT) != 0;
    const bool peek = (flags & MSG_PEEK) != 0;
    if (!smc()) {
        // Bytes the listener read while sorting come first (a short read,
        // as recv() may return; the kernel's bytes follow on the next call).
        if (const size_t n = m_prefix.take(data, len, peek); n > 0) return n;
        const int timeoutMs = m_timeoutMs.load(std::memory_order_relaxed);
        if (!dontWait && timeoutMs > 0 && !waitFd(m_tcpFd, POLLIN, timeoutMs)) {
            return fail(Errc::timedOut, "recv timed out");
        }
        const ssize_t n = ::recv(m_tcpFd, data, len, flags & (MSG_PEEK | MSG_DONTWAIT));
        if (n < 0) return fail(errnoStatus("recv", errno).error());
        return static_cast<size_t>(n);
    }
    EngineImpl& engine = *m_engine;
    Connection& conn = *m_conn;
    std::unique_lock lock(engine.mutex());
    ++conn.stats.rxCalls;
    if (len == 0) return size_t{0};
    auto readable = [&] {
        return conn.core->rx().availableBytes() > 0 || conn.core->closer().peerDone() || conn.error != Errc::invalid ||
               conn.readShutdown;
    };
    ConnRx::RecvWait wait = ConnRx::RecvWait::none;
    if (!readable()) {
        // Only receives make it readable: its own ACKs need not wake it (engine_wake.cpp).
        // The kernel's reader sleeps here while the sender's softirq pushes
        // what our last window update let go; a sleep and a wake-up cost more
        // than that push takes to arrive, so a reader that just released a
        // blocked sender polls for its bytes up to lab.window_spin_us first.
        const uint64_t refillSpinUs =
            conn.core->rx().peerRefillExpected() ? engine.settings().get(SettingId::windowSpinUs) : 0;
        const EngineImpl::WaitResult waited = engine.waitUntil(lock, readable, deadlineNs(dontWait), {}, nullptr,
                                                               EngineImpl::WaitFor::receives, refillSpinUs);
        if (!waited) return dontWait ? fail(Errc::wouldBlock, "no data") : fail(Errc::timedOut, "recv timed out");
        wait = waited.slept ? ConnRx::RecvWait::slept : ConnRx::RecvWait::polled;
    }
    conn.core->onAppRecv(wait);
    if (conn.core->rx().availableBytes() > 0 && !conn.readShutdown) {
        const auto want = static_cast<uint32_t>(std::min<size_t>(len, UINT32_MAX));
        return size_t{engine.readLocked(conn, static_cast<uint8_t*>(data), want, peek)};
    }
    if (conn.error != Errc::invalid) return fail(errorStatusLocked().error());
    return size_t{0};  // end of stream
}

Result<size_t> SocketImpl::sendfile(int fileFd, off_t offset, size_t len) {
    if (!smc()) {
        off_t off = offset;
        const ssize_t n = ::sendfile(m_tcpFd, fileFd, &off, len);
        if (n < 0) return fail(errnoStatus("sendfile", errno).error());
        return static_cast<size_t>(n);
    }
    {
        std::lock_guard lock(m_engine->mutex());
        ++m_conn->stats.sendfileCalls;
    }
    // Like the kernel since 6.5 (sendfile via MSG_SPLICE_PAGES): the file's
    // bytes are copied into the sndbuf.
    std::vector<uint8_t> buffer(std::min<size_t>(len, 64 * 1024));
    size_t done = 0;
    while (done < len) {
        const ssize_t n =
            ::pread(fileFd, buffer.data(), std::min(buffer.size(), len - done), offset + static_cast<off_t>(done));
        if (n < 0) {
            if (done > 0) return done;
            return fail(makeSystemError("pread", errno));
        }
        if (n == 0) break;
        size_t at = 0;
        while (at < static_cast<size_t>(n)) {
            const size_t piece = std::min(kSendfilePieceBytes, static_cast<size_t>(n) - at);
            const bool notLast = done + piece < len;
            auto sent = sendImpl(buffer.data() + at, piece, 0, notLast);
            if (!sent) {
                if (done > 0) return done;
                return fail(sent.error());
            }
            done += sent.value();
            at += sent.value();
            if (sent.value() < piece) return done;
        }
    }
    return done;
}

Status SocketImpl::shutdown(int how) {
    if (m_closed.load()) return fail(Errc::closed, "socket closed");
    if (!smc()) {
        if (::shutdown(m_tcpFd, how) != 0) return fail(makeSystemError("shutdown", errno));
        return {};
    }
    EngineImpl& engine = *m_engine;
    Connection& conn = *m_conn;
    std::unique_lock lock(engine.mutex());
    if (how == SHUT_RD || how == SHUT_RDWR) conn.readShutdown = true;
    if (how == SHUT_WR || how == SHUT_RDWR) {
        // Drain first (kernel: up to 2 s or SO_LINGER), so the done-writing
        // flag follows the last byte.
        const uint64_t drainMs = engine.settings().get(SettingId::closeDrainMs);
        engine.pushAllLocked(conn);  // corked bytes leave before the done-writing flag
        engine.waitUntil(
            lock, [&] { return conn.error != Errc::invalid || conn.core->tx().unsentBytes() == 0; },
            monotonicNs() + drainMs * 1000000 + 1);
        engine.applyCloseLocked(conn, conn.core->closer().on(CloseEvent::appShutdownWrite));
    }
    engine.wakeSleepersLocked();
    return {};
}

void SocketImpl::close() {
    if (m_closed.exchange(true)) return;
    if (!smc()) {
        if (m_tcpFd >= 0) ::close(m_tcpFd);
        m_tcpFd = -1;
        m_prefix.clear();
        return;
    }
    EngineImpl& engine = *m_engine;
    // After fork(), a process that does not run the engine (parked, another
    // process's, discarded: engine_fork.cpp) closes nothing: the process
    // that runs it closes the connection.
    if (!engine.runsIn(static_cast<int>(::getpid()))) return;
    Connection& conn = *m_conn;
    std::unique_lock lock(engine.mutex());
    conn.appClosed = true;
    if (conn.core && !conn.released && conn.lgr && !conn.lgr->terminated) {
        if (conn.core->rx().availableBytes() > 0) {
            // Unread data: abnormal close, the peer sees a reset (like TCP RST).
            engine.applyCloseLocked(conn, conn.core->closer().on(CloseEvent::appCloseUnreadData));
        } else {
            const uint64_t drainMs = engine.settings().get(SettingId::closeDrainMs);
            engine.pushAllLocked(conn);  // corked bytes leave before the close flag
            engine.waitUntil(
                lock, [&] { return conn.error != Errc::invalid || conn.core->tx().unsentBytes() == 0; },
                monotonicNs() + drainMs * 1000000 + 1);
            engine.applyCloseLocked(conn, conn.core->closer().on(CloseEvent::appClose));
        }
    }
    if (!conn.released) engine.retainClosingLocked(m_conn);
    engine.maybeReleaseLocked(conn);
    engine.wakeSleepersLocked();
}

uint32_t SocketImpl::readinessLocked() const {
    if (m_closed.load()) return POLLNVAL;
    if (!smc()) {
        pollfd p{m_tcpFd, POLLIN | POLLOUT, 0};
        ::poll(&p, 1, 0);
        return static_cast<uint32_t>(p.revents) | (hasPrefix() ? uint32_t{POLLIN} : 0u);
    }
    const Connection& conn = *m_conn;
    uint32_t ready = 0;
    const bool failed = conn.error != Errc::invalid;
    if (failed) ready |= POLLERR | POLLHUP | POLLIN | POLLOUT;
    if (conn.core->rx().availableBytes() > 0 || conn.core->closer().peerDone() || conn.readShutdown) ready |= POLLIN;
    if (!conn.core->closer().canSend() || conn.core->tx().sndbufFreeBytes() > 0) ready |= POLLOUT;
    if (conn.core->closer().peerDone() && !conn.core->closer().canSend()) ready |= POLLHUP;
    if (conn.core->closer().peerDone()) ready |= POLLRDHUP;
    return ready;
}

Result<uint32_t> SocketImpl::waitReady(uint32_t events, int timeoutMs) {
    const uint32_t always = POLLERR | POLLHUP | POLLNVAL;
    if (!smc()) {
        pollfd p{m_tcpFd, static_cast<short>(events), 0};
        // Held first bytes are readable now: look, do not sleep.
        const bool held = (events & POLLIN) != 0 && hasPrefix();
        const int n = ::poll(&p, 1, held ? 0 : timeoutMs);
        if (n < 0) return fail(makeSystemError("poll", errno));
        return static_cast<uint32_t>(p.revents) | (held ? uint32_t{POLLIN} : 0u);
    }
    EngineImpl& engine = *m_engine;
    std::unique_lock lock(engine.mutex());
    uint32_t ready = 0;
    const uint64_t deadline = timeoutMs < 0 ? 0 : monotonicNs() + uint64_t(timeoutMs) * 1000000 + 1;
    engine.waitUntil(
        lock,
        [&] {
            ready = readinessLocked() & (events | always);
            return ready != 0;
        },
        deadline);
    return ready;
}

ConnectionStats SocketImpl::stats() {
    if (!smc()) return {};
    std::lock_guard lock(m_engine->mutex());
    return m_conn->totals();
}

}  // namespace smcr::core
