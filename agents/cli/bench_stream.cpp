// smclab bench stream: qperf-style tcp_bw / tcp_lat between two local
// processes, over libsmcr (SMC-R on the sim fabric) or kernel TCP, with
// --compare printing both side by side with the SMC/TCP ratio per size.
//
// The server is this program re-executed with --serve (hidden), so client
// and server are separate processes with their own engines. Per message
// size the client opens a connection, sends a 16-byte request
// {test, msg_size, duration_ms}, and then:
//   tcp_bw:  streams msg_size messages for the duration and shuts down
//            writing; the server counts bytes from the first byte to EOF and
//            answers {bytes, nanoseconds}: bandwidth at the receiver.
//   tcp_lat: ping-pong of msg_size messages for the duration; one-way
//            latency = round trip / 2 (mean, p50, p99), as qperf reports it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include "args.h"
#include "bench_commands.h"

extern char** environ;

namespace smclab::cli {

namespace {

enum class Test : uint32_t { bw = 1, lat = 2 };

struct Request {
    uint32_t test = 0;
    uint32_t msgSize = 0;
    uint64_t durationMs = 0;
};

uint64_t nowNs() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

// One connection, over libsmcr or a kernel socket.
class Conn {
public:
    virtual ~Conn() = default;
    virtual ssize_t send(const void* data, size_t len) = 0;  // -1 on error
    virtual ssize_t recv(void* data, size_t len) = 0;        // 0 = EOF, -1 error
    virtual void shutdownWrite() = 0;
    virtual bool fellBack() const { return false; }

    bool sendAll(const void* data, size_t len) {
        const auto* p = static_cast<const uint8_t*>(data);
        while (len > 0) {
            const ssize_t n = send(p, len);
            if (n <= 0) return false;
            p += n;
            len -= static_cast<size_t>(n);
        }
        return true;
    }
    bool recvAll(void* data, size_t len) {
        auto* p = static_cast<uint8_t*>(data);
        while (len > 0) {
            const ssize_t n = recv(p, len);
            if (n <= 0) return false;
            p += n;
            len -= static_cast<size_t>(n);
        }
        return true;
    }
};

class SmcrConn : public Conn {
public:
    explicit SmcrConn(smcr::Socket s) : m_s(std::move(s)) {}
    ~SmcrConn() override { m_s.close(); }
    ssize_t send(const void* data, size_t len) override {
        auto r = m_s.send(data, len);
        return r ? static_cast<ssize_t>(r.value()) : -1;
    }
    ssize_t recv(void* data, size_t len) override {
        auto r = m_s.recv(data, len);
        return r ? static_cast<ssize_t>(r.value()) : -1;
    }
    void shutdownWrite() override { (void)m_s.shutdown(SHUT_WR); }
    bool fellBack() const override { return m_s.fellBack(); }

private:
    smcr::Socket m_s;
};

class TcpConn : public Conn {
public:
    explicit TcpConn(int fd) : m_fd(fd) {}
    ~TcpConn() override { ::close(m_fd); }
    ssize_t send(const void* data, size_t len) override { return ::send(m_fd, data, len, MSG_NOSIGNAL); }
    ssize_t recv(void* data, size_t len) override { return ::recv(m_fd, data, len, 0); }
    void shutdownWrite() override { ::shutdown(m_fd, SHUT_WR); }

private:
    int m_fd;
};

void pinToCpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    ::sched_setaffinity(0, sizeof set, &set);
}

std::shared_ptr<smcr::Engine> makeEngine(const std::string& link, const std::string& busyPollUs) {
    std::vector<std::pair<std::string, std::string>> settings = {{"lab.link", link}};
    if (!busyPollUs.empty()) settings.emplace_back("lab.busy_poll_us", busyPollUs);
    auto e = smcr::Engine::create(settings);
    if (!e) {
        std::fprintf(stderr, "smclab bench stream: engine: %s\n", e.error().toString().c_str());
        return nullptr;
    }
    return e.value();
}

void serveOne(Conn& c) {
    Request req;
    if (!c.recvAll(&req, sizeof req)) return;
    std::vector<uint8_t> buf(std::max<uint32_t>(req.msgSize, 256 * 1024));
    if (req.test == static_cast<uint32_t>(Test::bw)) {
        uint64_t bytes = 0;
        uint64_t start = 0;
        for (;;) {
            const ssize_t n = c.recv(buf.data(), buf.size());
            if (n <= 0) break;
            if (start == 0) start = nowNs();
            bytes += static_cast<uint64_t>(n);
        }
        const uint64_t result[2] = {bytes, start == 0 ? 0 : nowNs() - start};
        c.sendAll(result, sizeof result);
    } else {
        while (c.recvAll(buf.data(), req.msgSize)) {
            if (!c.sendAll(buf.data(), req.msgSize)) break;
        }
    }
}

int runServer(const std::string& transport, const std::string& link, const std::string& busyPollUs, bool pin) {
    if (pin) pinToCpu(1);
    if (transport == "smcr") {
        auto engine = makeEngine(link, busyPollUs);
        if (!engine) return kExitFailure;
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, engine);
        if (!l) {
            std::fprintf(stderr, "smclab bench stream: listen: %s\n", l.error().toString().c_str());
            return kExitFailure;
        }
        std::printf("PORT %u\n", l->localPort());
        std::fflush(stdout);
        for (;;) {
            auto s = l->accept();
            if (!s) return kExitFailure;
            SmcrConn c(s.value());
            serveOne(c);
        }
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 16) != 0) {
        std::perror("smclab bench stream: listen");
        return kExitFailure;
    }
    socklen_t len = sizeof sa;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
    std::printf("PORT %u\n", ntohs(sa.sin_port));
    std::fflush(stdout);
    for (;;) {
        const int c = ::accept(fd, nullptr, nullptr);
        if (c < 0) return kExitFailure;
        TcpConn conn(c);
        serveOne(conn);
    }
}

// The server process of one transport.
class ServerProcess {
public:
    ~ServerProcess() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
    }
    bool start(const std::vector<std::string>& args) {
        int fds[2];
        if (::pipe(fds) != 0) return false;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
        std::vector<std::string> all = {"/proc/self/exe", "bench", "stream", "--serve"};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int rc = ::posix_spawn(&m_pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(fds[1]);
        if (rc != 0) {
            m_pid = -1;
            ::close(fds[0]);
            return false;
        }
        std::string line;
        char ch;
        while (::read(fds[0], &ch, 1) == 1 && ch != '\n') line.push_back(ch);
        ::close(fds[0]);
        if (line.rfind("PORT ", 0) != 0) return false;
        m_port = static_cast<uint16_t>(std::stoi(line.substr(5)));
        return true;
    }
    uint16_t port() const { return m_port; }

private:
    pid_t m_pid = -1;
    uint16_t m_port = 0;
};

struct Result {
    double bwMBs = 0;
    double latMeanUs = 0;
    double latP50Us = 0;
    double latP99Us = 0;
    bool ok = false;
};

std::unique_ptr<Conn> connectTo(const std::string& transport, uint16_t port,
                                const std::shared_ptr<smcr::Engine>& engine) {
    if (transport == "smcr") {
        smcr::ConnectOptions o;
        o.engine = engine;
        auto s = smcr::Socket::connect("127.0.0.1", port, o);
        if (!s) {
            std::fprintf(stderr, "smclab bench stream: connect: %s\n", s.error().toString().c_str());
            return nullptr;
        }
        return std::make_unique<SmcrConn>(s.value());
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        std::perror("smclab bench stream: connect");
        ::close(fd);
        return nullptr;
    }
    return std::make_unique<TcpConn>(fd);
}

Result runOne(const std::string& transport, uint16_t port, const std::shared_ptr<smcr::Engine>& engine, Test test,
              uint32_t msgSize, uint64_t durationMs) {
    Result r;
    auto c = connectTo(transport, port, engine);
    if (!c) return r;
    if (c->fellBack()) std::fprintf(stderr, "smclab bench stream: warning: the smcr connection fell back to TCP\n");
    const Request req{static_cast<uint32_t>(test), msgSize, durationMs};
    if (!c->sendAll(&req, sizeof req)) return r;
    std::vector<uint8_t> buf(msgSize, 0xA5);
    const uint64_t end = nowNs() + durationMs * 1000000;
    if (test == Test::bw) {
        while (nowNs() < end) {
            if (!c->sendAll(buf.data(), msgSize)) return r;
        }
        c->shutdownWrite();
        uint64_t result[2] = {0, 0};
        if (!c->recvAll(result, sizeof result) || result[1] == 0) return r;
        r.bwMBs = static_cast<double>(result[0]) * 1e3 / static_cast<double>(result[1]);  // bytes/ns*1e9/1e6
        r.ok = true;
        return r;
    }
    std::vector<uint32_t> rttNs;
    rttNs.reserve(1 << 20);
    while (nowNs() < end) {
        const uint64_t t0 = nowNs();
        if (!c->sendAll(buf.data(), msgSize) || !c->recvAll(buf.data(), msgSize)) return r;
        rttNs.push_back(static_cast<uint32_t>(std::min<uint64_t>(nowNs() - t0, UINT32_MAX)));
    }
    if (rttNs.empty()) return r;
    double sum = 0;
    for (uint32_t v : rttNs) sum += v;
    std::sort(rttNs.begin(), rttNs.end());
    r.latMeanUs = sum / static_cast<double>(rttNs.size()) / 2000.0;
    r.latP50Us = rttNs[rttNs.size() / 2] / 2000.0;
    r.latP99Us = rttNs[std::min(rttNs.size() - 1, rttNs.size() * 99 / 100)] / 2000.0;
    r.ok = true;
    return r;
}

std::string sizeText(uint64_t size) {
    if (size >= 1024 && size % 1024 == 0) return std::to_string(size / 1024) + "K";
    return std::to_string(size);
}

void printHelp() {
    std::printf(
        "usage: smclab bench stream [--transport smcr|tcp] [--test tcp_bw|tcp_lat[,..]]\n"
        "                           [-oo msg_size:1:64K:*2] [-t SECONDS] [--link ideal|cx4-25g]\n"
        "                           [--compare] [--busy-poll-us N] [--no-pin]\n"
        "\n"
        "qperf-style stream tests between two local processes (client and server),\n"
        "over libsmcr on the sim fabric (smcr) or kernel TCP (tcp):\n"
        "  tcp_bw   bandwidth at the receiver, MB/sec (10^6 bytes)\n"
        "  tcp_lat  one-way latency = round trip / 2: mean, p50, p99\n"
        "\n"
        "options:\n"
        "  --transport T     smcr (default) or tcp\n"
        "  --test LIST       tcp_bw, tcp_lat or both (default tcp_bw,tcp_lat)\n"
        "  -oo LOOP          message sizes, qperf loop syntax (default msg_size:1:64K:*2)\n"
        "  -t SECONDS        time per size and test (default 2; 500ms works)\n"
        "  --link NAME       sim link model for smcr: ideal (default) or cx4-25g\n"
        "  --compare         run smcr and tcp and print one table with SMC/TCP per size\n"
        "  --busy-poll-us N  libsmcr lab.busy_poll_us in both processes (default: the engine's)\n"
        "  --no-pin          do not pin client and server to CPUs 0 and 1\n");
}

int usage(const std::string& message) {
    std::fprintf(stderr, "smclab bench stream: %s\n(see smclab bench stream --help)\n", message.c_str());
    return kExitUsage;
}

}  // namespace

int runBenchStream(const Args& args) {
    std::string transport = "smcr";
    std::string link = "ideal";
    std::string busyPollUs;
    std::vector<Test> tests = {Test::bw, Test::lat};
    SizeLoop loop;
    loop.first = 1;
    loop.last = 64 * 1024;
    loop.step = 2;
    loop.multiply = true;
    uint64_t durationMs = 2000;
    bool compare = false;
    bool serve = false;
    bool pin = true;
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--transport")) {
            if (*v != "smcr" && *v != "tcp") return usage("--transport must be smcr or tcp");
            transport = *v;
        } else if (auto t = cursor.takeValue("--test")) {
            tests.clear();
            size_t start = 0;
            while (start <= t->size()) {
                const size_t comma = t->find(',', start);
                const std::string name = t->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                if (name == "tcp_bw") tests.push_back(Test::bw);
                else if (name == "tcp_lat") tests.push_back(Test::lat);
                else return usage("unknown test '" + name + "' (tcp_bw, tcp_lat)");
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        } else if (auto oo = cursor.takeValue("-oo")) {
            std::string error;
            auto parsed = parseSizeLoop(*oo, &error);
            if (!parsed) return usage("-oo: " + error);
            loop = *parsed;
        } else if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 10 || *ms > 3600000) return usage("-t needs a duration 10ms..1h");
            durationMs = *ms;
        } else if (auto l = cursor.takeValue("--link")) {
            if (*l != "ideal" && *l != "cx4-25g") return usage("--link must be ideal or cx4-25g");
            link = *l;
        } else if (auto b = cursor.takeValue("--busy-poll-us")) {
            auto n = parseInt(*b);
            if (!n || *n < 0 || *n > 10000000) return usage("--busy-poll-us needs 0..10000000");
            busyPollUs = std::to_string(*n);
        } else if (cursor.takeFlag("--compare")) {
            compare = true;
        } else if (cursor.takeFlag("--serve")) {
            serve = true;
        } else if (cursor.takeFlag("--no-pin")) {
            pin = false;
        } else if (!cursor.error().empty()) {
            return usage(cursor.error());
        } else {
            return usage("unknown option '" + cursor.peek() + "'");
        }
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (serve) return runServer(transport, link, busyPollUs, pin);
    if (loop.variable != "msg_size") return usage("-oo loops over msg_size only");
    const std::vector<uint64_t> sizes = loop.values();
    if (sizes.empty() || sizes.front() < 1 || sizes.back() > (16u << 20)) return usage("message sizes must be 1..16M");

    const std::vector<std::string> transports = compare ? std::vector<std::string>{"smcr", "tcp"}
                                                        : std::vector<std::string>{transport};
    std::vector<std::unique_ptr<ServerProcess>> servers;
    for (const std::string& tr : transports) {
        std::vector<std::string> serverArgs = {"--transport", tr, "--link", link};
        if (!busyPollUs.empty()) serverArgs.insert(serverArgs.end(), {"--busy-poll-us", busyPollUs});
        if (!pin) serverArgs.push_back("--no-pin");
        auto p = std::make_unique<ServerProcess>();
        if (!p->start(serverArgs)) {
            std::fprintf(stderr, "smclab bench stream: the %s server did not start\n", tr.c_str());
            return kExitFailure;
        }
        servers.push_back(std::move(p));
    }
    if (pin) pinToCpu(0);
    std::shared_ptr<smcr::Engine> engine = makeEngine(link, busyPollUs);
    if (!engine) return kExitFailure;

    bool allOk = true;
    for (Test test : tests) {
        const char* name = test == Test::bw ? "tcp_bw" : "tcp_lat";
        // results[size][transport]
        std::vector<std::vector<Result>> results(sizes.size(), std::vector<Result>(transports.size()));
        for (size_t t = 0; t < transports.size(); ++t) {
            if (!compare) std::printf("%s (%s%s):\n", name, transports[t].c_str(),
                                      transports[t] == "smcr" ? (", link " + link).c_str() : "");
            for (size_t i = 0; i < sizes.size(); ++i) {
                const Result r = runOne(transports[t], servers[t]->port(), engine, test,
                                        static_cast<uint32_t>(sizes[i]), durationMs);
                results[i][t] = r;
                allOk = allOk && r.ok;
                if (compare) continue;
                std::printf("    msg_size  =  %8s bytes\n", sizeText(sizes[i]).c_str());
                if (!r.ok) {
                    std::printf("    failed\n");
                } else if (test == Test::bw) {
                    std::printf("    bw        =  %10.2f MB/sec\n", r.bwMBs);
                } else {
                    std::printf("    latency   =  %10.2f us   (p50 %.2f us, p99 %.2f us)\n", r.latMeanUs, r.latP50Us,
                                r.latP99Us);
                }
                std::fflush(stdout);
            }
        }
        if (!compare) continue;
        std::printf("==== %s: %s, link %s, %.1f s per size ====\n", name,
                    test == Test::bw ? "bandwidth MB/sec at the receiver" : "one-way latency us (mean, p50, p99)",
                    link.c_str(), static_cast<double>(durationMs) / 1000.0);
        if (test == Test::bw) {
            std::printf("%-8s %12s %12s %9s\n", "MsgSize", "SMC-R", "TCP", "SMC/TCP");
        } else {
            std::printf("%-8s %10s %8s %8s %10s %8s %8s %9s\n", "MsgSize", "SMC-R", "p50", "p99", "TCP", "p50", "p99",
                        "SMC/TCP");
        }
        for (size_t i = 0; i < sizes.size(); ++i) {
            const Result& s = results[i][0];
            const Result& k = results[i][1];
            if (test == Test::bw) {
                std::printf("%-8s %12.2f %12.2f %8.2fx\n", sizeText(sizes[i]).c_str(), s.bwMBs, k.bwMBs,
                            k.bwMBs > 0 ? s.bwMBs / k.bwMBs : 0.0);
            } else {
                std::printf("%-8s %10.2f %8.2f %8.2f %10.2f %8.2f %8.2f %8.2fx\n", sizeText(sizes[i]).c_str(),
                            s.latMeanUs, s.latP50Us, s.latP99Us, k.latMeanUs, k.latP50Us, k.latP99Us,
                            k.latMeanUs > 0 ? s.latMeanUs / k.latMeanUs : 0.0);
            }
        }
        std::fflush(stdout);
    }
    return allOk ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
