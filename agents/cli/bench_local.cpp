#include "bench_local.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <smcr/listener.h>
#include <smcr/socket.h>

extern char** environ;

namespace smclab::cli {

uint64_t nowNs() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

void pinToCpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    ::sched_setaffinity(0, sizeof set, &set);
}

bool BenchConn::sendAll(const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (len > 0) {
        const ssize_t n = send(p, len);
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool BenchConn::recvAll(void* data, size_t len) {
    auto* p = static_cast<uint8_t*>(data);
    while (len > 0) {
        const ssize_t n = recv(p, len);
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool BenchConn::sendfileAll(int fileFd, off_t offset, size_t len) {
    while (len > 0) {
        const ssize_t n = sendfile(fileFd, offset, len);
        if (n <= 0) return false;
        offset += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

namespace {

class SmcrConn : public BenchConn {
public:
    explicit SmcrConn(smcr::Socket s) : m_s(std::move(s)) {}
    ~SmcrConn() override { m_s.close(); }
    ssize_t send(const void* data, size_t len, bool more) override {
        auto r = m_s.send(data, len, more ? MSG_MORE : 0);
        return r ? static_cast<ssize_t>(r.value()) : -1;
    }
    ssize_t recv(void* data, size_t len) override {
        auto r = m_s.recv(data, len);
        return r ? static_cast<ssize_t>(r.value()) : -1;
    }
    ssize_t sendfile(int fileFd, off_t offset, size_t len) override {
        auto r = m_s.sendfile(fileFd, offset, len);
        return r ? static_cast<ssize_t>(r.value()) : -1;
    }
    bool setCork(bool enabled) override { return static_cast<bool>(m_s.setCork(enabled)); }
    void shutdownWrite() override { (void)m_s.shutdown(SHUT_WR); }
    bool fellBack() const override { return m_s.fellBack(); }

private:
    smcr::Socket m_s;
};

class TcpConn : public BenchConn {
public:
    explicit TcpConn(int fd) : m_fd(fd) {}
    ~TcpConn() override { ::close(m_fd); }
    ssize_t send(const void* data, size_t len, bool more) override {
        return ::send(m_fd, data, len, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    }
    ssize_t recv(void* data, size_t len) override { return ::recv(m_fd, data, len, 0); }
    ssize_t sendfile(int fileFd, off_t offset, size_t len) override {
        return ::sendfile(m_fd, fileFd, &offset, len);
    }
    bool setCork(bool enabled) override {
        const int on = enabled ? 1 : 0;
        return ::setsockopt(m_fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on) == 0;
    }
    void shutdownWrite() override { ::shutdown(m_fd, SHUT_WR); }

private:
    int m_fd;
};

class SmcrBenchListener : public BenchListener {
public:
    explicit SmcrBenchListener(smcr::Listener l) : m_l(std::move(l)) {}
    std::unique_ptr<BenchConn> accept() override {
        auto s = m_l.accept();
        if (!s) return nullptr;
        return std::make_unique<SmcrConn>(s.value());
    }
    uint16_t port() const override { return m_l.localPort(); }

private:
    smcr::Listener m_l;
};

class TcpBenchListener : public BenchListener {
public:
    TcpBenchListener(int fd, uint16_t port) : m_fd(fd), m_port(port) {}
    ~TcpBenchListener() override { ::close(m_fd); }
    std::unique_ptr<BenchConn> accept() override {
        for (;;) {
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c >= 0) return std::make_unique<TcpConn>(c);
            // A signal, or a client that gave up while queued: not the listener's end.
            if (errno != EINTR && errno != ECONNABORTED) return nullptr;
        }
    }
    uint16_t port() const override { return m_port; }

private:
    int m_fd;
    uint16_t m_port;
};

}  // namespace

int connectLoopback(uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        const int saved = errno;
        ::close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

std::unique_ptr<BenchConn> tcpBenchConn(int fd) { return std::make_unique<TcpConn>(fd); }

std::unique_ptr<BenchConn> connectBench(const std::string& transport, uint16_t port,
                                        const std::shared_ptr<smcr::Engine>& engine, const char* who) {
    if (transport == "smcr") {
        smcr::ConnectOptions o;
        o.engine = engine;
        auto s = smcr::Socket::connect("127.0.0.1", port, o);
        if (!s) {
            std::fprintf(stderr, "%s: connect: %s\n", who, s.error().toString().c_str());
            return nullptr;
        }
        return std::make_unique<SmcrConn>(s.value());
    }
    const int fd = connectLoopback(port);
    if (fd < 0) {
        std::fprintf(stderr, "%s: connect: %s\n", who, std::strerror(errno));
        return nullptr;
    }
    return std::make_unique<TcpConn>(fd);
}

std::unique_ptr<BenchListener> listenBench(const std::string& transport, const std::shared_ptr<smcr::Engine>& engine,
                                           const char* who, int backlog) {
    if (transport == "smcr") {
        auto l = smcr::Listener::listen("127.0.0.1", 0, backlog, engine);
        if (!l) {
            std::fprintf(stderr, "%s: listen: %s\n", who, l.error().toString().c_str());
            return nullptr;
        }
        return std::make_unique<SmcrBenchListener>(std::move(l.value()));
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, backlog) != 0) {
        std::fprintf(stderr, "%s: listen: %s\n", who, std::strerror(errno));
        ::close(fd);
        return nullptr;
    }
    socklen_t len = sizeof sa;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
    return std::make_unique<TcpBenchListener>(fd, ntohs(sa.sin_port));
}

std::shared_ptr<smcr::Engine> makeBenchEngine(const SettingList& settings, const char* who, std::string* error) {
    auto e = smcr::Engine::create(settings);
    if (!e) {
        const std::string text = e.error().toString();
        if (error != nullptr) *error = text;
        std::fprintf(stderr, "%s: engine: %s\n", who, text.c_str());
        return nullptr;
    }
    return e.value();
}

CounterMap counterSnapshot(const smcr::Engine& engine) {
    CounterMap out;
    for (const auto& [name, value] : engine.stats().flatten()) out[name] = value;
    return out;
}

CounterMap counterDelta(const CounterMap& after, const CounterMap& before) {
    CounterMap out;
    for (const auto& [name, value] : after) {
        const auto it = before.find(name);
        const uint64_t base = it == before.end() ? 0 : it->second;
        out[name] = value > base ? value - base : 0;
    }
    return out;
}

std::string encodeCounters(const CounterMap& counters) {
    std::string out;
    for (const auto& [name, value] : counters) out += name + ' ' + std::to_string(value) + '\n';
    return out;
}

CounterMap decodeCounters(const std::string& text) {
    CounterMap out;
    std::istringstream in(text);
    std::string name;
    uint64_t value = 0;
    while (in >> name >> value) out[name] = value;
    return out;
}

ServerProcess::~ServerProcess() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    if (m_out >= 0) ::close(m_out);
}

bool ServerProcess::start(const std::string& sub, const std::vector<std::string>& args, std::string* error) {
    auto fail = [error](const std::string& text) {
        if (error != nullptr) *error = text;
        return false;
    };
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return fail("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    std::vector<std::string> all = {"/proc/self/exe", "bench", sub, "--serve"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&m_pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    m_out = fds[0];
    if (rc != 0) {
        m_pid = -1;
        return fail("cannot start the server process");
    }
    std::string line;
    // Generous: a loaded host may take a while to start a process and its engine.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (line.find('\n') == std::string::npos) {
        const auto leftMs =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        pollfd pf{m_out, POLLIN, 0};
        const int ready = leftMs > 0 ? ::poll(&pf, 1, static_cast<int>(leftMs)) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return fail("the server did not report its port");
        char ch = 0;
        if (::read(m_out, &ch, 1) != 1) return fail("the server exited before listening");
        line.push_back(ch);
    }
    if (line.rfind("PORT ", 0) != 0) return fail("unexpected server output: " + line);
    m_port = static_cast<uint16_t>(std::atoi(line.c_str() + 5));
    return true;
}

std::vector<std::string> settingArgs(const SettingList& settings) {
    std::vector<std::string> out;
    for (const auto& [name, value] : settings) {
        out.push_back("--set");
        out.push_back(name + '=' + value);
    }
    return out;
}

bool parseSettingArg(const std::string& text, SettingList* out) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    out->emplace_back(text.substr(0, eq), text.substr(eq + 1));
    return true;
}

}  // namespace smclab::cli
