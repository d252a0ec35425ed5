// The interposed calls one by one, run under smcr_run (test_preload_calls):
//   preload_calls SCENARIO
// listens on an ephemeral loopback port, forks: the child accepts and plays
// the server side, the parent connects and plays the client side, so both
// ends are preloaded and the connection is SMC-R. Prints "ok" and exits 0,
// or names the failed check and exits 1. Every wait is bounded.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

#define CHECK(cond)                                                                                      \
    do {                                                                                                 \
        if (!(cond)) {                                                                                   \
            std::printf("FAIL %s:%d: %s (errno %s)\n", __FILE__, __LINE__, #cond, std::strerror(errno)); \
            std::fflush(stdout);                                                                         \
            std::_Exit(1);                                                                               \
        }                                                                                                \
    } while (0)

uint8_t byteAt(size_t i) {
    return static_cast<uint8_t>((i * 131 + 7) & 0xff);
}

std::vector<uint8_t> pattern(size_t n, size_t from = 0) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = byteAt(from + i);
    return v;
}

void writeAll(int fd, const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    size_t at = 0;
    while (at < len) {
        const ssize_t n = ::write(fd, p + at, len - at);
        CHECK(n > 0);
        at += static_cast<size_t>(n);
    }
}

void readAll(int fd, void* data, size_t len) {
    auto* p = static_cast<uint8_t*>(data);
    size_t at = 0;
    while (at < len) {
        const ssize_t n = ::read(fd, p + at, len - at);
        CHECK(n > 0);
        at += static_cast<size_t>(n);
    }
}

bool waitReadable(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, ms) == 1;
}

void onAlarm(int) {}

// ---- scenarios: server (child) and client (parent) halves --------------------

void serverSendsPattern(int fd, size_t n) {
    auto v = pattern(n);
    writeAll(fd, v.data(), v.size());
}

void clientPeekWaitall(int fd) {
    CHECK(waitReadable(fd, 5000));
    int avail = 0;
    CHECK(::ioctl(fd, FIONREAD, &avail) == 0);
    CHECK(avail > 0);
    uint8_t first[4] = {};
    CHECK(::recv(fd, first, sizeof first, MSG_PEEK) > 0);
    CHECK(first[0] == byteAt(0));
    std::vector<uint8_t> got(100000);
    CHECK(::recv(fd, got.data(), got.size(), MSG_WAITALL) == static_cast<ssize_t>(got.size()));
    CHECK(got == pattern(got.size()));
}

void clientDup(int fd) {
    const int a = ::dup(fd);
    const int b = ::fcntl(fd, F_DUPFD_CLOEXEC, 100);
    CHECK(a >= 0 && b >= 100);
    CHECK(::close(fd) == 0);
    const int c = ::dup2(a, fd);  // the old number again, naming the same connection
    CHECK(c == fd);
    CHECK(::dup3(b, 200, O_CLOEXEC) == 200);
    auto v = pattern(30000);
    writeAll(a, v.data(), 10000);
    writeAll(200, v.data() + 10000, 10000);
    writeAll(fd, v.data() + 20000, 10000);
    ::close(a);
    ::close(b);
    ::close(200);
    uint8_t ack = 0;
    readAll(fd, &ack, 1);
    CHECK(ack == 'k');
}

void serverReadsPatternAcks(int fd, size_t n) {
    std::vector<uint8_t> got(n);
    readAll(fd, got.data(), n);
    CHECK(got == pattern(n));
    writeAll(fd, "k", 1);
}

void serverSendfile(int fd) {
    char path[] = "/tmp/preload_calls_XXXXXX";
    const int file = ::mkstemp(path);
    CHECK(file >= 0);
    ::unlink(path);
    auto v = pattern(50000);
    writeAll(file, v.data(), v.size());
    off_t off = 123;
    CHECK(::sendfile(fd, file, &off, 20000) == 20000);
    CHECK(off == 20123);
    CHECK(::lseek(file, 30000, SEEK_SET) == 30000);
    CHECK(::sendfile(fd, file, nullptr, 10000) == 10000);
    CHECK(::lseek(file, 0, SEEK_CUR) == 40000);
    ::close(file);
}

void clientSendfile(int fd) {
    std::vector<uint8_t> got(30000);
    readAll(fd, got.data(), got.size());
    CHECK(std::memcmp(got.data(), pattern(20000, 123).data(), 20000) == 0);
    CHECK(std::memcmp(got.data() + 20000, pattern(10000, 30000).data(), 10000) == 0);
}

void serverShutdown(int fd) {
    serverSendsPattern(fd, 5000);
    CHECK(::shutdown(fd, SHUT_WR) == 0);
    uint8_t b = 0;
    readAll(fd, &b, 1);  // the client still writes after our FIN
    CHECK(b == 'z');
}

void clientShutdown(int fd) {
    std::vector<uint8_t> got(5000);
    readAll(fd, got.data(), got.size());
    CHECK(got == pattern(5000));
    uint8_t b = 0;
    CHECK(::read(fd, &b, 1) == 0);  // end of stream
    writeAll(fd, "z", 1);
}

void clientEintr(int fd) {
    struct sigaction sa {};
    sa.sa_handler = onAlarm;  // no SA_RESTART: the blocked recv must return EINTR
    CHECK(::sigaction(SIGALRM, &sa, nullptr) == 0);
    ::alarm(1);
    uint8_t b = 0;
    const ssize_t n = ::recv(fd, &b, 1, 0);
    CHECK(n == -1 && errno == EINTR);
    writeAll(fd, "x", 1);
}

void serverWaitsByte(int fd) {
    uint8_t b = 0;
    readAll(fd, &b, 1);
}

void clientNonBlocking(int fd) {
    const int flags = ::fcntl(fd, F_GETFL);
    CHECK(::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0);
    uint8_t b = 0;
    CHECK(::recv(fd, &b, 1, 0) == -1 && errno == EAGAIN);
    CHECK(::read(fd, &b, 1) == -1 && errno == EAGAIN);
    int off = 0;
    CHECK(::ioctl(fd, FIONBIO, &off) == 0);
    writeAll(fd, "n", 1);
    CHECK(::recv(fd, &b, 1, MSG_DONTWAIT) == -1 || b == 'm');
    CHECK(::recv(fd, &b, 1, 0) == 1 || b == 'm');  // blocking again
    CHECK(b == 'm');
}

void serverEchoesM(int fd) {
    uint8_t b = 0;
    readAll(fd, &b, 1);
    writeAll(fd, "m", 1);
}

void clientSelect(int fd) {
    int pipefd[2];
    CHECK(::pipe(pipefd) == 0);
    fd_set r;
    FD_ZERO(&r);
    FD_SET(fd, &r);
    FD_SET(pipefd[0], &r);
    timeval tv{0, 100000};
    CHECK(::select(std::max(fd, pipefd[0]) + 1, &r, nullptr, nullptr, &tv) == 0);  // nothing yet: times out
    writeAll(fd, "s", 1);
    FD_ZERO(&r);
    FD_SET(fd, &r);
    FD_SET(pipefd[0], &r);
    tv = {5, 0};
    CHECK(::select(std::max(fd, pipefd[0]) + 1, &r, nullptr, nullptr, &tv) == 1);
    CHECK(FD_ISSET(fd, &r) && !FD_ISSET(pipefd[0], &r));
    uint8_t b = 0;
    readAll(fd, &b, 1);
    CHECK(b == 'm');
}

void clientEpollOneshot(int fd) {
    const int ep = ::epoll_create1(0);
    int pipefd[2];
    CHECK(::pipe(pipefd) == 0);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.u64 = 0xABCD;
    CHECK(::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    epoll_event pev{};
    pev.events = EPOLLIN;
    pev.data.u64 = 0x1234;
    CHECK(::epoll_ctl(ep, EPOLL_CTL_ADD, pipefd[0], &pev) == 0);  // a kernel fd in the same set
    CHECK(::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1 && errno == EEXIST);
    epoll_event out[4];
    CHECK(::epoll_wait(ep, out, 4, 100) == 0);
    writeAll(fd, "n", 1);  // the server answers "m"
    CHECK(::epoll_wait(ep, out, 4, 5000) == 1);
    CHECK(out[0].data.u64 == 0xABCD && (out[0].events & EPOLLIN) != 0);
    CHECK(::epoll_wait(ep, out, 4, 100) == 0);  // one shot: not again without MOD
    writeAll(pipefd[1], "p", 1);
    CHECK(::epoll_wait(ep, out, 4, 1000) == 1);
    CHECK(out[0].data.u64 == 0x1234);
    uint8_t b = 0;
    readAll(pipefd[0], &b, 1);
    CHECK(::epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) == 0);
    CHECK(::epoll_wait(ep, out, 4, 1000) == 1);  // still unread: reported again after MOD
    readAll(fd, &b, 1);
    CHECK(b == 'm');
    CHECK(::epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr) == 0);
    CHECK(::epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr) == -1 && errno == ENOENT);
    ::close(ep);
}

void clientEdgeTriggered(int fd) {
    const int ep = ::epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET | EPOLLRDHUP;
    ev.data.fd = fd;
    CHECK(::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    writeAll(fd, "n", 1);
    epoll_event out[4];
    CHECK(::epoll_wait(ep, out, 4, 5000) == 1);
    // Not read yet: an edge is reported once.
    CHECK(::epoll_wait(ep, out, 4, 100) == 0);
    uint8_t b = 0;
    readAll(fd, &b, 1);
    CHECK(b == 'm');
    CHECK(::recv(fd, &b, 1, MSG_DONTWAIT) == -1 && errno == EAGAIN);
    writeAll(fd, "n", 1);  // a new edge
    CHECK(::epoll_wait(ep, out, 4, 5000) == 1);
    readAll(fd, &b, 1);
    ::close(ep);
}

void serverEchoesMTwice(int fd) {
    serverEchoesM(fd);
    serverEchoesM(fd);
}

// fork() with a live SMC-R fd (engine/README.md "fork"): the first process
// that uses the connection afterwards runs it. A child that only closes its
// copy (a snapshot child, one that execs) leaves it to the parent; once the
// parent has used it after a second fork, that child's I/O fails clearly.
void clientForkChild(int fd) {
    pid_t pid = ::fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        ::close(fd);
        std::_Exit(0);
    }
    int status = 0;
    CHECK(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    writeAll(fd, "n", 1);  // the parent's connection is untouched
    uint8_t b = 0;
    readAll(fd, &b, 1);
    CHECK(b == 'm');
    int go[2];
    CHECK(::pipe(go) == 0);
    pid = ::fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char c = 0;
        (void)::read(go[0], &c, 1);  // the parent has used the connection by now
        const ssize_t n = ::write(fd, "c", 1);
        const bool eio = n == -1 && errno == EIO;
        ::close(fd);
        std::_Exit(eio ? 0 : 3);
    }
    writeAll(fd, "n", 1);
    readAll(fd, &b, 1);
    CHECK(b == 'm');
    CHECK(::write(go[1], "g", 1) == 1);
    CHECK(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ::close(go[0]);
    ::close(go[1]);
}

void* blockedReader(void* arg) {
    const int fd = *static_cast<int*>(arg);
    uint8_t b = 0;
    (void)::recv(fd, &b, 1, 0);
    return nullptr;
}

void clientCancel(int fd) {
    pthread_t t;
    int f = fd;
    CHECK(::pthread_create(&t, nullptr, blockedReader, &f) == 0);
    ::usleep(200000);
    CHECK(::pthread_cancel(t) == 0);
    void* result = nullptr;
    CHECK(::pthread_join(t, &result) == 0);
    CHECK(result == PTHREAD_CANCELED);
    writeAll(fd, "x", 1);
}

void clientPeerKilled(int fd) {
    // The server exits abruptly after 1000 bytes: the client sees the end
    // or an error, never a hang.
    std::vector<uint8_t> got(1000);
    readAll(fd, got.data(), got.size());
    uint8_t b = 0;
    CHECK(waitReadable(fd, 8000));
    const ssize_t n = ::read(fd, &b, 1);
    CHECK(n == 0 || (n == -1 && (errno == ECONNRESET || errno == ECONNABORTED || errno == EPIPE)));
}

void serverDies(int fd) {
    serverSendsPattern(fd, 1000);
    std::_Exit(0);
}

sockaddr_in g_serverAddr{};

// asio's order: the socket joins the epoll set when it is opened, before
// connect(); the upgrade moves it so SMC data still wakes the set.
void clientEpollBeforeConnect(int) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int ep = ::epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
    ev.data.u64 = 77;
    CHECK(::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&g_serverAddr), sizeof g_serverAddr);
    CHECK(rc == 0 || errno == EINPROGRESS);
    epoll_event out[4];
    CHECK(::epoll_wait(ep, out, 4, 5000) == 1);
    CHECK(out[0].data.u64 == 77 && (out[0].events & EPOLLOUT) != 0);
    writeAll(fd, "n", 1);
    bool got = false;
    for (int i = 0; i < 10 && !got; ++i) {
        CHECK(::epoll_wait(ep, out, 4, 5000) >= 1);
        got = (out[0].events & EPOLLIN) != 0;
    }
    CHECK(got);
    uint8_t b = 0;
    CHECK(::recv(fd, &b, 1, 0) == 1 && b == 'm');
    ::close(ep);
    ::close(fd);
}

// vfork's child closes its copy of the SMC fd and execs: the parent's
// connection must not notice (the child's bookkeeping is its own).
void clientVfork(int fd) {
    const pid_t pid = ::vfork();
    CHECK(pid >= 0);
    if (pid == 0) {
        ::close(fd);
        ::execl("/bin/true", "true", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    CHECK(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    writeAll(fd, "n", 1);
    uint8_t b = 0;
    readAll(fd, &b, 1);
    CHECK(b == 'm');
}

// close_range forgets what it closes: a pipe that gets the number of a
// closed duplicate is a pipe, and the connection lives on in the other fd.
void clientCloseRange(int fd) {
    const int copy = ::dup(fd);
    CHECK(copy > fd);
    CHECK(::close_range(static_cast<unsigned>(copy), static_cast<unsigned>(copy), 0) == 0);
    int pipefd[2];
    CHECK(::pipe(pipefd) == 0);
    CHECK(pipefd[0] == copy);
    CHECK(::write(pipefd[1], "p", 1) == 1);
    uint8_t b = 0;
    CHECK(::read(pipefd[0], &b, 1) == 1 && b == 'p');
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    writeAll(fd, "n", 1);
    readAll(fd, &b, 1);
    CHECK(b == 'm');
}

// syscall(SYS_write/SYS_read) on an SMC fd goes over SMC-R like write/read.
void clientSyscall(int fd) {
    CHECK(::syscall(SYS_write, fd, "n", 1) == 1);
    uint8_t b = 0;
    CHECK(::syscall(SYS_read, fd, &b, 1) == 1);
    CHECK(b == 'm');
    CHECK(::syscall(SYS_getpid) == ::getpid());  // others pass through
}

// An epoll set with an SMC fd inside another epoll set (with a pipe beside
// it): the outer set reports the inner one when the SMC fd is readable.
void clientNestedEpoll(int fd) {
    const int inner = ::epoll_create1(0);
    const int outer = ::epoll_create1(0);
    int pipefd[2];
    CHECK(::pipe(pipefd) == 0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 1;
    CHECK(::epoll_ctl(inner, EPOLL_CTL_ADD, fd, &ev) == 0);
    ev.data.u64 = 2;
    CHECK(::epoll_ctl(outer, EPOLL_CTL_ADD, inner, &ev) == 0);
    ev.data.u64 = 3;
    CHECK(::epoll_ctl(outer, EPOLL_CTL_ADD, pipefd[0], &ev) == 0);
    epoll_event out[4];
    writeAll(fd, "n", 1);  // the server answers "m"
    bool reported = false;
    for (int i = 0; i < 20 && !reported; ++i) {
        const int n = ::epoll_wait(outer, out, 4, 5000);
        CHECK(n >= 1 && out[0].data.u64 == 2);
        // The inner set's own wait says what: the SMC fd (or, at first,
        // nothing yet: the outer one also fires for libsmcr's wake-ups).
        const int k = ::epoll_wait(inner, out, 4, 0);
        CHECK(k >= 0);
        reported = k == 1 && out[0].data.u64 == 1 && (out[0].events & EPOLLIN) != 0;
    }
    CHECK(reported);
    // Level-triggered: still unread, so the outer set reports the inner one
    // again, and the inner one the SMC fd.
    CHECK(::epoll_wait(outer, out, 4, 1000) >= 1 && out[0].data.u64 == 2);
    CHECK(::epoll_wait(inner, out, 4, 0) == 1 && out[0].data.u64 == 1);
    uint8_t b = 0;
    readAll(fd, &b, 1);
    CHECK(b == 'm');
    writeAll(pipefd[1], "p", 1);
    CHECK(::epoll_wait(outer, out, 4, 1000) >= 1);
    ::close(outer);
    ::close(inner);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
}

// limit_smc_hs (the program re-execs itself with it on): three clients
// connect before the server accepts; the first two accepted have others
// queued behind them and are declined (plain TCP, PEERNOSMC), the last one
// is SMC-R. Every connection still echoes.
int limitSmcHs(int lfd, const sockaddr_in& addr) {
    constexpr int kClients = 3;
    pid_t clients[kClients];
    for (pid_t& c : clients) {
        c = ::fork();
        CHECK(c >= 0);
        if (c == 0) {
            const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
            CHECK(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
            writeAll(fd, "n", 1);
            uint8_t b = 0;
            readAll(fd, &b, 1);
            CHECK(b == 'm');
            ::close(fd);
            std::_Exit(0);
        }
    }
    // All three in the accept queue (their connect() waits for the answer
    // to its Proposal meanwhile).
    for (int i = 0; i < 500; ++i) {
        tcp_info info{};
        socklen_t len = sizeof info;
        CHECK(::getsockopt(lfd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0);
        if (info.tcpi_unacked >= kClients) break;
        ::usleep(10000);
    }
    for (int i = 0; i < kClients; ++i) {
        const int fd = ::accept(lfd, nullptr, nullptr);
        CHECK(fd >= 0);
        serverEchoesM(fd);
        ::close(fd);
    }
    for (const pid_t c : clients) {
        int status = 0;
        CHECK(::waitpid(c, &status, 0) == c);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    return 0;
}

// fork() with two SMC-R connections, a child that never uses them, and a
// parent that closes one while the engine is parked and then goes on with
// the other: claiming the engine back, the parent closes the first over
// SMC-R (the server reads its end of stream; without it, nothing would
// ever close it).
int forkClosedCopy(int lfd, const sockaddr_in& a) {
    const pid_t server = ::fork();
    CHECK(server >= 0);
    if (server == 0) {
        ::alarm(20);
        const int first = ::accept(lfd, nullptr, nullptr);
        const int second = ::accept(lfd, nullptr, nullptr);
        CHECK(first >= 0 && second >= 0);
        serverEchoesM(second);
        uint8_t b = 0;
        const ssize_t n = ::read(first, &b, 1);
        std::exit(n == 0 ? 0 : 3);
    }
    ::close(lfd);
    const int first = ::socket(AF_INET, SOCK_STREAM, 0);
    CHECK(::connect(first, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    const int second = ::socket(AF_INET, SOCK_STREAM, 0);
    CHECK(::connect(second, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0);
    const pid_t child = ::fork();
    CHECK(child >= 0);
    if (child == 0) std::_Exit(0);
    int status = 0;
    CHECK(::waitpid(child, &status, 0) == child);
    ::close(first);
    writeAll(second, "n", 1);
    uint8_t b = 0;
    readAll(second, &b, 1);
    CHECK(b == 'm');
    CHECK(::waitpid(server, &status, 0) == server);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ::close(second);
    return 0;
}

struct Scenario {
    const char* name;
    void (*server)(int);
    void (*client)(int);
};

const Scenario kScenarios[] = {
    {"peek_waitall", [](int fd) { serverSendsPattern(fd, 100000); }, clientPeekWaitall},
    {"dup", [](int fd) { serverReadsPatternAcks(fd, 30000); }, clientDup},
    {"sendfile", serverSendfile, clientSendfile},
    {"shutdown", serverShutdown, clientShutdown},
    {"eintr", serverWaitsByte, clientEintr},
    {"nonblocking", serverEchoesM, clientNonBlocking},
    {"select", serverEchoesM, clientSelect},
    {"epoll_oneshot", serverEchoesM, clientEpollOneshot},
    {"epoll_et", serverEchoesMTwice, clientEdgeTriggered},
    {"fork", serverEchoesMTwice, clientForkChild},
    {"cancel", serverWaitsByte, clientCancel},
    {"peer_killed", serverDies, clientPeerKilled},
    {"epoll_before_connect", serverEchoesM, clientEpollBeforeConnect},
    {"vfork", serverEchoesM, clientVfork},
    {"close_range", serverEchoesM, clientCloseRange},
    {"syscall", serverEchoesM, clientSyscall},
    {"nested_epoll", serverEchoesM, clientNestedEpoll},
    {"limit_smc_hs", nullptr, nullptr},      // limitSmcHs()
    {"fork_closed_copy", nullptr, nullptr},  // forkClosedCopy()
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: preload_calls SCENARIO\n");
        return 2;
    }
    const Scenario* s = nullptr;
    for (const Scenario& c : kScenarios) {
        if (std::strcmp(c.name, argv[1]) == 0) s = &c;
    }
    if (s == nullptr) {
        std::fprintf(stderr, "unknown scenario %s\n", argv[1]);
        return 2;
    }
    if (std::strcmp(s->name, "limit_smc_hs") == 0 && std::getenv("SMCR_SETTINGS") == nullptr) {
        // The preload reads its settings when it loads: once more with the setting.
        ::setenv("SMCR_SETTINGS", "limit_smc_hs=1", 1);
        ::execl("/proc/self/exe", argv[0], argv[1], static_cast<char*>(nullptr));
        CHECK(false);
    }
    const int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    CHECK(::listen(lfd, 4) == 0);
    socklen_t len = sizeof a;
    CHECK(::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    std::fflush(stdout);
    if (s->server == nullptr) {
        const int rc = std::strcmp(s->name, "fork_closed_copy") == 0 ? forkClosedCopy(lfd, a) : limitSmcHs(lfd, a);
        std::printf("ok %s\n", s->name);
        return rc;
    }
    const pid_t server = ::fork();
    CHECK(server >= 0);
    if (server == 0) {
        ::alarm(20);  // a stuck server ends the test rather than hanging it
        const int fd = ::accept(lfd, nullptr, nullptr);
        CHECK(fd >= 0);
        s->server(fd);
        ::close(fd);
        std::exit(0);
    }
    ::close(lfd);
    g_serverAddr = a;
    if (s->client == clientEpollBeforeConnect) {
        s->client(-1);  // makes and connects its own socket
    } else {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        CHECK(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        s->client(fd);
        ::close(fd);
    }
    int status = 0;
    CHECK(::waitpid(server, &status, 0) == server);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::printf("ok %s\n", s->name);
    return 0;
}
