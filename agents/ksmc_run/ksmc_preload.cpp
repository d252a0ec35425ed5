// libsmclab-ksmc-preload.so: the kernel's SMC for unmodified programs, as
// smc-tools' smc_run does it (research/preload.md 1.1): every AF_INET or
// AF_INET6 stream socket the program makes becomes an AF_SMC socket of the
// same flags (SMCPROTO_SMC / SMCPROTO_SMC6). The kernel does the rest:
// addresses, options, epoll, fork and the fallback to TCP when the peer
// has no SMC. SMC_SNDBUF / SMC_RCVBUF set the sockets' buffer sizes, and
// SMC_DEBUG=1 says on stderr what happened to each socket.
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace {

constexpr int kAfSmc = 43;      // AF_SMC
constexpr int kSmcProtoV4 = 0;  // SMCPROTO_SMC
constexpr int kSmcProtoV6 = 1;  // SMCPROTO_SMC6

using SocketFn = int (*)(int, int, int);

SocketFn realSocket() {
    static SocketFn fn = reinterpret_cast<SocketFn>(dlsym(RTLD_NEXT, "socket"));
    return fn;
}

bool debugOn() {
    static const bool on = [] {
        const char* v = std::getenv("SMC_DEBUG");
        return v != nullptr && *v != '\0' && *v != '0';
    }();
    return on;
}

int sizeFromEnv(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return 0;
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (end != nullptr && (*end == 'k' || *end == 'K')) n *= 1024;
    if (end != nullptr && (*end == 'm' || *end == 'M')) n *= 1024 * 1024;
    return n > 0 && n < (1L << 30) ? static_cast<int>(n) : 0;
}

bool isTcpStream(int domain, int type, int protocol) {
    return (domain == AF_INET || domain == AF_INET6) && (type & 0xf) == SOCK_STREAM &&
           (protocol == 0 || protocol == IPPROTO_TCP);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int socket(int domain, int type, int protocol) {
    SocketFn real = realSocket();
    if (real == nullptr) {
        errno = ENOSYS;
        return -1;
    }
    if (!isTcpStream(domain, type, protocol)) return real(domain, type, protocol);
    const int fd = real(kAfSmc, type, domain == AF_INET ? kSmcProtoV4 : kSmcProtoV6);
    if (fd < 0) {
        // No AF_SMC here (no smc module, a seccomp filter): the program keeps
        // TCP rather than failing, as a TCP program would.
        const int err = errno;
        if (debugOn()) std::fprintf(stderr, "ksmc_run: AF_SMC socket failed (errno %d), using TCP\n", err);
        return real(domain, type, protocol);
    }
    if (const int snd = sizeFromEnv("SMC_SNDBUF"); snd > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
    if (const int rcv = sizeFromEnv("SMC_RCVBUF"); rcv > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    if (debugOn())
        std::fprintf(stderr, "ksmc_run: fd %d is AF_SMC (was %s)\n", fd, domain == AF_INET ? "AF_INET" : "AF_INET6");
    return fd;
}
