// smcr::Poller: level-triggered readiness for many sockets and listeners
// from one thread, like epoll. libsmcr sockets are not kernel fds, so event
// loops use this instead of epoll_ctl on them; fd() lets a foreign loop
// (epoll, Qt's QSocketNotifier) watch the whole poller: when it is readable,
// call wait(events, 0).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include <poll.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/result.h>
#include <smcr/socket.h>

namespace smcr {

namespace core {
class PollerImpl;
}

struct PollEvent {
    void* userData = nullptr;
    uint32_t events = 0;  // POLLIN, POLLOUT, POLLERR, POLLHUP, POLLRDHUP
};

class Poller {
public:
    Poller() = default;
    static Result<Poller> create(std::shared_ptr<Engine> engine = nullptr);

    // events: POLLIN and/or POLLOUT; errors and hang-ups are always reported.
    Status add(const Socket& socket, uint32_t events, void* userData);
    Status add(const Listener& listener, uint32_t events, void* userData);
    Status modify(const Socket& socket, uint32_t events, void* userData);
    Status remove(const Socket& socket);
    Status remove(const Listener& listener);

    // Waits up to timeoutMs (-1 = forever, 0 = just look); returns how many
    // entries of `out` were filled (0 on timeout or after wakeup()).
    Result<size_t> wait(std::span<PollEvent> out, int timeoutMs);
    void wakeup();  // thread-safe
    int fd() const;

    // A foreign loop that sleeps on fd() itself (libsmcr-preload.so's
    // epoll_wait and poll) brackets each of its waits, spinning and sleep,
    // with beginForeignWait() and endForeignWait() (thread-safe). Meanwhile
    // the engine leaves its completion channel to the waiting threads, as to
    // wait()'s: a completion wakes the sleeper through fd() directly, not
    // through a background thread that then writes fd() (two thread switches
    // per message). A loop that saw fd() readable calls fdReadable() before
    // wait(…, 0): it takes the channel's events, which keep fd() readable.
    void beginForeignWait();
    void endForeignWait();
    void fdReadable();

private:
    explicit Poller(std::shared_ptr<core::PollerImpl> impl) : m_impl(std::move(impl)) {}
    std::shared_ptr<core::PollerImpl> m_impl;
};

}  // namespace smcr
