// A small real TCP program for the preload tests, written the way ordinary
// servers and clients are (it knows nothing of libsmcr):
//   preload_peer serve-threads PORT        echo server, a thread per connection, blocking I/O
//   (servers bind 127.0.0.1 unless an address follows the port; clients
//   connect to 127.0.0.1 unless a host follows the seed)
//   preload_peer serve-epoll PORT          echo server, one epoll loop, EPOLLET, non-blocking
//   preload_peer serve-fork PORT           echo server, accept-fork-close: the parent accepts,
//                                          forks and closes its copy, the child serves (blocking)
//   preload_peer client PORT BYTES SEED    non-blocking connect + poll + SO_ERROR, then sends
//                                          BYTES pseudo-random bytes (writev, MSG_MORE) while
//                                          reading the echo (poll, FIONREAD, MSG_PEEK) and
//                                          compares every byte; prints "ok BYTES" or "mismatch"
//   preload_peer client-fork PORT BYTES SEED  the same stream, a tenth of it from the process
//                                          that connected, the rest from a child it forks
//                                          then (the parent closes its copy and waits)
// Servers print "listening PORT" once ready and run until killed; serve-epoll
// returns from main on SIGTERM (so the preload writes its counters file).
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

const char* g_host = "127.0.0.1";  // servers bind it, clients connect to it (the optional last argument)

int listenOn(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, g_host, &a.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 64) != 0) {
        std::perror("bind/listen");
        std::exit(2);
    }
    std::printf("listening %d\n", port);
    std::fflush(stdout);
    return fd;
}

void echoBlocking(int fd) {
    std::vector<char> buf(65536);
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n <= 0) break;
        ssize_t at = 0;
        while (at < n) {
            const ssize_t w = ::write(fd, buf.data() + at, static_cast<size_t>(n - at));
            if (w <= 0) break;
            at += w;
        }
    }
    ::close(fd);
}

int serveThreads(int port) {
    const int lfd = listenOn(port);
    for (;;) {
        const int fd = ::accept(lfd, nullptr, nullptr);
        if (fd < 0) continue;
        std::thread(echoBlocking, fd).detach();
    }
}

int serveFork(int port) {
    ::signal(SIGCHLD, SIG_IGN);  // children reap themselves
    const int lfd = listenOn(port);
    for (;;) {
        const int fd = ::accept(lfd, nullptr, nullptr);
        if (fd < 0) continue;
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(lfd);
            echoBlocking(fd);
            return 0;  // exit(): the counters file is written
        }
        ::close(fd);
    }
}

volatile sig_atomic_t g_stop = 0;

int serveEpoll(int port) {
    struct sigaction stop {};
    stop.sa_handler = [](int) { g_stop = 1; };  // no SA_RESTART: epoll_wait returns EINTR
    ::sigaction(SIGTERM, &stop, nullptr);
    const int lfd = listenOn(port);
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = lfd;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    std::map<int, std::string> pending;  // bytes read, not yet echoed
    std::vector<char> buf(65536);
    for (;;) {
        // A SIGTERM that lands while the loop handles events (not inside
        // epoll_wait) interrupts nothing: the flag is looked at before every
        // wait, and the wait is bounded so a signal in between costs 50 ms.
        if (g_stop != 0) return 0;
        epoll_event events[64];
        const int n = ::epoll_wait(ep, events, 64, 50);
        if (g_stop != 0) return 0;
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == lfd) {
                const int c = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (c < 0) continue;
                epoll_event cev{};
                cev.events = EPOLLIN | EPOLLOUT | EPOLLET | EPOLLRDHUP;
                cev.data.fd = c;
                ::epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
                pending[c];
                continue;
            }
            std::string& out = pending[fd];
            bool closed = false;
            // Edge-triggered: read until EAGAIN.
            for (;;) {
                const ssize_t r = ::recv(fd, buf.data(), buf.size(), 0);
                if (r > 0) {
                    out.append(buf.data(), static_cast<size_t>(r));
                    continue;
                }
                if (r == 0 || errno != EAGAIN) closed = r == 0 || errno != EAGAIN;
                break;
            }
            while (!out.empty()) {
                const ssize_t w = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
                if (w <= 0) break;
                out.erase(0, static_cast<size_t>(w));
            }
            if (closed && out.empty()) {
                ::epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
                ::close(fd);
                pending.erase(fd);
            }
        }
    }
}

uint8_t patternByte(uint64_t i, uint64_t seed) {
    uint64_t x = (i / 8) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return static_cast<uint8_t>(x >> ((i % 8) * 8));
}

// A connected socket (non-blocking connect, poll, SO_ERROR), or -1.
int connectTo(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, g_host, &a.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
        std::perror("connect");
        return -1;
    }
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, 5000);
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
        std::fprintf(stderr, "connect: %s\n", std::strerror(err));
        return -1;
    }
    return fd;
}

// Sends stream bytes [from, bytes) and checks their echo.
int exchange(int fd, uint64_t from, uint64_t bytes, uint64_t seed) {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint64_t sent = from;
    uint64_t received = from;
    std::vector<uint8_t> out(48 * 1024);
    std::vector<uint8_t> in(64 * 1024);
    bool peeked = false;
    while (received < bytes) {
        pollfd q{fd, static_cast<short>(POLLIN | (sent < bytes ? POLLOUT : 0)), 0};
        if (::poll(&q, 1, 5000) <= 0) {
            std::fprintf(stderr, "stalled: sent %llu received %llu\n", static_cast<unsigned long long>(sent),
                         static_cast<unsigned long long>(received));
            return 3;
        }
        if ((q.revents & POLLOUT) != 0 && sent < bytes) {
            // Two iovecs, the first with MSG_MORE-style cork semantics via sendmsg.
            const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), bytes - sent));
            for (size_t i = 0; i < n; ++i) out[i] = patternByte(sent + i, seed);
            iovec iov[2] = {{out.data(), n / 3}, {out.data() + n / 3, n - n / 3}};
            msghdr msg{};
            msg.msg_iov = iov;
            msg.msg_iovlen = 2;
            const ssize_t w = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN) {
                std::perror("sendmsg");
                return 2;
            }
            if (w > 0) sent += static_cast<uint64_t>(w);
        }
        if ((q.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            int avail = 0;
            ::ioctl(fd, FIONREAD, &avail);
            if (!peeked && avail > 0) {
                // A peek sees the same bytes the read then takes.
                uint8_t first = 0;
                if (::recv(fd, &first, 1, MSG_PEEK) != 1 || first != patternByte(received, seed)) {
                    std::printf("mismatch at peek\n");
                    return 1;
                }
                peeked = true;
            }
            const ssize_t r = ::recv(fd, in.data(), in.size(), MSG_DONTWAIT);
            if (r == 0) {
                std::fprintf(stderr, "early end of stream at %llu\n", static_cast<unsigned long long>(received));
                return 3;
            }
            if (r < 0 && errno != EAGAIN) {
                std::perror("recv");
                return 2;
            }
            for (ssize_t i = 0; i < r; ++i) {
                if (in[static_cast<size_t>(i)] != patternByte(received + static_cast<uint64_t>(i), seed)) {
                    std::printf("mismatch at %llu\n",
                                static_cast<unsigned long long>(received + static_cast<uint64_t>(i)));
                    return 1;
                }
            }
            if (r > 0) received += static_cast<uint64_t>(r);
        }
    }
    return 0;
}

int client(int port, uint64_t bytes, uint64_t seed) {
    const int fd = connectTo(port);
    if (fd < 0) return 2;
    if (const int rc = exchange(fd, 0, bytes, seed); rc != 0) return rc;
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
    std::printf("ok %llu\n", static_cast<unsigned long long>(bytes));
    return 0;
}

// A client that forks after connect: the stream goes on in the child.
int clientFork(int port, uint64_t bytes, uint64_t seed) {
    const int fd = connectTo(port);
    if (fd < 0) return 2;
    const uint64_t first = bytes / 10;
    if (const int rc = exchange(fd, 0, first, seed); rc != 0) return rc;
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::perror("fork");
        return 2;
    }
    if (pid == 0) {
        if (const int rc = exchange(fd, first, bytes, seed); rc != 0) return rc;
        ::shutdown(fd, SHUT_WR);
        ::close(fd);
        std::printf("ok %llu\n", static_cast<unsigned long long>(bytes));
        return 0;
    }
    ::close(fd);  // the child's copy carries on
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 4;
}

}  // namespace

int main(int argc, char** argv) {
    // serve-* PORT [ADDRESS] binds ADDRESS (0.0.0.0: every address of its
    // network namespace); client* PORT BYTES SEED [HOST] connects to HOST.
    const bool serving = argc >= 2 && std::strncmp(argv[1], "serve-", 6) == 0;
    if ((serving && argc >= 4) || (!serving && argc >= 6)) g_host = argv[serving ? 3 : 5];
    if (argc >= 3 && std::strcmp(argv[1], "serve-threads") == 0) return serveThreads(std::atoi(argv[2]));
    if (argc >= 3 && std::strcmp(argv[1], "serve-epoll") == 0) return serveEpoll(std::atoi(argv[2]));
    if (argc >= 3 && std::strcmp(argv[1], "serve-fork") == 0) return serveFork(std::atoi(argv[2]));
    if (argc >= 5 && std::strcmp(argv[1], "client-fork") == 0) {
        return clientFork(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10));
    }
    if (argc >= 5 && std::strcmp(argv[1], "client") == 0) {
        return client(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10));
    }
    std::fprintf(
        stderr, "usage: preload_peer serve-threads|serve-epoll|serve-fork PORT | client|client-fork PORT BYTES SEED\n");
    return 2;
}
