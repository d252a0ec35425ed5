// Interposed socket lifecycle calls: socket, connect, listen, accept, close,
// shutdown, dup, fcntl, ioctl, setsockopt, sigaction; the library's
// constructor and destructor. Untracked fds pass straight to the C library.
#include <algorithm>
#include <cerrno>
#include <cstdarg>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "epoll_shadow.h"
#include "fd_table.h"
#include "process.h"
#include "real_calls.h"
#include "registry.h"
#include "signals.h"
#include "upgrade.h"

using namespace smcr::preload;

#define SMCR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kCloseRangeCloexec = 1 << 2;  // CLOSE_RANGE_CLOEXEC (linux/close_range.h)

bool isTcpSocket(int domain, int type, int protocol) {
    return (domain == AF_INET || domain == AF_INET6) && (type & 0xf) == SOCK_STREAM &&
           (protocol == 0 || protocol == IPPROTO_TCP);
}

// fork(): process.h beforeFork (the engine parks when it has open
// connections; the first process to use one of them runs it on).
void forkPrepare() {
    beforeFork();
    fdTable().mutex().lock();
}
void forkParent() {
    fdTable().mutex().unlock();
    afterForkParent();
}
void forkChild() {
    fdTable().mutex().unlock();
    afterForkChild();
}

__attribute__((constructor)) void preloadInit() {
    (void)real();
    loadConfig();
    refreshPid();
    ::pthread_atfork(forkPrepare, forkParent, forkChild);
    if (!config().settingsError.empty()) {
        const std::string text = "smcr: " + config().settingsError + "; SMC-R is off, every connection stays TCP\n";
        (void)real().write(STDERR_FILENO, text.data(), text.size());
    }
}

__attribute__((destructor)) void preloadFini() {
    // What closed connections still owe their peers goes before we do
    // (Engine::flushClosed): the program's close() returned as the kernel's
    // does, and the kernel would send the rest after the exit.
    if (auto engine = existingEngine()) (void)engine->flushClosed();
    writeStatsFile();
    removeControl();
}

// After a call that made newFd: whatever stale entry the number had is gone
// (its old fd was closed behind our back, e.g. by close_range).
void fresh(int newFd) {
    if (newFd >= 0 && fdTable().kind(newFd) != FdKind::none) forget(newFd);
}

}  // namespace

SMCR_EXPORT int socket(int domain, int type, int protocol) {
    const int fd = real().socket(domain, type, protocol);
    if (fd < 0) return fd;
    fresh(fd);
    if (isTcpSocket(domain, type, protocol)) {
        fdTable().setKind(fd, FdKind::candidate);
        ensureControl();
    }
    return fd;
}

SMCR_EXPORT int connect(int fd, const sockaddr* addr, socklen_t len) {
    if (fdTable().kind(fd) != FdKind::candidate) return real().connect(fd, addr, len);
    return connectUpgrading(fd, addr, len);
}

SMCR_EXPORT int listen(int fd, int backlog) {
    const int rc = real().listen(fd, backlog);
    if (rc == 0) listened(fd);
    return rc;
}

SMCR_EXPORT int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
    const int newFd = real().accept4(fd, addr, len, flags);
    if (newFd < 0 || fdTable().kind(fd) != FdKind::listener) {
        fresh(newFd);
        return newFd;
    }
    return acceptUpgrading(fd, newFd, flags);
}

SMCR_EXPORT int accept(int fd, sockaddr* addr, socklen_t* len) {
    const int newFd = real().accept(fd, addr, len);
    if (newFd < 0 || fdTable().kind(fd) != FdKind::listener) {
        fresh(newFd);
        return newFd;
    }
    return acceptUpgrading(fd, newFd, 0);
}

SMCR_EXPORT int close(int fd) {
    if (fdTable().kind(fd) != FdKind::none) forget(fd);
    return real().close(fd);
}

SMCR_EXPORT int shutdown(int fd, int how) {
    if (fdTable().kind(fd) != FdKind::smc) return real().shutdown(fd, how);
    auto conn = fdTable().conn(fd);
    if (!conn || !usableHere(*conn)) return real().shutdown(fd, how);
    if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
        errno = EINVAL;
        return -1;
    }
    // The carrier stays open: the peer's libsmcr watches it for hang-ups.
    if (auto s = conn->sock.shutdown(how); !s) {
        errno = s.error().code == smcr::Errc::closed ? ENOTCONN : EIO;
        return -1;
    }
    return 0;
}

SMCR_EXPORT int dup(int fd) {
    const int newFd = real().dup(fd);
    if (newFd >= 0) release(fdTable().copy(fd, newFd));
    return newFd;
}

SMCR_EXPORT int dup2(int fd, int newFd) {
    if (fd == newFd) return real().dup2(fd, newFd);
    const FdKind was = fdTable().kind(newFd);
    const int rc = real().dup2(fd, newFd);
    if (rc < 0) return rc;
    if (was != FdKind::none) forget(newFd);
    release(fdTable().copy(fd, newFd));
    return rc;
}

SMCR_EXPORT int dup3(int fd, int newFd, int flags) {
    const FdKind was = fdTable().kind(newFd);
    const int rc = real().dup3(fd, newFd, flags);
    if (rc < 0) return rc;
    if (was != FdKind::none) forget(newFd);
    release(fdTable().copy(fd, newFd));
    return rc;
}

SMCR_EXPORT int fcntl(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    // Every fcntl argument is an int, a long or a pointer: one word.
    const long arg = va_arg(ap, long);
    va_end(ap);
    const int rc = real().fcntl(fd, cmd, arg);
    if (rc < 0 || fdTable().kind(fd) == FdKind::none) return rc;
    if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
        release(fdTable().copy(fd, rc));
    } else if (cmd == F_SETFL && fdTable().kind(fd) == FdKind::smc) {
        if (auto conn = fdTable().conn(fd)) conn->nonBlocking = (arg & O_NONBLOCK) != 0;
    }
    return rc;
}

SMCR_EXPORT int fcntl64(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    const long arg = va_arg(ap, long);
    va_end(ap);
    return fcntl(fd, cmd, arg);
}

SMCR_EXPORT int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    if (fdTable().kind(fd) == FdKind::smc) {
        auto conn = fdTable().conn(fd);
        if (conn && usableHere(*conn)) {
            if (request == FIONREAD && arg != nullptr) {
                *static_cast<int*>(arg) = static_cast<int>(conn->sock.readableBytes());
                return 0;
            }
            if (request == FIONBIO && arg != nullptr) conn->nonBlocking = *static_cast<int*>(arg) != 0;
        }
    }
    return real().ioctl(fd, request, arg);
}

SMCR_EXPORT int setsockopt(int fd, int level, int name, const void* value, socklen_t len) {
    const int rc = real().setsockopt(fd, level, name, value, len);
    if (rc != 0 || level != IPPROTO_TCP || fdTable().kind(fd) != FdKind::smc) return rc;
    if (value == nullptr || len < static_cast<socklen_t>(sizeof(int))) return rc;
    auto conn = fdTable().conn(fd);
    if (!conn || !usableHere(*conn)) return rc;
    const bool on = *static_cast<const int*>(value) != 0;
    if (name == TCP_NODELAY) (void)conn->sock.setNoDelay(on);
    if (name == TCP_CORK) (void)conn->sock.setCork(on);
    return rc;
}

// The child holds its parent's listening sockets too: registered as its own
// before fork() returns in the parent (registry.h), so the parent may close
// its copies at once.
SMCR_EXPORT pid_t fork() {
    const pid_t pid = real().fork();
    if (pid > 0) {
        for (const ListenerInfo& l : fdTable().listeners()) registerListener(l.port, l.record, pid);
    }
    return pid;
}

// vfork's child borrows its parent's memory until it execs or exits, and the
// calls it makes meanwhile (close, dup2: a spawn's fd shuffle) would run the
// preload's bookkeeping on the parent's own tables and pid: closing an
// inherited SMC fd there would end the parent's connection. It is a fork
// here, as in other preload stacks (libvma); programs may only exec or
// _exit after vfork anyway.
SMCR_EXPORT pid_t vfork() {
    return fork();
}

// Every fd in the range that the preload tracks is forgotten first, as by
// close() (a number the kernel hands out again must not look like an SMC
// fd). The engine's own fds close too if they are in the range, as they
// would in a loop of close() calls: done before exec, or in a forked child,
// whose engine is its parent's anyway.
SMCR_EXPORT int close_range(unsigned first, unsigned last, int flags) {
    if ((flags & kCloseRangeCloexec) == 0) {
        rlimit lim{};
        unsigned top = FdTable::kMaxFd - 1;
        if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur <= top)
            top = static_cast<unsigned>(lim.rlim_cur > 0 ? lim.rlim_cur - 1 : 0);
        for (unsigned fd = first; fd <= std::min(last, top); ++fd) {
            if (fdTable().kind(static_cast<int>(fd)) != FdKind::none) forget(static_cast<int>(fd));
        }
    }
    if (real().close_range != nullptr) return real().close_range(first, last, flags);
    return static_cast<int>(real().syscall(SYS_close_range, first, last, flags));
}

SMCR_EXPORT int sigaction(int signo, const struct sigaction* act, struct sigaction* old) {
    return interposedSigaction(signo, act, old);
}
