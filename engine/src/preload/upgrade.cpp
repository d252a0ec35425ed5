#include "upgrade.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <smcr/syn_option.h>
#include <smcr/wire/decline_reasons.h>

#include "config.h"
#include "control.h"
#include "epoll_shadow.h"
#include "process.h"
#include "real_calls.h"
#include "registry.h"

namespace smcr::preload {

namespace {

constexpr int kConnectWaitMs = 5000;

std::string addressText(const sockaddr* addr) {
    char host[INET6_ADDRSTRLEN] = "?";
    if (addr->sa_family == AF_INET) {
        ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, host, sizeof host);
        return std::string(host) + ":" + std::to_string(portOf(addr));
    }
    if (addr->sa_family == AF_INET6) {
        ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, host, sizeof host);
        return "[" + std::string(host) + "]:" + std::to_string(portOf(addr));
    }
    return host;
}

uint16_t localPort(int fd) {
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return 0;
    return portOf(reinterpret_cast<sockaddr*>(&local));
}

// The ephemeral port must be known before the SYN so the client's marker
// is there when the server accepts (registry.h).
bool bindEphemeral(int fd, int family) {
    if (localPort(fd) != 0) return true;
    sockaddr_storage any{};
    socklen_t len = 0;
    if (family == AF_INET6) {
        auto* a = reinterpret_cast<sockaddr_in6*>(&any);
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        len = sizeof *a;
    } else {
        auto* a = reinterpret_cast<sockaddr_in*>(&any);
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        len = sizeof *a;
    }
    return ::bind(fd, reinterpret_cast<sockaddr*>(&any), len) == 0;
}

// libsmcr's own fd of each connection is taken from the top of the fd
// range: programs size tables by the fds they expect (wrk's event loop holds
// 10 + 3 x connections), and one extra low fd per connection overflows them.
int dupForEngine(int fd) {
    static const int floor = [] {
        rlimit lim{};
        if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 512;
        const auto soft = static_cast<long>(lim.rlim_cur);
        return static_cast<int>(soft > 4096 ? soft - 2048 : soft / 2);
    }();
    int mine = real().fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (mine < 0) mine = real().fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine >= 0 && fdTable().kind(mine) != FdKind::none) forget(mine);  // a stale entry
    return mine;
}

void stayTcp(int fd, bool client, const std::string& peer, const std::string& reason) {
    fdTable().setKind(fd, FdKind::tcp);
    candidateGone(fd);
    countTcp(client, reason);
    logLine(std::string(client ? "connect " : "accept ") + peer + " fd " + std::to_string(fd) + ": TCP (" + reason +
            ")");
}

std::string fallbackText(const Socket& sock) {
    const char* name = wire::declineReasonName(sock.fallbackReason());
    return name != nullptr ? std::string(name) : "decline_" + std::to_string(sock.fallbackReason());
}

void becomeSmc(int fd, Socket sock, std::shared_ptr<Engine> engine, bool client, bool nonBlocking,
               const std::string& peer) {
    auto conn = std::make_shared<Conn>();
    (void)sock.setNonBlocking(true);
    conn->sock = std::move(sock);
    conn->engine = std::move(engine);
    conn->nonBlocking = nonBlocking;
    conn->peer = peer;
    fdTable().setConn(fd, std::move(conn));
    candidateBecameSmc(fd);
    (client ? counters().smcClient : counters().smcServer).fetch_add(1, std::memory_order_relaxed);
    logLine(std::string(client ? "connect " : "accept ") + peer + " fd " + std::to_string(fd) + ": SMC-R");
}

// The TCP connect of an SMC candidate, blocking even for a non-blocking
// socket (bounded); 0 or -1 with errno as connect() would end.
int connectNow(int fd, const sockaddr* addr, socklen_t len) {
    if (real().connect(fd, addr, len) == 0) return 0;
    if (errno != EINPROGRESS) return -1;
    pollfd p{fd, POLLOUT, 0};
    int r = 0;
    do {
        r = real().poll(&p, 1, kConnectWaitMs);
    } while (r < 0 && errno == EINTR);
    if (r == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    int err = 0;
    socklen_t errLen = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errLen);
    if (err != 0) {
        errno = err;
        return -1;
    }
    return 0;
}

// A plain TCP client of a preloaded server goes by libsmcr's listener rules
// (listener_acceptor.cpp), with the client's marker (registry.h) standing in
// for the sort on its first bytes: counted as a server fallback with the
// kernel's reason for a client that did not offer SMC (PEERNOSMC), and with
// lab.fast_fallback on (the default) handed to the program at once, as the
// listener's fast path does (smcr.fast_fallback_accepts). With it off the
// listener sends every connection through the handshake, which waits for
// the client's first bytes (at most lab.clc_detect_ms) before it sees they
// are no CLC; here that wait is a peek (nothing is taken), so the
// short-connection fallback benchmark (seed 003: wrk against a preloaded
// nginx) compares the same two paths. It blocks the accepting thread, as
// accept() under the listener without fast fallback does.
void acceptPlain(int fd, const std::string& peer) {
    const bool fast = settingValue(SettingId::fastFallback) != 0;
    if (!fast) {
        const auto waitMs = static_cast<int>(std::min<uint64_t>(settingValue(SettingId::clcDetectMs), 600000));
        pollfd p{fd, POLLIN, 0};
        int r = 0;
        do {
            r = real().poll(&p, 1, waitMs);
        } while (r < 0 && errno == EINTR);
    }
    const auto reason = wire::DeclineReason::peerNoSmc;
    countAcceptFallback(reason, fast);
    stayTcp(fd, false, peer, wire::declineReasonName(static_cast<uint32_t>(reason)));
}

}  // namespace

int connectUpgrading(int fd, const sockaddr* addr, socklen_t len) {
    if (addr == nullptr || (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)) {
        return real().connect(fd, addr, len);
    }
    const std::string peer = addressText(addr);
    const uint16_t port = portOf(addr);
    std::string reason;
    // Under smc_synopt the peer's SYN-ACK says whether it speaks SMC (a
    // kernel SMC-R server, or a libsmcr one under smc_synopt): a peer no
    // preloaded listener answers for is asked after the TCP connect.
    bool askSynAck = false;
    if (config().tcpPorts.count(port) != 0) {
        reason = "tcp_port";
    } else if (!listenerReachable(addr, len)) {
        askSynAck = synOptionRecorded();
        if (!askSynAck) reason = "not_libsmcr_peer";
    }
    std::shared_ptr<Engine> engine;
    if (reason.empty()) {
        auto made = processEngine();
        if (made) {
            engine = made.value();
        } else {
            reason = "engine_error";
            logLine("engine: " + made.error().toString());
        }
    }
    if (reason.empty() && !bindEphemeral(fd, addr->sa_family)) reason = "bind_failed";
    if (!reason.empty()) {
        stayTcp(fd, true, peer, reason);
        return real().connect(fd, addr, len);
    }
    const uint16_t myPort = localPort(fd);
    markClient(myPort, addr, len);
    const bool nonBlocking = (real().fcntl(fd, F_GETFL) & O_NONBLOCK) != 0;
    if (connectNow(fd, addr, len) != 0) {
        const int err = errno;
        unmarkClient(myPort, addr, len);
        fdTable().setKind(fd, FdKind::tcp);
        candidateGone(fd);
        logLine("connect " + peer + " fd " + std::to_string(fd) + ": " + std::strerror(err));
        errno = err;
        return -1;
    }
    if (askSynAck && peerSynOption(fd) != PeerSynOption::present) {
        // No option in the SYN-ACK, or no record of it (a port smc_synopt
        // does not mark): no CLC byte may go (the kernel's PEERNOSMC).
        unmarkClient(myPort, addr, len);
        stayTcp(fd, true, peer, "PEERNOSMC");
        return 0;
    }
    // libsmcr gets its own fd of the connection: it may close it long after
    // the program closed (and reused) the carrier's number.
    const int mine = dupForEngine(fd);
    if (mine < 0) {
        unmarkClient(myPort, addr, len);
        stayTcp(fd, true, peer, "dup_failed");
        return 0;
    }
    auto sock = Socket::handshakeAsClient(mine, peer, engine);
    unmarkClient(myPort, addr, len);
    if (!sock) {
        real().close(mine);
        stayTcp(fd, true, peer, "handshake_error");
        return 0;
    }
    if (sock.value().fellBack()) {
        stayTcp(fd, true, peer, fallbackText(sock.value()));
        return 0;  // the fallback socket closes `mine` as it goes
    }
    becomeSmc(fd, std::move(sock.value()), engine, true, nonBlocking, peer);
    return 0;
}

// limit_smc_hs: the listener declines SMC clients while a handshake already
// waits for its worker (listener_impl.h hsCongested). Here the handshakes
// run one after the other in the accepting thread, so the ones that wait
// are the connections queued behind this one in the kernel's accept queue
// (TCP_INFO of a listening socket: tcpi_unacked is the queue's length).
bool handshakesCongested(int listenFd) {
    if (settingValue(SettingId::limitSmcHs) == 0) return false;
    tcp_info info{};
    socklen_t len = sizeof info;
    if (::getsockopt(listenFd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
    return info.tcpi_unacked >= 1;
}

int acceptUpgrading(int listenFd, int newFd, int acceptFlags) {
    ensureControl();
    if (std::shared_ptr<Conn> stale = fdTable().take(newFd)) release(std::move(stale));
    sockaddr_storage peerAddr{};
    socklen_t len = sizeof peerAddr;
    if (::getpeername(newFd, reinterpret_cast<sockaddr*>(&peerAddr), &len) != 0) {
        fdTable().setKind(newFd, FdKind::tcp);
        return newFd;
    }
    const auto* addr = reinterpret_cast<const sockaddr*>(&peerAddr);
    const std::string peer = addressText(addr);
    sockaddr_storage localAddr{};
    socklen_t localLen = sizeof localAddr;
    const bool named = ::getsockname(newFd, reinterpret_cast<sockaddr*>(&localAddr), &localLen) == 0;
    // A client on another host has no marker here; under smc_synopt its
    // SYN's option (answered by ours) says it proposes next.
    if ((!named || !clientMarked(portOf(addr), reinterpret_cast<const sockaddr*>(&localAddr), localLen)) &&
        peerSynOption(newFd) != PeerSynOption::present) {
        acceptPlain(newFd, peer);
        return newFd;
    }
    auto engine = processEngine();
    const int mine = engine ? dupForEngine(newFd) : -1;
    if (mine < 0) {
        // Its Proposal is on the way: handing the connection to the program
        // would put CLC bytes into its stream. The client sees the reset.
        logLine("accept " + peer + ": dropped, no engine to answer its Proposal");
        real().close(newFd);
        errno = ECONNABORTED;
        return -1;
    }
    auto sock = handshakesCongested(listenFd) ? Socket::declineAsServer(mine, peer, engine.value())
                                              : Socket::handshakeAsServer(mine, peer, engine.value());
    if (!sock) {
        real().close(mine);
        stayTcp(newFd, false, peer, "handshake_error");
        return newFd;
    }
    if (sock.value().fellBack()) {
        stayTcp(newFd, false, peer, fallbackText(sock.value()));
        return newFd;
    }
    becomeSmc(newFd, std::move(sock.value()), engine.value(), false, (acceptFlags & SOCK_NONBLOCK) != 0, peer);
    return newFd;
}

void listened(int fd) {
    const FdKind k = fdTable().kind(fd);
    if (k != FdKind::candidate && k != FdKind::listener) return;
    if (k == FdKind::listener) return;
    candidateGone(fd);  // a listener stays in the program's epoll sets as it is
    ensureControl();
    const uint16_t port = localPort(fd);
    ListenerInfo info{port, currentPid(), listenerRecord(fd)};
    if (port != 0) registerListener(port, info.record);
    fdTable().setListener(fd, std::move(info));
    logLine("listen port " + std::to_string(port) + " fd " + std::to_string(fd));
}

namespace {
std::mutex g_deferredMutex;
// Closed here while their engine was parked here (release()).
auto* g_deferred = new std::vector<std::shared_ptr<Conn>>;

std::vector<std::shared_ptr<Conn>> takeDeferred(const Engine& engine) {
    std::lock_guard lock(g_deferredMutex);
    std::vector<std::shared_ptr<Conn>> taken;
    std::erase_if(*g_deferred, [&](std::shared_ptr<Conn>& c) {
        if (c->engine.get() != &engine) return false;
        taken.push_back(std::move(c));
        return true;
    });
    return taken;
}
}  // namespace

void closeDeferred(const Engine& engine) {
    for (std::shared_ptr<Conn>& conn : takeDeferred(engine)) {
        epollForget(*conn);
        conn->sock.close();
    }
}

void dropDeferred(const Engine& engine) {
    // Their engine is discarded here: the handles are not ours to destroy.
    for (std::shared_ptr<Conn>& conn : takeDeferred(engine)) new std::shared_ptr<Conn>(std::move(conn));
}

void release(std::shared_ptr<Conn> conn) {
    if (!conn) return;
    if (conn->fdRefs.fetch_sub(1) != 1) return;
    if (!runsHere(*conn)) {
        // After fork(), a copy this process does not run: closing it must
        // neither claim the engine nor tell the peer (the process that uses
        // the connection closes it), nor destroy the handle (its engine is
        // not ours to lock). Should this process claim the engine later
        // (it goes on with its other connections), it closes this one then.
        std::lock_guard lock(g_deferredMutex);
        if (conn->engine && conn->engine->parked()) {
            g_deferred->push_back(std::move(conn));
        } else {
            new std::shared_ptr<Conn>(std::move(conn));
        }
        return;
    }
    epollForget(*conn);
    conn->sock.close();
}

void forget(int fd) {
    switch (fdTable().kind(fd)) {
        case FdKind::none:
            return;
        case FdKind::listener: {
            const ListenerInfo info = fdTable().listener(fd);
            (void)fdTable().take(fd);
            if (info.port != 0) unregisterListener(info.port);
            return;
        }
        case FdKind::epoll:
            (void)fdTable().take(fd);
            epollClosed(fd);
            return;
        case FdKind::smc: {
            std::shared_ptr<Conn> conn = fdTable().take(fd);
            if (conn) epollRemoveFd(*conn, fd);
            release(std::move(conn));
            return;
        }
        case FdKind::candidate:
            (void)fdTable().take(fd);
            candidateGone(fd);
            return;
        default:
            (void)fdTable().take(fd);
            return;
    }
}

}  // namespace smcr::preload
