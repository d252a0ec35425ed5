// The C library's own socket calls, found with dlsym(RTLD_NEXT): every
// interposer that passes a call on (and libsmcr itself, whose calls to
// ::recv or ::poll land in our interposers first) ends in one of these.
#pragma once

#include <csignal>

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

namespace smcr::preload {

struct RealCalls {
    int (*socket)(int, int, int);
    int (*connect)(int, const sockaddr*, socklen_t);
    int (*listen)(int, int);
    int (*accept)(int, sockaddr*, socklen_t*);
    int (*accept4)(int, sockaddr*, socklen_t*, int);
    int (*close)(int);
    int (*shutdown)(int, int);
    ssize_t (*read)(int, void*, size_t);
    ssize_t (*write)(int, const void*, size_t);
    ssize_t (*readv)(int, const iovec*, int);
    ssize_t (*writev)(int, const iovec*, int);
    ssize_t (*recv)(int, void*, size_t, int);
    ssize_t (*send)(int, const void*, size_t, int);
    ssize_t (*recvfrom)(int, void*, size_t, int, sockaddr*, socklen_t*);
    ssize_t (*sendto)(int, const void*, size_t, int, const sockaddr*, socklen_t);
    ssize_t (*recvmsg)(int, msghdr*, int);
    ssize_t (*sendmsg)(int, const msghdr*, int);
    ssize_t (*sendfile)(int, int, off_t*, size_t);
    int (*fcntl)(int, int, ...);
    int (*ioctl)(int, unsigned long, ...);
    int (*setsockopt)(int, int, int, const void*, socklen_t);
    int (*dup)(int);
    int (*dup2)(int, int);
    int (*dup3)(int, int, int);
    int (*poll)(pollfd*, nfds_t, int);
    int (*ppoll)(pollfd*, nfds_t, const timespec*, const sigset_t*);
    int (*select)(int, fd_set*, fd_set*, fd_set*, timeval*);
    int (*pselect)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*);
    int (*epoll_ctl)(int, int, int, epoll_event*);
    int (*epoll_wait)(int, epoll_event*, int, int);
    int (*epoll_pwait)(int, epoll_event*, int, int, const sigset_t*);
    int (*epoll_pwait2)(int, epoll_event*, int, const timespec*, const sigset_t*);
    pid_t (*fork)();
    int (*close_range)(unsigned, unsigned, int);  // null before glibc 2.34
    long (*syscall)(long, ...);
    int (*sigaction)(int, const struct sigaction*, struct sigaction*);
};

// Resolved on first use (an interposer may run before our constructor).
const RealCalls& real();

}  // namespace smcr::preload
