// syscall(SYS_...) with the number of an interposed call goes to the
// interposed call (programs and runtimes that bypass libc's wrappers: older
// glibc had no close_range(), some event loops call accept4 or read that
// way); every other number goes straight to the kernel.
#include <cerrno>
#include <cstdarg>

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fd_table.h"

#define SMCR_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" int close_range(unsigned first, unsigned last, int flags);

namespace {

template <typename T>
T* ptr(long v) {
    return reinterpret_cast<T*>(v);
}

// The kernel call itself, not libc's syscall() through real(): programs
// call syscall() from inside their allocator's initialisation (jemalloc
// reads /proc with syscall(SYS_read) while malloc is being set up, which may
// be while the preload's constructor resolves real() and allocates), so
// this path must take no lock and allocate nothing.
long kernel(long n, long a, long b, long c, long d, long e, long f) {
    long ret = 0;
#if defined(__x86_64__)
    register long r10 asm("r10") = d;
    register long r8 asm("r8") = e;
    register long r9 asm("r9") = f;
    asm volatile("syscall"
                 : "=a"(ret)
                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
    register long x8 asm("x8") = n;
    register long x0 asm("x0") = a;
    register long x1 asm("x1") = b;
    register long x2 asm("x2") = c;
    register long x3 asm("x3") = d;
    register long x4 asm("x4") = e;
    register long x5 asm("x5") = f;
    asm volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    ret = x0;
#else
#error "interpose_syscall.cpp: no raw system call for this architecture"
#endif
    if (ret < 0 && ret > -4096) {
        errno = static_cast<int>(-ret);
        return -1;
    }
    return ret;
}

}  // namespace

SMCR_EXPORT long syscall(long number, ...) {
    // The kernel takes six register arguments whatever the call; libc's own
    // syscall() reads six too.
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (long& v : a) v = va_arg(ap, long);
    va_end(ap);
    const int fd = static_cast<int>(a[0]);
    const auto len = static_cast<size_t>(a[2]);
    // Every interposed number takes an fd first; one the preload does not
    // track (or any other number) goes to the kernel as it is.
    smcr::preload::FdTable* table = smcr::preload::existingFdTable();
    const bool tracked =
        table != nullptr && (number == SYS_close_range || table->kind(fd) != smcr::preload::FdKind::none);
    if (!tracked) return kernel(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    switch (number) {
        case SYS_close:
            return ::close(fd);
        case SYS_close_range:
            return ::close_range(static_cast<unsigned>(a[0]), static_cast<unsigned>(a[1]), static_cast<int>(a[2]));
        case SYS_read:
            return ::read(fd, ptr<void>(a[1]), len);
        case SYS_write:
            return ::write(fd, ptr<const void>(a[1]), len);
        case SYS_readv:
            return ::readv(fd, ptr<const iovec>(a[1]), static_cast<int>(a[2]));
        case SYS_writev:
            return ::writev(fd, ptr<const iovec>(a[1]), static_cast<int>(a[2]));
        case SYS_recvfrom:
            return ::recvfrom(fd, ptr<void>(a[1]), len, static_cast<int>(a[3]), ptr<sockaddr>(a[4]),
                              ptr<socklen_t>(a[5]));
        case SYS_sendto:
            return ::sendto(fd, ptr<const void>(a[1]), len, static_cast<int>(a[3]), ptr<const sockaddr>(a[4]),
                            static_cast<socklen_t>(a[5]));
        case SYS_recvmsg:
            return ::recvmsg(fd, ptr<msghdr>(a[1]), static_cast<int>(a[2]));
        case SYS_sendmsg:
            return ::sendmsg(fd, ptr<const msghdr>(a[1]), static_cast<int>(a[2]));
        case SYS_connect:
            return ::connect(fd, ptr<const sockaddr>(a[1]), static_cast<socklen_t>(a[2]));
        case SYS_accept4:
            return ::accept4(fd, ptr<sockaddr>(a[1]), ptr<socklen_t>(a[2]), static_cast<int>(a[3]));
        case SYS_shutdown:
            return ::shutdown(fd, static_cast<int>(a[1]));
        case SYS_dup:
            return ::dup(fd);
        case SYS_dup3:
            return ::dup3(fd, static_cast<int>(a[1]), static_cast<int>(a[2]));
        default:
            return kernel(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    }
}
