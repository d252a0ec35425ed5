// Interposed readiness calls. Without an SMC carrier among the fds they pass
// straight through; with one, poll/select go through pollMixed and epoll
// through its shadow (epoll_shadow.h).
#include <cerrno>
#include <vector>

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "epoll_shadow.h"
#include "fd_table.h"
#include "real_calls.h"
#include "smc_io.h"

using namespace smcr::preload;

#define SMCR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

int toMs(const timespec* ts) {
    if (ts == nullptr) return -1;
    return static_cast<int>(ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000);
}

bool selectHasSmc(int nfds, const fd_set* r, const fd_set* w, const fd_set* e) {
    for (int fd = 0; fd < nfds && fd < FD_SETSIZE; ++fd) {
        if (fdTable().kind(fd) != FdKind::smc) continue;
        if ((r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) || (e && FD_ISSET(fd, e))) return true;
    }
    return false;
}

// select(2) as poll(2): same readiness, results written back as sets.
int selectByPoll(int nfds, fd_set* r, fd_set* w, fd_set* e, int timeoutMs, const sigset_t* mask) {
    std::vector<pollfd> fds;
    for (int fd = 0; fd < nfds && fd < FD_SETSIZE; ++fd) {
        short events = 0;
        if (r && FD_ISSET(fd, r)) events |= POLLIN;
        if (w && FD_ISSET(fd, w)) events |= POLLOUT;
        if (e && FD_ISSET(fd, e)) events |= POLLPRI;
        if (events != 0) fds.push_back(pollfd{fd, events, 0});
    }
    const int n = pollMixed(fds.data(), fds.size(), timeoutMs, mask);
    if (n < 0) return n;
    if (r) FD_ZERO(r);
    if (w) FD_ZERO(w);
    if (e) FD_ZERO(e);
    int count = 0;
    for (const pollfd& p : fds) {
        if (p.revents & POLLNVAL) {
            errno = EBADF;
            return -1;
        }
        if (r && (p.events & POLLIN) && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            FD_SET(p.fd, r);
            ++count;
        }
        if (w && (p.events & POLLOUT) && (p.revents & (POLLOUT | POLLERR))) {
            FD_SET(p.fd, w);
            ++count;
        }
        if (e && (p.events & POLLPRI) && (p.revents & POLLPRI)) {
            FD_SET(p.fd, e);
            ++count;
        }
    }
    return count;
}

}  // namespace

// glibc declares poll's array write-only (__attr_access), which it is not:
// the events are read. GCC then warns that we read it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

SMCR_EXPORT int poll(pollfd* fds, nfds_t nfds, int timeoutMs) {
    if (!anySmc(fds, nfds)) return real().poll(fds, nfds, timeoutMs);
    return pollMixed(fds, nfds, timeoutMs, nullptr);
}

SMCR_EXPORT int __poll_chk(pollfd* fds, nfds_t nfds, int timeoutMs, size_t fdslen) {
    (void)fdslen;
    return poll(fds, nfds, timeoutMs);
}

SMCR_EXPORT int ppoll(pollfd* fds, nfds_t nfds, const timespec* timeout, const sigset_t* mask) {
    if (!anySmc(fds, nfds)) return real().ppoll(fds, nfds, timeout, mask);
    return pollMixed(fds, nfds, toMs(timeout), mask);
}

#pragma GCC diagnostic pop

SMCR_EXPORT int select(int nfds, fd_set* r, fd_set* w, fd_set* e, timeval* timeout) {
    if (!selectHasSmc(nfds, r, w, e)) return real().select(nfds, r, w, e, timeout);
    const int ms = timeout == nullptr ? -1 : static_cast<int>(timeout->tv_sec * 1000 + (timeout->tv_usec + 999) / 1000);
    return selectByPoll(nfds, r, w, e, ms, nullptr);
}

SMCR_EXPORT int pselect(int nfds, fd_set* r, fd_set* w, fd_set* e, const timespec* timeout, const sigset_t* mask) {
    if (!selectHasSmc(nfds, r, w, e)) return real().pselect(nfds, r, w, e, timeout, mask);
    return selectByPoll(nfds, r, w, e, toMs(timeout), mask);
}

SMCR_EXPORT int epoll_ctl(int epfd, int op, int fd, epoll_event* event) {
    const FdKind kind = fdTable().kind(fd);
    if (kind == FdKind::smc) return epollCtl(epfd, op, fd, event);
    const int rc = real().epoll_ctl(epfd, op, fd, event);
    if (rc == 0 && kind == FdKind::candidate) noteCandidateCtl(epfd, op, fd, event);
    return rc;
}

SMCR_EXPORT int epoll_wait(int epfd, epoll_event* events, int maxEvents, int timeoutMs) {
    if (fdTable().kind(epfd) != FdKind::epoll) return real().epoll_wait(epfd, events, maxEvents, timeoutMs);
    return epollWait(epfd, events, maxEvents, timeoutMs, nullptr);
}

SMCR_EXPORT int epoll_pwait(int epfd, epoll_event* events, int maxEvents, int timeoutMs, const sigset_t* mask) {
    if (fdTable().kind(epfd) != FdKind::epoll) return real().epoll_pwait(epfd, events, maxEvents, timeoutMs, mask);
    return epollWait(epfd, events, maxEvents, timeoutMs, mask);
}
