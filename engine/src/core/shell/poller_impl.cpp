#include "core/shell/poller_impl.h"

#include <algorithm>
#include <cerrno>

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/listener/listener_impl.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

namespace {
constexpr uint32_t kAlways = POLLERR | POLLHUP | POLLNVAL;

uint32_t toEpoll(uint32_t events) {
    uint32_t e = 0;
    if (events & POLLIN) e |= EPOLLIN | EPOLLRDHUP;
    if (events & POLLOUT) e |= EPOLLOUT;
    return e;
}
uint32_t fromEpoll(uint32_t e) {
    uint32_t events = 0;
    if (e & EPOLLIN) events |= POLLIN;
    if (e & EPOLLOUT) events |= POLLOUT;
    if (e & EPOLLERR) events |= POLLERR;
    if (e & EPOLLHUP) events |= POLLHUP;
    if (e & EPOLLRDHUP) events |= POLLRDHUP | POLLIN;
    return events;
}
}  // namespace

Result<std::shared_ptr<PollerImpl>> PollerImpl::create(std::shared_ptr<EngineImpl> engine) {
    std::shared_ptr<PollerImpl> p(new PollerImpl());
    p->m_engine = std::move(engine);
    p->m_kernelEpollFd = ::epoll_create1(EPOLL_CLOEXEC);
    p->m_watchFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    p->m_notifyFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    p->m_foreignEpollFd = ::epoll_create1(EPOLL_CLOEXEC);
    if (p->m_kernelEpollFd < 0 || p->m_watchFd < 0 || p->m_notifyFd < 0 || p->m_foreignEpollFd < 0) {
        return fail(makeSystemError("epoll_create1/eventfd", errno));
    }
    for (int fd : {p->m_engine->channelFd(), p->m_watchFd, p->m_kernelEpollFd}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (::epoll_ctl(p->m_foreignEpollFd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            return fail(makeSystemError("epoll_ctl", errno));
        }
    }
    std::lock_guard lock(p->m_engine->mutex());
    p->m_engine->addPersistentWatcherLocked(p->m_watchFd);
    return p;
}

PollerImpl::~PollerImpl() {
    std::map<const void*, Entry> entries;
    {
        std::lock_guard lock(m_engine->mutex());
        m_engine->removePersistentWatcherLocked(m_watchFd);
        entries.swap(m_entries);
    }
    for (auto& [key, e] : entries) {
        if (e.listener) e.listener->removeReadyWatcher(m_notifyFd);
    }
    entries.clear();
    for (int fd : {m_kernelEpollFd, m_watchFd, m_notifyFd, m_foreignEpollFd}) {
        if (fd >= 0) ::close(fd);
    }
}

Status PollerImpl::add(std::shared_ptr<SocketImpl> sock, uint32_t events, void* userData) {
    if (!sock) return fail(Errc::invalidArgument, "poller: invalid socket");
    std::lock_guard lock(m_engine->mutex());
    const void* key = sock.get();
    if (m_entries.count(key) != 0) return fail(Errc::invalidArgument, "poller: socket already added");
    Entry e;
    e.kernel = !sock->smc();
    if (e.kernel) {
        epoll_event ev{};
        ev.events = toEpoll(events);
        ev.data.ptr = const_cast<void*>(key);
        if (::epoll_ctl(m_kernelEpollFd, EPOLL_CTL_ADD, sock->tcpFd(), &ev) != 0) {
            return fail(makeSystemError("epoll_ctl add", errno));
        }
        ++m_kernelCount;
        if (sock->hasPrefix()) {
            m_prefixed.insert(key);
            // A foreign event loop learns of them through fd().
            const uint64_t one = 1;
            [[maybe_unused]] const ssize_t w = ::write(m_watchFd, &one, sizeof one);
        }
    } else if (++m_smcCount == 1) {
        // A wait in progress sleeps outside the engine: it must move in.
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t w = ::write(m_notifyFd, &one, sizeof one);
    }
    e.sock = std::move(sock);
    e.events = events;
    e.userData = userData;
    m_entries[key] = std::move(e);
    return {};
}

Status PollerImpl::add(std::shared_ptr<ListenerImpl> listener, uint32_t events, void* userData) {
    if (!listener) return fail(Errc::invalidArgument, "poller: invalid listener");
    ListenerImpl* raw = listener.get();
    {
        std::lock_guard lock(m_engine->mutex());
        const void* key = raw;
        if (m_entries.count(key) != 0) return fail(Errc::invalidArgument, "poller: listener already added");
        Entry e;
        e.listener = std::move(listener);
        e.events = events;
        e.userData = userData;
        m_entries[key] = std::move(e);
    }
    // Outside the engine lock: the listener takes its own lock to write it.
    raw->addReadyWatcher(m_notifyFd);
    return {};
}

Status PollerImpl::modify(const void* target, uint32_t events, void* userData) {
    std::lock_guard lock(m_engine->mutex());
    auto it = m_entries.find(target);
    if (it == m_entries.end()) return fail(Errc::notFound, "poller: not added");
    it->second.events = events;
    it->second.userData = userData;
    if (it->second.kernel) {
        epoll_event ev{};
        ev.events = toEpoll(events);
        ev.data.ptr = const_cast<void*>(target);
        ::epoll_ctl(m_kernelEpollFd, EPOLL_CTL_MOD, it->second.sock->tcpFd(), &ev);
    }
    return {};
}

Status PollerImpl::remove(const void* target) {
    std::shared_ptr<ListenerImpl> listener;
    {
        std::lock_guard lock(m_engine->mutex());
        auto it = m_entries.find(target);
        if (it == m_entries.end()) return fail(Errc::notFound, "poller: not added");
        if (it->second.kernel) {
            ::epoll_ctl(m_kernelEpollFd, EPOLL_CTL_DEL, it->second.sock->tcpFd(), nullptr);
            --m_kernelCount;
        } else if (it->second.sock) {
            --m_smcCount;
        }
        listener = std::move(it->second.listener);
        m_prefixed.erase(target);
        m_entries.erase(it);
    }
    if (listener) listener->removeReadyWatcher(m_notifyFd);
    return {};
}

size_t PollerImpl::scanLocked(std::span<PollerEventImpl> out, bool userSpace) {
    size_t n = 0;
    // Level-triggered with more ready entries than room in `out`: start after
    // the entry reported last and wrap around, so every entry gets its turn
    // (epoll rotates its ready list the same way). Starting from the front
    // each time would serve the same first entries forever while the rest of
    // a thousand connections starve.
    const auto from = m_entries.upper_bound(m_scanAfter);
    auto visit = [&](const void* key, const Entry& e) {
        if (e.kernel) return;
        uint32_t ready = e.sock ? e.sock->readinessLocked() : e.listener->readinessLocked();
        ready &= e.events | kAlways;
        if (ready != 0) {
            out[n++] = {e.userData, ready};
            m_scanAfter = key;
        }
    };
    if (userSpace) {
        for (auto it = from; it != m_entries.end() && n < out.size(); ++it) visit(it->first, it->second);
        for (auto it = m_entries.begin(); it != from && n < out.size(); ++it) visit(it->first, it->second);
    }
    // Fallback sockets with held first bytes: readable whatever their
    // kernel socket says (the bytes left it when the listener sorted them).
    const size_t heldFrom = n;
    for (auto pit = m_prefixed.begin(); pit != m_prefixed.end() && n < out.size();) {
        auto it = m_entries.find(*pit);
        if (it == m_entries.end() || !it->second.sock->hasPrefix()) {
            pit = m_prefixed.erase(pit);
            continue;
        }
        const uint32_t ready = it->second.sock->readinessLocked() & (it->second.events | kAlways);
        if (ready != 0) out[n++] = {it->second.userData, ready};
        ++pit;
    }
    if (n > heldFrom) {
        // Level-triggered for a foreign event loop too: fd() stays readable
        // while the bytes are held.
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t w = ::write(m_watchFd, &one, sizeof one);
    }
    const size_t heldTo = n;
    if (m_kernelCount > 0 && n < out.size()) {
        epoll_event evs[64];
        const int k = ::epoll_wait(m_kernelEpollFd, evs, static_cast<int>(std::min<size_t>(64, out.size() - n)), 0);
        for (int i = 0; i < k; ++i) {
            auto it = m_entries.find(evs[i].data.ptr);
            if (it == m_entries.end()) continue;
            bool reported = false;  // already above, for its held bytes
            for (size_t j = heldFrom; j < heldTo && !reported; ++j) reported = out[j].userData == it->second.userData;
            if (reported && m_prefixed.count(it->first) != 0) continue;
            out[n++] = {it->second.userData, fromEpoll(evs[i].events) & (it->second.events | kAlways)};
        }
    }
    return n;
}

Result<size_t> PollerImpl::wait(std::span<PollerEventImpl> out, int timeoutMs) {
    if (out.empty()) return fail(Errc::invalidArgument, "poller: no room for events");
    uint64_t value = 0;
    [[maybe_unused]] const ssize_t r = ::read(m_watchFd, &value, sizeof value);
    std::unique_lock lock(m_engine->mutex());
    // Read above: the next change writes it again (EngineImpl::wakeSleepersLocked).
    m_engine->rearmPersistentWatcherLocked(m_watchFd);
    const bool engineWatched = m_smcCount > 0;
    if (engineWatched) {
        m_engine->progressLocked();
        // A busy event loop polls here and seldom sleeps: the background
        // thread must not take the channel meanwhile, or every completion
        // wakes it beside the loop (a kv server at -P 16: ~900 wake-ups and
        // as many lock hand-overs a second, on the loop's CPU).
        m_engine->noteAppPollLocked();
    }
    size_t n = scanLocked(out);
    if (n > 0 || m_wakeup) {
        m_wakeup = false;
        return n;
    }
    if (!engineWatched && timeoutMs != 0) {
        const uint64_t deadline = timeoutMs < 0 ? 0 : monotonicNs() + uint64_t(timeoutMs) * 1000000 + 1;
        if (const std::optional<size_t> got = waitOutsideEngineLocked(lock, out, deadline)) {
            m_wakeup = false;
            return *got;
        }
        const uint64_t now = monotonicNs();
        if (deadline != 0 && now >= deadline) return size_t{0};
        timeoutMs = deadline == 0 ? -1 : std::max(1, static_cast<int>((deadline - now) / 1000000));
    }
    if (timeoutMs == 0) {
        // Leave the CQs armed so fd() fires on the next completion.
        while (!m_engine->armLocked()) {
            m_engine->progressLocked();
            if ((n = scanLocked(out)) > 0) return n;
        }
        return size_t{0};
    }
    const uint64_t deadline = timeoutMs < 0 ? 0 : monotonicNs() + uint64_t(timeoutMs) * 1000000 + 1;
    const int extra[] = {m_kernelEpollFd};
    // The scan above saw every change announced so far; until the engine
    // announces another (EngineImpl::changeGenLocked), the sockets' readiness
    // cannot have risen and only the kernel sockets need a look. With
    // hundreds of connections the scan is most of a waiter's work otherwise:
    // waitUntil evaluates this after every poll of its spin and each wake.
    uint64_t seenGen = m_engine->changeGenLocked();
    m_engine->waitUntil(
        lock,
        [&] {
            const uint64_t gen = m_engine->changeGenLocked();
            n = scanLocked(out, gen != seenGen);
            seenGen = gen;
            return n > 0 || m_wakeup;
        },
        deadline, extra);
    m_wakeup = false;
    return n;
}

std::optional<size_t> PollerImpl::waitOutsideEngineLocked(std::unique_lock<std::mutex>& lock,
                                                          std::span<PollerEventImpl> out, uint64_t deadlineNs) {
    for (;;) {
        const uint64_t now = monotonicNs();
        if (deadlineNs != 0 && now >= deadlineNs) return size_t{0};
        timespec timeout{};
        if (deadlineNs != 0) {
            const uint64_t left = deadlineNs - now;
            timeout.tv_sec = static_cast<time_t>(left / 1000000000ull);
            timeout.tv_nsec = static_cast<long>(left % 1000000000ull);
        }
        lock.unlock();
        pollfd fds[] = {{m_notifyFd, POLLIN, 0}, {m_kernelEpollFd, POLLIN, 0}};
        ::ppoll(fds, std::size(fds), deadlineNs != 0 ? &timeout : nullptr, nullptr);
        uint64_t value = 0;
        if (fds[0].revents != 0) [[maybe_unused]]
            const ssize_t r = ::read(m_notifyFd, &value, sizeof value);
        lock.lock();
        const size_t n = scanLocked(out);
        if (n > 0 || m_wakeup) return n;
        if (m_smcCount > 0) return std::nullopt;  // added by another thread (add() wrote m_notifyFd)
    }
}

void PollerImpl::beginForeignWait() {
    std::lock_guard lock(m_engine->mutex());
    m_engine->foreignWaitBeginLocked();
}

void PollerImpl::endForeignWait() {
    std::lock_guard lock(m_engine->mutex());
    m_engine->foreignWaitEndLocked();
}

void PollerImpl::fdReadable() {
    std::lock_guard lock(m_engine->mutex());
    m_engine->consumeChannelEventsLocked();
}

void PollerImpl::wakeup() {
    std::lock_guard lock(m_engine->mutex());
    m_wakeup = true;
    m_engine->wakeSleepersLocked();
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(m_notifyFd, &one, sizeof one);
}

}  // namespace smcr::core
