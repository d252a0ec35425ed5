// Per-process state of the preload: the engine (made on first SMC use, and
// again in a forked child), the preload's own counters, the -v log line
// and the counters file written at exit.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <smcr/engine.h>
#include <smcr/poller.h>
#include <smcr/result.h>
#include <smcr/wire/decline_reasons.h>

namespace smcr::preload {

// The engine of this process; a child after fork() gets its own.
Result<std::shared_ptr<Engine>> processEngine();
// The engine if this process runs one (counters), else null.
std::shared_ptr<Engine> existingEngine();

// May this process use the connection? After fork() the first process to
// use one of a parked engine's connections claims the engine (and runs it
// as its own); the other processes' copies answer EIO. Every I/O, option
// and poll on an SMC fd asks first; close() does not claim (runsHere).
struct Conn;
bool usableHere(Conn& conn);
bool runsHere(const Conn& conn);

// Around the program's fork(): parks this process's engine when it has
// open connections (Engine::parkForFork), and starts a child's counters
// from zero (each process's counters file counts what it did).
void beforeFork();
void afterForkParent();
void afterForkChild();

struct Counters {
    std::atomic<uint64_t> smcClient{0};   // connections upgraded to SMC-R as client
    std::atomic<uint64_t> smcServer{0};   // ... as server
    std::atomic<uint64_t> tcpClient{0};   // connections that stayed TCP as client
    std::atomic<uint64_t> tcpServer{0};   // ... as server
    std::atomic<uint64_t> smcTxBytes{0};  // application bytes sent over SMC-R
    std::atomic<uint64_t> smcRxBytes{0};
    std::atomic<uint64_t> tcpTxBytes{0};  // application bytes over TCP (tracked sockets)
    std::atomic<uint64_t> tcpRxBytes{0};
    std::atomic<uint64_t> inheritedIo{0};  // I/O on an SMC fd another process took after fork (EIO)
};
Counters& counters();

// A live setting change (`smclab set`): on the engine when there is one,
// and for engines this process makes later. Checked against the table.
Status applySetting(const std::string& name, const std::string& value);

// Counts a TCP connection under its reason (a decline name such as
// "PEERNOSMC", or the preload's own: "not_libsmcr_peer" (no preloaded listener answers there),
// "tcp_port", "engine_error").
void countTcp(bool client, const std::string& reason);
// A plain TCP client taken by a listener of this process, counted in the
// engine's server fallback counters (and smcr.fast_fallback_accepts for
// fastPath), as libsmcr's own listener counts it; there may be no engine.
void countAcceptFallback(wire::DeclineReason reason, bool fastPath);
// A libsmcr setting: the engine's, or the value an engine would start with.
uint64_t settingValue(SettingId id);

// The sleep of a thread about to block in the kernel for libsmcr's sake:
// waitMs (-1 = forever) cut at the fabric's next due time (Engine::nextDueNs).
// Fills ts and returns it, or null for no bound; *bounded is set when the
// fabric's time cut it (the sleep ending then is no timeout).
const timespec* boundedSleep(int waitMs, timespec& ts, bool* bounded);

// lab.busy_poll_us, as libsmcr's own waits do it: calls ready() until it
// says yes or the time is up (true: ready). Waking a sleeper costs tens of
// microseconds here, and much more on a loaded host.
bool spinUntilReady(const std::function<bool()>& ready);

// A wait of the program's own (epoll_wait, poll, select) with a Poller's fd
// among its kernel fds, for its whole duration: spinning and sleeping.
class ForeignWait {
public:
    explicit ForeignWait(Poller& poller) : m_poller(poller) { m_poller.beginForeignWait(); }
    ~ForeignWait() { m_poller.endForeignWait(); }
    ForeignWait(const ForeignWait&) = delete;
    ForeignWait& operator=(const ForeignWait&) = delete;

private:
    Poller& m_poller;
};

// -v: one line on stderr (never stdout).
void logLine(const std::string& line);

// pid of this process, kept current across fork (getpid() costs a syscall
// on every I/O otherwise).
pid_t currentPid();
void refreshPid();

// <SMCR_STATS_DIR>/smcr-<pid>.json now (at exit, and for `smclab stat`).
std::string statsJson();
void writeStatsFile();

}  // namespace smcr::preload
