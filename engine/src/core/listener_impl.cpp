#include "listener_impl.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <smcr/wire/decline_reasons.h>

#include "smc_detect.h"
#include "socket_impl.h"

namespace smcr::core {

namespace {

std::string peerNameOf(const sockaddr_in& a) {
    char host[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(a.sin_port));
}

}  // namespace

Result<std::shared_ptr<ListenerImpl>> ListenerImpl::listen(std::shared_ptr<EngineImpl> engine,
                                                           const std::string& addr, uint16_t port, int backlog) {
    std::shared_ptr<ListenerImpl> l(new ListenerImpl());
    l->m_engine = std::move(engine);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    if (addr.empty() || addr == "0.0.0.0") {
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (::inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) {
        return fail(Errc::invalidArgument, "listen: '" + addr + "' is not an IPv4 address");
    }
    l->m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->m_listenFd < 0) return fail(makeSystemError("socket", errno));
    const int one = 1;
    ::setsockopt(l->m_listenFd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(l->m_listenFd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        return fail(makeSystemError("bind " + addr + ":" + std::to_string(port), errno));
    }
    if (::listen(l->m_listenFd, backlog) != 0) return fail(makeSystemError("listen", errno));
    socklen_t len = sizeof sa;
    ::getsockname(l->m_listenFd, reinterpret_cast<sockaddr*>(&sa), &len);
    l->m_port = ntohs(sa.sin_port);
    l->m_stopFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->m_stopFd < 0) return fail(makeSystemError("eventfd", errno));
    l->m_worker = std::thread([raw = l.get()] { raw->workerLoop(); });
    return l;
}

ListenerImpl::~ListenerImpl() { close(); }

void ListenerImpl::close() {
    if (m_closed.exchange(true)) return;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_stopFd, &one, sizeof one);
    if (m_worker.joinable()) m_worker.join();
    if (m_listenFd >= 0) ::close(m_listenFd);
    if (m_stopFd >= 0) ::close(m_stopFd);
    m_listenFd = m_stopFd = -1;
    std::deque<std::shared_ptr<SocketImpl>> leftovers;
    {
        std::lock_guard lock(m_engine->mutex());
        leftovers.swap(m_queue);
        m_engine->wakeSleepersLocked();
    }
    leftovers.clear();  // closes them (outside the lock: close() takes it)
}

uint32_t ListenerImpl::readinessLocked() const {
    if (m_closed.load()) return POLLNVAL;
    return m_queue.empty() ? 0 : POLLIN;
}

Result<std::shared_ptr<SocketImpl>> ListenerImpl::accept() {
    std::unique_lock lock(m_engine->mutex());
    auto ready = [&] { return !m_queue.empty() || m_closed.load(); };
    if (!ready()) {
        if (m_nonBlocking.load()) return fail(Errc::wouldBlock, "no connection to accept");
        const int timeoutMs = m_timeoutMs.load();
        const uint64_t deadline = timeoutMs > 0 ? monotonicNs() + uint64_t(timeoutMs) * 1000000 : 0;
        if (!m_engine->waitUntil(lock, ready, deadline)) return fail(Errc::timedOut, "accept timed out");
    }
    if (m_queue.empty()) return fail(Errc::closed, "listener closed");
    auto sock = m_queue.front();
    m_queue.pop_front();
    return sock;
}

void ListenerImpl::workerLoop() {
    std::vector<Pending> pending;
    auto queue = [&](std::shared_ptr<SocketImpl> sock) {
        std::lock_guard lock(m_engine->mutex());
        m_queue.push_back(std::move(sock));
        m_engine->wakeSleepersLocked();
    };
    auto plain = [&](const Pending& p, DetectResult why) {
        // Plain TCP client: nothing was read, the application gets every byte.
        (void)why;
        const auto reason = static_cast<uint32_t>(wire::DeclineReason::peerNoSmc);
        m_engine->countFallback(HandshakeRole::server, reason, 0, false);
        queue(std::make_shared<SocketImpl>(m_engine, p.fd, p.peer, reason, 0));
    };
    while (!m_closed.load()) {
        std::vector<pollfd> fds;
        fds.push_back({m_stopFd, POLLIN, 0});
        fds.push_back({m_listenFd, POLLIN, 0});
        uint64_t next = UINT64_MAX;
        for (const Pending& p : pending) {
            fds.push_back({p.fd, POLLIN, 0});
            next = std::min(next, p.deadlineNs);
        }
        const uint64_t now = monotonicNs();
        const int timeoutMs = next == UINT64_MAX ? -1 : static_cast<int>(next > now ? (next - now) / 1000000 + 1 : 0);
        ::poll(fds.data(), fds.size(), timeoutMs);
        if (fds[0].revents != 0) break;
        if (fds[1].revents != 0) {
            sockaddr_in peer{};
            socklen_t len = sizeof peer;
            const int fd = ::accept4(m_listenFd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
            if (fd >= 0) {
                const uint64_t detectMs = m_engine->settings().get(SettingId::clcDetectMs);
                pending.push_back({fd, monotonicNs() + detectMs * 1000000, peerNameOf(peer)});
            }
        }
        const uint64_t t = monotonicNs();
        std::vector<Pending> still;
        for (size_t i = 0; i < pending.size(); ++i) {
            const Pending& p = pending[i];
            const bool readable = i + 2 < fds.size() && fds[i + 2].fd == p.fd && fds[i + 2].revents != 0;
            if (!readable && t < p.deadlineNs) {
                still.push_back(p);
                continue;
            }
            const int leftMs = p.deadlineNs > t ? static_cast<int>((p.deadlineNs - t) / 1000000) + 1 : 0;
            const DetectResult r = detectSmcClient(p.fd, leftMs);
            if (r == DetectResult::smc) {
                queue(m_engine->serverHandshake(p.fd, p.peer));
            } else {
                plain(p, r);
            }
        }
        pending.swap(still);
    }
    for (const Pending& p : pending) ::close(p.fd);
}

}  // namespace smcr::core
