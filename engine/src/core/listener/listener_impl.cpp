#include "core/listener/listener_impl.h"

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/shell/socket_impl.h"

namespace smcr::core {

Result<std::shared_ptr<ListenerImpl>> ListenerImpl::listen(std::shared_ptr<EngineImpl> engine, const std::string& addr,
                                                           uint16_t port, int backlog) {
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
    // Non-blocking: the acceptor takes every waiting connection per wake-up.
    l->m_listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
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
    l->m_readyFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    l->m_kickFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->m_readyFd < 0 || l->m_kickFd < 0) return fail(makeSystemError("eventfd", errno));
    l->m_epollFd = ::epoll_create1(EPOLL_CLOEXEC);
    if (l->m_epollFd < 0) return fail(makeSystemError("epoll_create1", errno));
    for (int fd : {l->m_stopFd, l->m_kickFd, l->m_listenFd}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (::epoll_ctl(l->m_epollFd, EPOLL_CTL_ADD, fd, &ev) != 0) return fail(makeSystemError("epoll_ctl", errno));
    }
    l->m_callerEpollFd = ::epoll_create1(EPOLL_CLOEXEC);
    if (l->m_callerEpollFd < 0) return fail(makeSystemError("epoll_create1", errno));
    for (int fd : {l->m_listenFd, l->m_readyFd}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (::epoll_ctl(l->m_callerEpollFd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            return fail(makeSystemError("epoll_ctl", errno));
        }
    }
    // Named so per-thread tools (perf sched, top -H) tell them from the application's threads.
    l->m_acceptor = std::thread([raw = l.get()] {
        ::pthread_setname_np(::pthread_self(), "smcr-accept");
        raw->acceptorLoop();
    });
    l->m_hsWorker = std::thread([raw = l.get()] {
        ::pthread_setname_np(::pthread_self(), "smcr-handshake");
        raw->handshakeLoop();
    });
    return l;
}

ListenerImpl::~ListenerImpl() {
    close();
}

void ListenerImpl::close() {
    if (m_closed.exchange(true)) return;
    const uint64_t one = 1;
    for (int fd : {m_stopFd, m_readyFd}) {
        if (fd >= 0) [[maybe_unused]]
            const ssize_t n = ::write(fd, &one, sizeof one);
    }
    notifyReadyWatchers();  // a closed listener reads as POLLNVAL
    {
        std::lock_guard lock(m_mutex);
        m_hsCv.notify_all();
    }
    // The worker finishes a handshake in progress first (bounded by the CLC
    // and LLC waits), as the kernel's listen work does.
    if (m_acceptor.joinable()) m_acceptor.join();
    if (m_hsWorker.joinable()) m_hsWorker.join();
    // accept() callers in other threads wake on the eventfd and see
    // m_closed; their fds must stay open until they are out.
    for (int i = 0; i < 2000 && (m_sortingCallers.load() > 0 || m_waitingCallers.load() > 0); ++i) {
        [[maybe_unused]] const ssize_t n = ::write(m_readyFd, &one, sizeof one);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (int* fd : {&m_listenFd, &m_stopFd, &m_kickFd, &m_epollFd, &m_callerEpollFd, &m_readyFd}) {
        if (*fd >= 0) ::close(*fd);
        *fd = -1;
    }
    std::deque<std::shared_ptr<SocketImpl>> leftovers;
    {
        std::lock_guard lock(m_mutex);
        leftovers = m_ready.takeAll();
        m_readyCount.store(0);
        for (const HsJob& job : m_hsJobs) ::close(job.fd);
        m_hsJobs.clear();
    }
    if (m_engine) {
        std::lock_guard lock(m_engine->mutex());
        m_engine->wakeSleepersLocked();
    }
    leftovers.clear();  // closes them (outside the locks: close() takes the engine's)
}

void ListenerImpl::addReadyWatcher(int eventFd) {
    std::lock_guard lock(m_mutex);
    m_readyWatchers.push_back(eventFd);
}

void ListenerImpl::removeReadyWatcher(int eventFd) {
    std::lock_guard lock(m_mutex);
    std::erase(m_readyWatchers, eventFd);
}

void ListenerImpl::notifyReadyWatchers() {
    const uint64_t one = 1;
    std::lock_guard lock(m_mutex);
    for (int fd : m_readyWatchers) [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof one);
}

uint32_t ListenerImpl::readinessLocked() const {
    if (m_closed.load()) return POLLNVAL;
    return m_readyCount.load() == 0 ? 0 : POLLIN;
}

void ListenerImpl::queueReady(AcceptSource from, std::shared_ptr<SocketImpl> sock) {
    {
        std::lock_guard lock(m_mutex);
        m_ready.push(from, std::move(sock));
        m_readyCount.store(m_ready.size());
    }
    notifyReadyWatchers();
    // A caller that counted itself in before looking at the queue either saw
    // this socket or gets the eventfd.
    if (m_waitingCallers.load() > 0) {
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_readyFd, &one, sizeof one);
    }
    // Pollers watching this listener sleep in the engine.
    std::lock_guard lock(m_engine->mutex());
    m_engine->wakeSleepersLocked();
}

void ListenerImpl::waitReady(std::vector<pollfd>& fds, uint64_t deadlineNs) {
    m_waitingCallers.fetch_add(1);
    fds.push_back({m_readyFd, POLLIN, 0});
    bool queued = false;
    {
        std::lock_guard lock(m_mutex);
        queued = !m_ready.empty();
    }
    if (!queued && !m_closed.load()) {
        int timeoutMs = -1;
        if (deadlineNs != 0) {
            const uint64_t now = monotonicNs();
            timeoutMs = deadlineNs > now ? static_cast<int>((deadlineNs - now + 999999) / 1000000) : 0;
        }
        ::poll(fds.data(), fds.size(), timeoutMs);
        if (fds.back().revents != 0) {
            uint64_t value = 0;
            [[maybe_unused]] const ssize_t n = ::read(m_readyFd, &value, sizeof value);
        }
    }
    m_waitingCallers.fetch_sub(1);
}

bool ListenerImpl::waitListenOrReady(uint64_t deadlineNs) {
    m_waitingCallers.fetch_add(1);
    bool queued = false;
    {
        std::lock_guard lock(m_mutex);
        queued = !m_ready.empty();
    }
    bool listenReady = false;
    if (!queued && !m_closed.load()) {
        int timeoutMs = -1;
        if (deadlineNs != 0) {
            const uint64_t now = monotonicNs();
            timeoutMs = deadlineNs > now ? static_cast<int>((deadlineNs - now + 999999) / 1000000) : 0;
        }
        epoll_event events[2];
        const int n = ::epoll_wait(m_callerEpollFd, events, 2, timeoutMs);
        for (int i = 0; i < n; ++i) {
            if (events[i].data.fd == m_listenFd) {
                listenReady = true;
            } else {
                uint64_t value = 0;
                [[maybe_unused]] const ssize_t r = ::read(m_readyFd, &value, sizeof value);
            }
        }
    }
    m_waitingCallers.fetch_sub(1);
    return listenReady;
}

Result<std::shared_ptr<SocketImpl>> ListenerImpl::accept() {
    const int timeoutMs = m_timeoutMs.load();
    const uint64_t deadline = timeoutMs > 0 ? monotonicNs() + uint64_t(timeoutMs) * 1000000 : 0;
    if (m_engine->settings().get(SettingId::fastFallback) != 0) return acceptSorting(deadline);
    // Fast fallback off: the acceptor and the worker sort; wait for them.
    std::vector<pollfd> fds;
    for (;;) {
        if (auto sock = popReady()) return sock;
        if (m_closed.load()) return fail(Errc::closed, "listener closed");
        if (m_nonBlocking.load()) return fail(Errc::wouldBlock, "no connection to accept");
        if (deadline != 0 && monotonicNs() >= deadline) return fail(Errc::timedOut, "accept timed out");
        fds.clear();
        waitReady(fds, deadline);
    }
}

}  // namespace smcr::core
