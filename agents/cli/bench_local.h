// Building blocks of the local two-process benchmarks (`smclab bench stream`,
// `sendfile`, `accept`, `kv`): one connection over libsmcr or kernel TCP, the
// server process (this program re-executed with a hidden --serve), engines
// made from setting lists, CPU pinning and engine counter snapshots.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <smcr/engine.h>

namespace smclab::cli {

using SettingList = std::vector<std::pair<std::string, std::string>>;
// Engine counters by their flat smc_stats-like names ("smcr.cq_events").
using CounterMap = std::map<std::string, uint64_t>;

uint64_t nowNs();
void pinToCpu(int cpu);

// One connection, over libsmcr or a kernel socket. The corking calls map to
// TCP_CORK / MSG_MORE on kernel sockets and to libsmcr's cork.
class BenchConn {
public:
    virtual ~BenchConn() = default;
    virtual ssize_t send(const void* data, size_t len, bool more = false) = 0;  // -1 on error
    virtual ssize_t recv(void* data, size_t len) = 0;                           // 0 = EOF, -1 error
    virtual ssize_t sendfile(int fileFd, off_t offset, size_t len) = 0;         // -1 on error
    virtual bool setCork(bool enabled) = 0;
    virtual void shutdownWrite() = 0;
    virtual bool fellBack() const { return false; }

    bool sendAll(const void* data, size_t len);
    bool recvAll(void* data, size_t len);
    bool sendfileAll(int fileFd, off_t offset, size_t len);
};

// "smcr" or "tcp". Prints the reason to stderr (prefixed with `who`) and
// returns null on failure.
std::unique_ptr<BenchConn> connectBench(const std::string& transport, uint16_t port,
                                        const std::shared_ptr<smcr::Engine>& engine, const char* who);

// An engine with `settings` applied before its device opens; prints the
// engine's error (an unknown or bad setting names itself) and returns null.
std::shared_ptr<smcr::Engine> makeBenchEngine(const SettingList& settings, const char* who, std::string* error = nullptr);

CounterMap counterSnapshot(const smcr::Engine& engine);
// after - before per name (gauges that went down count 0).
CounterMap counterDelta(const CounterMap& after, const CounterMap& before);
// "name value\n" lines and back.
std::string encodeCounters(const CounterMap& counters);
CounterMap decodeCounters(const std::string& text);

// A kernel TCP connection to 127.0.0.1:port, or -1 with errno set.
int connectLoopback(uint16_t port);
// A BenchConn over a connected kernel socket (closed with it).
std::unique_ptr<BenchConn> tcpBenchConn(int fd);

// Accepts connections on 127.0.0.1, ephemeral port, over one transport.
class BenchListener {
public:
    virtual ~BenchListener() = default;
    virtual std::unique_ptr<BenchConn> accept() = 0;  // null on failure
    virtual uint16_t port() const = 0;
};
std::unique_ptr<BenchListener> listenBench(const std::string& transport, const std::shared_ptr<smcr::Engine>& engine,
                                           const char* who, int backlog = 64);

// The server process of one column: `smclab bench SUB --serve ARGS...`,
// killed when this object goes away. start() waits (up to 30 s) for its
// "PORT n" line; on failure `error` (if given) says why.
class ServerProcess {
public:
    ServerProcess() = default;
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;
    ~ServerProcess();
    bool start(const std::string& sub, const std::vector<std::string>& args, std::string* error = nullptr);
    uint16_t port() const { return m_port; }

private:
    pid_t m_pid = -1;
    int m_out = -1;  // the server's stdout, open while it runs so a later line never meets EPIPE
    uint16_t m_port = 0;
};

// "--set NAME=VALUE" words for a server command line, and back.
std::vector<std::string> settingArgs(const SettingList& settings);
bool parseSettingArg(const std::string& text, SettingList* out);

}  // namespace smclab::cli
