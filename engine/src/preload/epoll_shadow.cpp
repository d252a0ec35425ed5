#include "epoll_shadow.h"

#include <cerrno>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include <smcr/poller.h>

#include "process.h"
#include "real_calls.h"

namespace smcr::preload {

namespace {

// The Poller's fd in the kernel set. Upper 16 bits set: never a user-space
// pointer on x86-64 or arm64, and far above any fd in data.fd.
constexpr uint64_t kPollerTag = 0xFFFF534D43520000ull;

constexpr uint32_t kDirections = EPOLLIN | EPOLLOUT;

struct Registration {
    int fd = -1;
    uint32_t events = 0;  // as the program asked (EPOLLIN, EPOLLET, ...)
    epoll_data_t data{};
    std::shared_ptr<Conn> conn;
    uint32_t suppressed = 0;  // EPOLLET: reported, not used since
    uint64_t rxSeen = 0;
    uint64_t txSeen = 0;
    bool inPoller = false;  // false: EPOLLONESHOT fired
};

struct Shadow {
    std::mutex mutex;
    std::optional<Poller> poller;
    std::shared_ptr<Engine> engine;  // the poller's (the connections' engine)
    pid_t pid = 0;
    std::map<int, Registration> regs;
};

std::mutex g_mutex;
std::unordered_map<int, std::shared_ptr<Shadow>>* g_shadows = new std::unordered_map<int, std::shared_ptr<Shadow>>;

std::shared_ptr<Shadow> findShadow(int epfd) {
    std::lock_guard lock(g_mutex);
    auto it = g_shadows->find(epfd);
    if (it == g_shadows->end() || it->second->pid != currentPid()) return nullptr;
    return it->second;
}

// The epoll fd is a plain one again: its poller leaves the kernel set and
// the shadow is forgotten (leaked: it may hold a parked engine's poller,
// which is not this process's to lock any more).
void detachShadow(int epfd, const std::shared_ptr<Shadow>& s) {
    (void)real().epoll_ctl(epfd, EPOLL_CTL_DEL, s->poller->fd(), nullptr);
    std::lock_guard lock(g_mutex);
    auto it = g_shadows->find(epfd);
    if (it != g_shadows->end() && it->second == s) {
        new std::shared_ptr<Shadow>(std::move(it->second));
        g_shadows->erase(it);
        fdTable().setKind(epfd, FdKind::none);
    }
}

// The shadow of epfd for connections of `engine`. One made for another
// engine (after fork(), this process started an engine of its own) is
// replaced while it holds no connection.
std::shared_ptr<Shadow> shadowFor(int epfd, const std::shared_ptr<Engine>& engine) {
    if (auto s = findShadow(epfd)) {
        if (s->engine == engine) return s;
        std::lock_guard lock(s->mutex);
        if (!s->regs.empty()) return nullptr;
        detachShadow(epfd, s);
    }
    if (!engine) return nullptr;
    auto poller = Poller::create(engine);
    if (!poller) return nullptr;
    auto shadow = std::make_shared<Shadow>();
    shadow->poller = std::move(poller.value());
    shadow->engine = engine;
    shadow->pid = currentPid();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kPollerTag;
    if (real().epoll_ctl(epfd, EPOLL_CTL_ADD, shadow->poller->fd(), &ev) != 0) return nullptr;
    std::lock_guard lock(g_mutex);
    (*g_shadows)[epfd] = shadow;
    fdTable().setKind(epfd, FdKind::epoll);
    return shadow;
}

uint32_t pollerInterest(const Registration& r) {
    return (r.events & ~r.suppressed) & kDirections;
}

void* userDataOf(int fd) {
    return reinterpret_cast<void*>(static_cast<intptr_t>(fd) + 1);
}

uint64_t nowMs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
}

// The SMC part of one epoll_wait: what is reportable now (caller: no lock).
int harvest(Shadow& s, epoll_event* out, int maxEvents) {
    std::lock_guard lock(s.mutex);
    Poller& poller = *s.poller;
    for (auto& [fd, r] : s.regs) {
        if (r.suppressed == 0 || !r.inPoller) continue;
        uint32_t back = 0;
        if ((r.suppressed & EPOLLIN) != 0 && r.conn->rxGen.load(std::memory_order_relaxed) != r.rxSeen) back |= EPOLLIN;
        if ((r.suppressed & EPOLLOUT) != 0 && r.conn->txGen.load(std::memory_order_relaxed) != r.txSeen)
            back |= EPOLLOUT;
        // Errors and hang-ups come back with the direction the program used.
        if (back != 0) back |= EPOLLERR | EPOLLHUP | EPOLLRDHUP;
        if ((r.suppressed & back) == 0) continue;
        r.suppressed &= ~back;
        (void)poller.modify(r.conn->sock, pollerInterest(r), userDataOf(fd));
    }
    thread_local std::vector<PollEvent> events;
    events.resize(static_cast<size_t>(maxEvents));
    auto n = poller.wait(events, 0);
    if (!n) return 0;
    int k = 0;
    for (size_t i = 0; i < n.value() && k < maxEvents; ++i) {
        const int fd = static_cast<int>(reinterpret_cast<intptr_t>(events[i].userData) - 1);
        auto it = s.regs.find(fd);
        if (it == s.regs.end()) continue;
        Registration& r = it->second;
        uint32_t bits = events[i].events & (r.events | EPOLLERR | EPOLLHUP);
        bits &= ~r.suppressed;
        if (bits == 0) continue;
        out[k].events = bits;
        out[k].data = r.data;
        ++k;
        if ((r.events & EPOLLONESHOT) != 0) {
            (void)poller.remove(r.conn->sock);
            r.inPoller = false;
        } else if ((r.events & EPOLLET) != 0) {
            r.suppressed |= bits;
            r.rxSeen = r.conn->rxGen.load(std::memory_order_relaxed);
            r.txSeen = r.conn->txGen.load(std::memory_order_relaxed);
            (void)poller.modify(r.conn->sock, pollerInterest(r), userDataOf(fd));
        }
    }
    return k;
}

std::mutex g_candidateMutex;
// fd -> (epfd -> the program's registration)
auto* g_candidateRegs = new std::unordered_map<int, std::map<int, epoll_event>>;

// Still the epoll set it was (not closed and reused since).
bool isEpollFd(int fd) {
    char link[64] = {};
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
    return n > 0 && std::string(link, static_cast<size_t>(n)) == "anon_inode:[eventpoll]";
}

}  // namespace

void noteCandidateCtl(int epfd, int op, int fd, const epoll_event* event) {
    std::lock_guard lock(g_candidateMutex);
    if (op == EPOLL_CTL_DEL) {
        auto it = g_candidateRegs->find(fd);
        if (it != g_candidateRegs->end()) it->second.erase(epfd);
        return;
    }
    if (event != nullptr) (*g_candidateRegs)[fd][epfd] = *event;
}

void candidateGone(int fd) {
    std::lock_guard lock(g_candidateMutex);
    g_candidateRegs->erase(fd);
}

void candidateBecameSmc(int fd) {
    std::map<int, epoll_event> regs;
    {
        std::lock_guard lock(g_candidateMutex);
        auto it = g_candidateRegs->find(fd);
        if (it == g_candidateRegs->end()) return;
        regs = std::move(it->second);
        g_candidateRegs->erase(it);
    }
    for (auto& [epfd, ev] : regs) {
        if (!isEpollFd(epfd)) continue;
        // The carrier leaves the kernel set (it would say writable forever
        // and never readable); the connection joins the shadow instead.
        (void)real().epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr);
        if (epollCtl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
            logLine("epoll: fd " + std::to_string(fd) + " lost from its epoll set");
    }
}

int epollCtl(int epfd, int op, int fd, epoll_event* event) {
    std::shared_ptr<Conn> conn = fdTable().conn(fd);
    if (!conn || !usableHere(*conn)) return real().epoll_ctl(epfd, op, fd, event);
    std::shared_ptr<Shadow> s = op == EPOLL_CTL_ADD ? shadowFor(epfd, conn->engine) : findShadow(epfd);
    if (!s) {
        logLine("epoll_ctl " + std::to_string(op) + " fd " + std::to_string(fd) + ": no shadow for epoll fd " +
                std::to_string(epfd));
        if (op == EPOLL_CTL_ADD) {
            errno = ENOMEM;
            return -1;
        }
        errno = ENOENT;
        return -1;
    }
    std::lock_guard lock(s->mutex);
    auto it = s->regs.find(fd);
    switch (op) {
        case EPOLL_CTL_ADD: {
            if (it != s->regs.end()) {
                logLine("epoll_ctl add fd " + std::to_string(fd) + ": already in the set");
                errno = EEXIST;
                return -1;
            }
            if (event == nullptr) {
                errno = EFAULT;
                return -1;
            }
            Registration r;
            r.fd = fd;
            r.events = event->events;
            r.data = event->data;
            r.conn = conn;
            if (auto added = s->poller->add(conn->sock, pollerInterest(r), userDataOf(fd)); !added) {
                logLine("epoll_ctl add fd " + std::to_string(fd) + ": " + added.error().toString());
                errno = EEXIST;  // the same connection under another fd (dup)
                return -1;
            }
            r.inPoller = true;
            s->regs.emplace(fd, std::move(r));
            std::lock_guard connLock(conn->epollMutex);
            conn->epollSets.insert(epfd);
            return 0;
        }
        case EPOLL_CTL_MOD: {
            if (it == s->regs.end()) {
                errno = ENOENT;
                return -1;
            }
            if (event == nullptr) {
                errno = EFAULT;
                return -1;
            }
            Registration& r = it->second;
            r.events = event->events;
            r.data = event->data;
            r.suppressed = 0;
            if (r.inPoller) {
                (void)s->poller->modify(conn->sock, pollerInterest(r), userDataOf(fd));
            } else if (s->poller->add(conn->sock, pollerInterest(r), userDataOf(fd))) {
                r.inPoller = true;
            }
            return 0;
        }
        case EPOLL_CTL_DEL: {
            if (it == s->regs.end()) {
                errno = ENOENT;
                return -1;
            }
            if (it->second.inPoller) (void)s->poller->remove(conn->sock);
            s->regs.erase(it);
            std::lock_guard connLock(conn->epollMutex);
            conn->epollSets.erase(epfd);
            return 0;
        }
        default:
            errno = EINVAL;
            return -1;
    }
}

int epollWait(int epfd, epoll_event* events, int maxEvents, int timeoutMs, const sigset_t* mask) {
    std::shared_ptr<Shadow> s = findShadow(epfd);
    if (s && !s->engine->runsIn(currentPid())) {
        // After fork(): waiting on connections is using them (the engine is
        // claimed); a set left with none (the program closed its copies for
        // a child to serve) waits in the kernel alone.
        bool holds = false;
        {
            std::lock_guard lock(s->mutex);
            holds = !s->regs.empty();
        }
        if (!holds || !s->engine->claim(currentPid())) {
            detachShadow(epfd, s);
            s = nullptr;
        }
    }
    if (!s || maxEvents <= 0) return real().epoll_pwait(epfd, events, maxEvents, timeoutMs, mask);
    // The completion channel is this thread's while it is in here
    // (Poller::beginForeignWait): a CDC wakes it, not a background thread first.
    ForeignWait foreignWait(*s->poller);
    const uint64_t deadline = timeoutMs < 0 ? 0 : nowMs() + static_cast<uint64_t>(timeoutMs);
    bool spun = timeoutMs == 0;
    for (;;) {
        int n = harvest(*s, events, maxEvents);
        if (n == 0 && !spun) {
            // Like libsmcr's own waits: poll a while before sleeping.
            spun = true;
            (void)spinUntilReady([&] { return (n = harvest(*s, events, maxEvents)) > 0; });
        }
        int waitMs = 0;
        if (n == 0 && timeoutMs != 0) {
            if (timeoutMs < 0) {
                waitMs = -1;
            } else {
                const uint64_t now = nowMs();
                waitMs = now >= deadline ? 0 : static_cast<int>(deadline - now);
            }
        }
        // With SMC hits the kernel set is still looked at (timeout 0), so
        // kernel fds are not starved by busy SMC sockets.
        int r = 0;
        bool bounded = false;
        if (maxEvents - n > 0) {
            timespec ts{};
            const timespec* sleep = n > 0 ? &ts : boundedSleep(waitMs, ts, &bounded);
            if (real().epoll_pwait2 != nullptr) {
                r = real().epoll_pwait2(epfd, events + n, maxEvents - n, sleep, mask);
            } else {
                const int ms = sleep == nullptr
                                   ? -1
                                   : static_cast<int>(sleep->tv_sec * 1000 + (sleep->tv_nsec + 999999) / 1000000);
                r = real().epoll_pwait(epfd, events + n, maxEvents - n, ms, mask);
            }
        }
        if (r < 0) return n > 0 ? n : -1;
        int k = n;
        bool tagged = false;
        for (int i = n; i < n + r; ++i) {
            if (events[i].data.u64 == kPollerTag) {
                tagged = true;
                continue;
            }
            events[k++] = events[i];
        }
        if (tagged) s->poller->fdReadable();
        if (k > 0) return k;
        if (!tagged && waitMs >= 0 && !bounded) return 0;  // timed out
    }
}

void epollRemoveFd(Conn& conn, int fd) {
    std::vector<int> sets;
    {
        std::lock_guard lock(conn.epollMutex);
        sets.assign(conn.epollSets.begin(), conn.epollSets.end());
    }
    for (int epfd : sets) {
        std::shared_ptr<Shadow> s = findShadow(epfd);
        if (!s) continue;
        std::lock_guard lock(s->mutex);
        auto it = s->regs.find(fd);
        if (it == s->regs.end() || it->second.conn.get() != &conn) continue;
        if (it->second.inPoller) (void)s->poller->remove(conn.sock);
        s->regs.erase(it);
        bool still = false;
        for (const auto& [otherFd, r] : s->regs) still = still || r.conn.get() == &conn;
        if (!still) {
            std::lock_guard connLock(conn.epollMutex);
            conn.epollSets.erase(epfd);
        }
    }
}

void epollForget(Conn& conn) {
    std::lock_guard lock(conn.epollMutex);
    conn.epollSets.clear();
}

void epollClosed(int epfd) {
    std::shared_ptr<Shadow> s;
    {
        std::lock_guard lock(g_mutex);
        auto it = g_shadows->find(epfd);
        if (it == g_shadows->end()) return;
        s = std::move(it->second);
        g_shadows->erase(it);
    }
    if (s->pid != currentPid()) {
        new std::shared_ptr<Shadow>(std::move(s));  // a parent's: not ours to destroy
        return;
    }
    std::lock_guard lock(s->mutex);
    for (auto& [fd, r] : s->regs) {
        std::lock_guard connLock(r.conn->epollMutex);
        r.conn->epollSets.erase(epfd);
    }
}

}  // namespace smcr::preload
