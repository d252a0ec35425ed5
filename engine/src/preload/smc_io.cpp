#include "smc_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>
#include <vector>

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/poller.h>

#include "process.h"
#include "real_calls.h"
#include "signals.h"

namespace smcr::preload {

namespace {

uint64_t nowMs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
}

// One Poller per thread, for the waits of poll(), select() and blocking calls.
struct ThreadPoller {
    std::optional<Poller> poller;
    pid_t pid = 0;
    Engine* engine = nullptr;
};
thread_local ThreadPoller t_poller;

Poller* threadPoller() {
    auto engine = existingEngine();
    if (!engine) return nullptr;
    if (!t_poller.poller || t_poller.pid != currentPid() || t_poller.engine != engine.get()) {
        if (t_poller.pid != currentPid()) {
            // The parent's poller belongs to an engine this child cannot use.
            new (&t_poller.poller) std::optional<Poller>();
        }
        auto made = Poller::create(engine);
        if (!made) return nullptr;
        t_poller.poller = std::move(made.value());
        t_poller.pid = currentPid();
        t_poller.engine = engine.get();
    }
    return &*t_poller.poller;
}

// Sleeps until conn is ready for events; 0 ready, -1 with errno (EINTR).
// A blocking call's wait: libsmcr's own (it spins lab.busy_poll_us, then
// sleeps on the completion channel: one wake-up), in slices, so that a
// signal without SA_RESTART ends it with EINTR and pthread_cancel is seen
// between slices (cancellation stays off inside libsmcr, whose locks and
// waiter counts must not be unwound).
int waitFor(Conn& conn, short events) {
    constexpr int kSliceMs = 20;
    const uint32_t wanted = static_cast<uint32_t>(events) | POLLERR | POLLHUP;
    for (;;) {
        // Another thread's fork() parked the engine meanwhile: this wait
        // uses the connection, so it claims the engine (or fails with EIO
        // when the child took it first) before it goes on waiting inside.
        if (!usableHere(conn)) {
            errno = EIO;
            return -1;
        }
        const uint64_t signals = interruptingSignals();
        int cancelState = 0;
        ::pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancelState);
        auto r = conn.sock.waitReady(static_cast<uint32_t>(events), kSliceMs);
        ::pthread_setcancelstate(cancelState, nullptr);
        if (!r) {
            errno = EIO;
            return -1;
        }
        if ((r.value() & wanted) != 0) return 0;
        if (interruptingSignals() != signals) {
            errno = EINTR;
            return -1;
        }
        ::pthread_testcancel();
    }
}

bool dontWait(const Conn& conn, int flags) {
    return conn.nonBlocking.load(std::memory_order_relaxed) || (flags & MSG_DONTWAIT) != 0;
}

}  // namespace

int errnoOf(const Error& error, bool sending) {
    switch (error.code) {
        case Errc::wouldBlock:
            return EAGAIN;
        case Errc::timedOut:
            return sending ? EAGAIN : EAGAIN;
        case Errc::connectionRefused:
            return ECONNREFUSED;
        case Errc::connectionReset:
            return sending ? EPIPE : ECONNRESET;
        case Errc::connectionAborted:
            return ECONNABORTED;
        case Errc::closed:
            return sending ? EPIPE : 0;
        case Errc::invalidArgument:
            return EINVAL;
        case Errc::outOfResources:
            return ENOBUFS;
        case Errc::systemError:
            return error.sysErrno != 0 ? error.sysErrno : EIO;
        default:
            return EIO;
    }
}

ssize_t smcRecv(Conn& conn, void* data, size_t len, int flags) {
    conn.rxGen.fetch_add(1, std::memory_order_relaxed);
    const bool peek = (flags & MSG_PEEK) != 0;
    const bool waitAll = (flags & MSG_WAITALL) != 0 && !peek;
    auto* bytes = static_cast<uint8_t*>(data);
    size_t got = 0;
    for (;;) {
        auto r = conn.sock.recv(bytes + got, len - got, peek ? MSG_PEEK : 0);
        if (r) {
            if (r.value() == 0) break;  // end of stream
            got += r.value();
            if (!waitAll || got == len) break;
            continue;
        }
        if (r.error().code != Errc::wouldBlock) {
            if (got > 0) break;
            const int err = errnoOf(r.error(), false);
            if (err == 0) return 0;  // after shutdown(SHUT_RD): end of stream
            errno = err;
            return -1;
        }
        if (got > 0 && !waitAll) break;
        if (dontWait(conn, flags)) {
            if (got > 0) break;
            errno = EAGAIN;
            return -1;
        }
        if (waitFor(conn, POLLIN) != 0) {
            if (got > 0) break;
            return -1;
        }
    }
    if (!peek) counters().smcRxBytes.fetch_add(got, std::memory_order_relaxed);
    return static_cast<ssize_t>(got);
}

ssize_t smcSend(Conn& conn, const void* data, size_t len, int flags) {
    conn.txGen.fetch_add(1, std::memory_order_relaxed);
    const auto* bytes = static_cast<const uint8_t*>(data);
    size_t sent = 0;
    const int passFlags = flags & MSG_MORE;
    while (sent < len || len == 0) {
        auto r = conn.sock.send(bytes + sent, len - sent, passFlags);
        if (r) {
            sent += r.value();
            if (len == 0 || sent == len) break;
            continue;
        }
        if (r.error().code != Errc::wouldBlock) {
            if (sent > 0) break;
            const int err = errnoOf(r.error(), true);
            if (err == EPIPE && (flags & MSG_NOSIGNAL) == 0) ::raise(SIGPIPE);
            errno = err;
            return -1;
        }
        if (dontWait(conn, flags)) {
            if (sent > 0) break;
            errno = EAGAIN;
            return -1;
        }
        if (waitFor(conn, POLLOUT) != 0) {
            if (sent > 0) break;
            return -1;
        }
    }
    counters().smcTxBytes.fetch_add(sent, std::memory_order_relaxed);
    return static_cast<ssize_t>(sent);
}

ssize_t smcRecvIov(Conn& conn, const iovec* iov, int iovcnt, int flags) {
    if (iovcnt == 1) return smcRecv(conn, iov[0].iov_base, iov[0].iov_len, flags);
    size_t total = 0;
    for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
    // One recv into a bounce buffer, then scattered: a peek of several
    // buffers must see one consistent prefix of the stream.
    std::vector<uint8_t> buffer(std::min<size_t>(total, 1 << 20));
    const ssize_t n = smcRecv(conn, buffer.data(), buffer.size(), flags);
    if (n <= 0) return n;
    size_t at = 0;
    for (int i = 0; i < iovcnt && at < static_cast<size_t>(n); ++i) {
        const size_t piece = std::min(iov[i].iov_len, static_cast<size_t>(n) - at);
        std::memcpy(iov[i].iov_base, buffer.data() + at, piece);
        at += piece;
    }
    return n;
}

ssize_t smcSendIov(Conn& conn, const iovec* iov, int iovcnt, int flags) {
    if (iovcnt == 1) return smcSend(conn, iov[0].iov_base, iov[0].iov_len, flags);
    size_t total = 0;
    for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
    // Gathered into one send: headers and body leave as one push, as the
    // kernel's tcp_sendmsg copies all iovecs before it pushes.
    std::vector<uint8_t> buffer;
    buffer.reserve(total);
    for (int i = 0; i < iovcnt; ++i) {
        const auto* b = static_cast<const uint8_t*>(iov[i].iov_base);
        buffer.insert(buffer.end(), b, b + iov[i].iov_len);
    }
    return smcSend(conn, buffer.data(), buffer.size(), flags);
}

ssize_t smcSendfile(Conn& conn, int inFd, off_t* offset, size_t count) {
    conn.txGen.fetch_add(1, std::memory_order_relaxed);
    off_t at = 0;
    if (offset != nullptr) {
        at = *offset;
    } else {
        at = ::lseek(inFd, 0, SEEK_CUR);
        if (at < 0) return -1;
    }
    size_t done = 0;
    while (done < count) {
        auto r = conn.sock.sendfile(inFd, at + static_cast<off_t>(done), count - done);
        if (r) {
            if (r.value() == 0) break;  // end of file
            done += r.value();
            continue;
        }
        if (r.error().code != Errc::wouldBlock) {
            if (done > 0) break;
            const int err = errnoOf(r.error(), true);
            if (err == EPIPE) ::raise(SIGPIPE);
            errno = err;
            return -1;
        }
        if (done > 0 || conn.nonBlocking.load(std::memory_order_relaxed)) {
            if (done > 0) break;
            errno = EAGAIN;
            return -1;
        }
        if (waitFor(conn, POLLOUT) != 0) {
            if (done > 0) break;
            return -1;
        }
    }
    if (offset != nullptr) {
        *offset = at + static_cast<off_t>(done);
    } else {
        ::lseek(inFd, at + static_cast<off_t>(done), SEEK_SET);
    }
    counters().smcTxBytes.fetch_add(done, std::memory_order_relaxed);
    return static_cast<ssize_t>(done);
}

bool anySmc(const pollfd* fds, nfds_t nfds) {
    for (nfds_t i = 0; i < nfds; ++i) {
        if (fdTable().kind(fds[i].fd) == FdKind::smc) return true;
    }
    return false;
}

int pollMixed(pollfd* fds, nfds_t nfds, int timeoutMs, const sigset_t* mask) {
    // After fork(), polling a connection is using it: its engine is claimed
    // (and becomes this process's) before the thread's poller is chosen.
    for (nfds_t i = 0; i < nfds; ++i) {
        if (fdTable().kind(fds[i].fd) != FdKind::smc) continue;
        if (auto c = fdTable().conn(fds[i].fd)) (void)usableHere(*c);
    }
    Poller* poller = threadPoller();
    if (poller == nullptr) {
        // No engine runs here: every SMC fd is another process's (fork), and
        // reports POLLERR beside whatever the kernel fds say now.
        std::vector<pollfd> kernel(fds, fds + nfds);
        int dead = 0;
        for (nfds_t i = 0; i < nfds; ++i) {
            if (fdTable().kind(fds[i].fd) != FdKind::smc) continue;
            kernel[i].fd = -1;
            ++dead;
        }
        timespec zero{};
        const int r = mask ? real().ppoll(kernel.data(), nfds, dead > 0 ? &zero : nullptr, mask)
                           : real().poll(kernel.data(), nfds, dead > 0 ? 0 : timeoutMs);
        if (r < 0) return r;
        for (nfds_t i = 0; i < nfds; ++i) {
            fds[i].revents = kernel[i].fd < 0 && fds[i].fd >= 0 ? short{POLLERR} : kernel[i].revents;
        }
        return r + dead;
    }
    std::vector<std::shared_ptr<Conn>> conns(nfds);
    std::vector<pollfd> kernel(fds, fds + nfds);
    std::vector<bool> dead(nfds, false);
    size_t smcCount = 0;
    for (nfds_t i = 0; i < nfds; ++i) {
        if (fdTable().kind(fds[i].fd) != FdKind::smc) continue;
        auto c = fdTable().conn(fds[i].fd);
        if (c && !usableHere(*c)) {
            // Another process took it after fork(): its I/O says EIO, so
            // the program learns at once instead of sleeping on it.
            dead[i] = true;
            kernel[i].fd = -1;
            continue;
        }
        if (!c) continue;
        // The same connection twice (dup'ed fds) is watched once.
        const uint32_t want = static_cast<uint32_t>(fds[i].events) & (POLLIN | POLLOUT);
        if (!poller->add(c->sock, want, reinterpret_cast<void*>(static_cast<uintptr_t>(i) + 1))) continue;
        conns[i] = std::move(c);
        kernel[i].fd = -1;  // the kernel ignores it
        ++smcCount;
    }
    kernel.push_back(pollfd{poller->fd(), POLLIN, 0});
    std::vector<PollEvent> events(std::max<size_t>(smcCount, 1));
    const uint64_t deadline = timeoutMs < 0 ? 0 : nowMs() + static_cast<uint64_t>(timeoutMs);
    int result = 0;
    ForeignWait foreignWait(*poller);  // the completion channel is ours meanwhile
    for (;;) {
        int ready = 0;
        for (nfds_t i = 0; i < nfds; ++i) fds[i].revents = 0;
        auto n = poller->wait(events, 0);
        if (n) {
            for (size_t k = 0; k < n.value(); ++k) {
                const size_t i = reinterpret_cast<uintptr_t>(events[k].userData) - 1;
                const uint32_t asked = static_cast<uint32_t>(fds[i].events) | POLLERR | POLLHUP | POLLNVAL;
                fds[i].revents = static_cast<short>(events[k].events & asked);
                if (fds[i].revents != 0) ++ready;
            }
        }
        int waitMs = 0;
        if (ready == 0 && timeoutMs != 0) {
            if (timeoutMs < 0) {
                waitMs = -1;
            } else {
                const uint64_t now = nowMs();
                waitMs = now >= deadline ? 0 : static_cast<int>(deadline - now);
            }
        }
        timespec ts{};
        bool bounded = false;
        const int r = real().ppoll(kernel.data(), kernel.size(), boundedSleep(waitMs, ts, &bounded), mask);
        if (r > 0 && kernel.back().revents != 0) poller->fdReadable();
        if (r < 0) {
            if (ready > 0) {
                result = ready;
                break;
            }
            result = -1;  // poll(2) is never restarted after a signal (signal(7))
            break;
        }
        for (nfds_t i = 0; i < nfds; ++i) {
            if (conns[i]) continue;
            fds[i].revents = dead[i] ? short{POLLERR} : kernel[i].revents;
            if (fds[i].revents != 0) ++ready;
        }
        if (ready > 0) {
            result = ready;
            break;
        }
        if (r == 0 && waitMs >= 0 && !bounded) {
            result = 0;  // timed out
            break;
        }
    }
    const int saved = errno;
    for (nfds_t i = 0; i < nfds; ++i) {
        if (conns[i]) (void)poller->remove(conns[i]->sock);
    }
    errno = saved;
    return result;
}

}  // namespace smcr::preload
