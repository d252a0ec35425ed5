// libsmcr's engine: one fabric device, its link groups and connections, the
// settings and the counters. Sockets, listeners and pollers belong to an
// engine; most programs use the process-wide shared one.
//
// Threading: every class of the API is safe to use from several threads.
// The engine runs one background thread that blocks (never spins) on the
// completion channel so protocol messages are handled while the
// application is elsewhere; a thread waiting in the API busy-polls for
// lab.busy_poll_us and then sleeps on the channel (rsocket's sequence).
//
// fork(): the background thread does not survive it. A program that forks
// with connections open (an accept-fork-close server, a client that forks
// after connect) parks the engine first (parkForFork, afterFork in both
// processes); the first process that claims it afterwards runs it on, with
// every connection as it was (sim fabric: its memory is shared), and the
// other process's copy stays parked. libsmcr-preload does this around the
// program's fork() (engine/README.md "fork"). Other processes that fork
// make their own engines in the child.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <smcr/result.h>
#include <smcr/settings.h>
#include <smcr/stats.h>

namespace smcr {

namespace core {
class EngineImpl;
}

class Engine {
public:
    // The process-wide engine, created on first use with default settings
    // (or the settings in SMCR_SETTINGS="name=value,name=value").
    static Result<std::shared_ptr<Engine>> shared();
    // A separate engine (its own device and link groups), with settings
    // applied before the device opens (so lab.fabric and lab.link count).
    static Result<std::shared_ptr<Engine>> create(
        const std::vector<std::pair<std::string, std::string>>& settings = {});

    Settings& settings();
    EngineStats stats() const;
    // When the fabric has timed work due (CLOCK_MONOTONIC ns; 0 = none). The
    // sim runs delayed deliveries and ACKs only inside engine calls, so a
    // loop that sleeps on a Poller's fd() itself wakes by then and calls
    // wait(…, 0) (the waits inside libsmcr do this on their own).
    uint64_t nextDueNs() const;
    // Waits up to timeoutMs until every connection the application closed
    // has handed its peer all it owes: its last bytes and its closing CDC,
    // completed on the wire. The kernel sends those after a process exits;
    // libsmcr exits with the process, so a program calls this before it
    // exits (the shared engine does it by itself, at exit()). A negative
    // timeout waits lab.close_drain_ms, as close() does. True when nothing
    // was left.
    bool flushClosed(int timeoutMs = -1);

    // fork() hand-over (see above). parkForFork() holds the engine's lock
    // until afterFork(), which both processes call; true when it parked
    // (some connection was open). claim(pid): process pid runs the engine
    // from now on: true when it already does, or it was parked and no other
    // process of the family claimed it first.
    bool parkForFork();
    void afterFork();
    bool claim(int pid);
    bool runsIn(int pid) const;
    bool parked() const;
    // In a process that will never claim this parked engine (it holds none
    // of its connections; another process runs it or will): releases this
    // process's fds and mappings of it without changing anything shared.
    // The object stays valid and inert (stats() keeps its counters).
    void discard();

    core::EngineImpl& impl() const { return *m_impl; }
    const std::shared_ptr<core::EngineImpl>& implPtr() const { return m_impl; }

private:
    explicit Engine(std::shared_ptr<core::EngineImpl> impl) : m_impl(std::move(impl)) {}
    std::shared_ptr<core::EngineImpl> m_impl;
};

}  // namespace smcr
