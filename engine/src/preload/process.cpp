#include "process.h"

#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <smcr/stats.h>
#include <smcr/wire/decline_reasons.h>

#include "config.h"
#include "fd_table.h"
#include "real_calls.h"
#include "upgrade.h"

namespace smcr::preload {

namespace {

std::mutex g_engineMutex;
// Leaked on purpose: a process that does not run its copy of an engine
// (fork) must not destroy it, and exit must not wait for it.
std::shared_ptr<Engine>* g_engine = nullptr;
// The engine whose lock this process's fork() holds (beforeFork).
std::shared_ptr<Engine>* g_forking = nullptr;

// Settings changed from outside (`smclab set`) before or after the engine.
std::vector<std::pair<std::string, std::string>>* g_overrides = new std::vector<std::pair<std::string, std::string>>;

std::mutex g_reasonMutex;
std::map<std::string, uint64_t> g_tcpReasons;
// Plain TCP clients of this process's listeners, counted as libsmcr's
// listener counts them (listener_acceptor.cpp queuePlain), merged into the
// engine's counters in statsJson(): a server that only ever saw plain
// clients has no engine.
struct AcceptFallbacks {
    uint64_t total = 0;
    uint64_t fastPath = 0;
    std::map<uint32_t, uint64_t> reasons;
};
AcceptFallbacks g_acceptFallbacks;  // under g_reasonMutex

// The settings an engine of this process starts with (SMCR_SETTINGS, then
// `smclab set`), for decisions made without one. Under g_engineMutex.
Settings* g_noEngineSettings = nullptr;
Settings& noEngineSettingsLocked() {
    if (g_noEngineSettings == nullptr) {
        g_noEngineSettings = new Settings;
        for (const auto& [name, value] : config().settings) (void)g_noEngineSettings->set(name, value);
        for (const auto& [name, value] : *g_overrides) (void)g_noEngineSettings->set(name, value);
    }
    return *g_noEngineSettings;
}

std::atomic<pid_t> g_pid{0};

void jsonString(std::ostringstream& out, const std::string& s) {
    out << '"';
    for (const char c : s) {
        if (c == '"' || c == '\\')
            out << '\\' << c;
        else if (static_cast<unsigned char>(c) < 0x20)
            out << ' ';
        else
            out << c;
    }
    out << '"';
}

}  // namespace

pid_t currentPid() {
    pid_t p = g_pid.load(std::memory_order_relaxed);
    if (p == 0) {
        p = ::getpid();
        g_pid.store(p, std::memory_order_relaxed);
    }
    return p;
}

void refreshPid() {
    g_pid.store(::getpid(), std::memory_order_relaxed);
}

namespace {

// processEngine() under g_engineMutex; `claimed` or `discarded` names the
// parked engine it took back or let go of (closeDeferred and dropDeferred
// run after the lock: a close may wait).
Result<std::shared_ptr<Engine>> processEngineLocked(std::shared_ptr<Engine>& claimed,
                                                    std::shared_ptr<Engine>& discarded) {
    std::lock_guard lock(g_engineMutex);
    if (g_engine != nullptr) {
        Engine& engine = **g_engine;
        const pid_t me = currentPid();
        if (engine.runsIn(me)) return *g_engine;
        // Parked by a fork: this process takes it when it still holds some
        // of its connections (it may use them: a client that forked a
        // worker, a server whose child saves a snapshot); one that closed
        // them all (accept, fork, close) left them to its child and starts
        // an engine of its own.
        if (engine.parked()) {
            if (fdTable().holdsConnectionsOf(&engine)) {
                if (engine.claim(me)) {
                    claimed = *g_engine;
                    return *g_engine;
                }
            } else {
                // Nothing here will use it again: this process's copy lets
                // go of its fds and mappings (an accept-fork-close server
                // would otherwise keep every child's).
                engine.discard();
                discarded = *g_engine;
            }
        }
    }
    if (!config().settingsError.empty()) return fail(Errc::invalidArgument, config().settingsError);
    for (const auto& [name, value] : config().engineEnv) {
        if (std::getenv(name.c_str()) == nullptr) ::setenv(name.c_str(), value.c_str(), 0);
    }
    std::vector<std::pair<std::string, std::string>> settings = config().settings;
    settings.insert(settings.end(), g_overrides->begin(), g_overrides->end());
    // libsmcr's threads start with every signal blocked (they inherit this
    // mask): the program's signals go to its own threads, so a blocked recv
    // gets its EINTR and handlers never run inside the engine.
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    auto made = Engine::create(settings);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (!made) return fail(made.error());
    g_engine = new std::shared_ptr<Engine>(made.value());
    return *g_engine;
}

}  // namespace

Result<std::shared_ptr<Engine>> processEngine() {
    std::shared_ptr<Engine> claimed;
    std::shared_ptr<Engine> discarded;
    auto engine = processEngineLocked(claimed, discarded);
    if (claimed) closeDeferred(*claimed);
    if (discarded) dropDeferred(*discarded);
    return engine;
}

Status applySetting(const std::string& name, const std::string& value) {
    Settings check;
    if (Status s = check.set(name, value); !s) return s;
    std::shared_ptr<Engine> engine;
    {
        std::lock_guard lock(g_engineMutex);
        g_overrides->emplace_back(name, value);
        (void)noEngineSettingsLocked().set(name, value);
        if (g_engine != nullptr && (*g_engine)->runsIn(currentPid())) engine = *g_engine;
    }
    if (engine) return engine->settings().set(name, value);
    return {};
}

uint64_t settingValue(SettingId id) {
    if (auto engine = existingEngine()) return engine->settings().get(id);
    std::lock_guard lock(g_engineMutex);
    return noEngineSettingsLocked().get(id);
}

void countAcceptFallback(wire::DeclineReason reason, bool fastPath) {
    std::lock_guard lock(g_reasonMutex);
    ++g_acceptFallbacks.total;
    ++g_acceptFallbacks.reasons[static_cast<uint32_t>(reason)];
    if (fastPath) ++g_acceptFallbacks.fastPath;
}

std::shared_ptr<Engine> existingEngine() {
    std::lock_guard lock(g_engineMutex);
    if (g_engine != nullptr && (*g_engine)->runsIn(currentPid())) return *g_engine;
    return nullptr;
}

bool runsHere(const Conn& conn) {
    return conn.engine && conn.engine->runsIn(currentPid());
}

bool usableHere(Conn& conn) {
    const pid_t me = currentPid();
    if (!conn.engine) return false;
    if (conn.engine->runsIn(me)) return true;
    if (!conn.engine->claim(me)) return false;
    {
        // The engine this process claimed becomes its engine for new
        // connections too, unless it runs one already.
        std::lock_guard lock(g_engineMutex);
        if (g_engine == nullptr || !(*g_engine)->runsIn(me)) g_engine = new std::shared_ptr<Engine>(conn.engine);
    }
    logLine("claimed the engine of an inherited SMC-R connection (" + conn.peer + ")");
    closeDeferred(*conn.engine);
    return true;
}

// The preload's own locks are held across fork() (a child must not find
// one held by a thread that does not exist there), and the engine's
// (Engine::parkForFork) for a consistent copy of it.
void beforeFork() {
    g_engineMutex.lock();
    g_forking = nullptr;
    if (g_engine != nullptr && (*g_engine)->runsIn(currentPid())) {
        (void)(*g_engine)->parkForFork();
        g_forking = g_engine;
    }
    g_reasonMutex.lock();
}

namespace {
void releaseForkLocks() {
    g_reasonMutex.unlock();
    if (g_forking != nullptr) (*g_forking)->afterFork();
    g_forking = nullptr;
    g_engineMutex.unlock();
}
}  // namespace

void afterForkParent() {
    releaseForkLocks();
}

void afterForkChild() {
    refreshPid();
    g_tcpReasons.clear();
    g_acceptFallbacks = AcceptFallbacks{};
    releaseForkLocks();
    Counters& c = counters();
    for (std::atomic<uint64_t>* n : {&c.smcClient, &c.smcServer, &c.tcpClient, &c.tcpServer, &c.smcTxBytes,
                                     &c.smcRxBytes, &c.tcpTxBytes, &c.tcpRxBytes, &c.inheritedIo}) {
        n->store(0, std::memory_order_relaxed);
    }
}

const timespec* boundedSleep(int waitMs, timespec& ts, bool* bounded) {
    *bounded = false;
    uint64_t sleepNs = waitMs < 0 ? UINT64_MAX : uint64_t(waitMs) * 1000000;
    if (auto engine = existingEngine()) {
        if (const uint64_t due = engine->nextDueNs(); due != 0) {
            timespec now{};
            ::clock_gettime(CLOCK_MONOTONIC, &now);
            const uint64_t nowNs = uint64_t(now.tv_sec) * 1000000000ull + uint64_t(now.tv_nsec);
            const uint64_t left = due > nowNs ? due - nowNs : 0;
            if (left < sleepNs) {
                sleepNs = left;
                *bounded = true;
            }
        }
    }
    if (sleepNs == UINT64_MAX) return nullptr;
    ts.tv_sec = static_cast<time_t>(sleepNs / 1000000000ull);
    ts.tv_nsec = static_cast<long>(sleepNs % 1000000000ull);
    return &ts;
}

bool spinUntilReady(const std::function<bool()>& ready) {
    auto engine = existingEngine();
    if (!engine) return false;
    const uint64_t spinUs = engine->settings().get(SettingId::busyPollUs);
    if (spinUs == 0) return false;
    timespec start{};
    ::clock_gettime(CLOCK_MONOTONIC, &start);
    const uint64_t startNs = uint64_t(start.tv_sec) * 1000000000ull + uint64_t(start.tv_nsec);
    for (;;) {
        if (ready()) return true;
        timespec now{};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        const uint64_t nowNs = uint64_t(now.tv_sec) * 1000000000ull + uint64_t(now.tv_nsec);
        if (nowNs - startNs >= spinUs * 1000) return false;
    }
}

Counters& counters() {
    static Counters* c = new Counters;
    return *c;
}

void countTcp(bool client, const std::string& reason) {
    (client ? counters().tcpClient : counters().tcpServer).fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(g_reasonMutex);
    ++g_tcpReasons[(client ? "client." : "server.") + reason];
}

void logLine(const std::string& line) {
    if (!config().verbose) return;
    const std::string text = "smcr[" + std::to_string(currentPid()) + " " + config().program + "]: " + line + "\n";
    (void)real().write(STDERR_FILENO, text.data(), text.size());
}

std::string statsJson() {
    std::ostringstream out;
    const Counters& c = counters();
    out << "{\n  \"pid\": " << currentPid() << ",\n  \"program\": ";
    jsonString(out, config().program);
    out << ",\n  \"smc_connections\": " << (c.smcClient + c.smcServer) << ",\n  \"smc_client\": " << c.smcClient
        << ",\n  \"smc_server\": " << c.smcServer << ",\n  \"tcp_connections\": " << (c.tcpClient + c.tcpServer)
        << ",\n  \"app_tx_bytes\": " << (c.smcTxBytes + c.tcpTxBytes)
        << ",\n  \"app_rx_bytes\": " << (c.smcRxBytes + c.tcpRxBytes) << ",\n  \"smc_tx_bytes\": " << c.smcTxBytes
        << ",\n  \"smc_rx_bytes\": " << c.smcRxBytes << ",\n  \"tcp_tx_bytes\": " << c.tcpTxBytes
        << ",\n  \"tcp_rx_bytes\": " << c.tcpRxBytes << ",\n  \"inherited_io\": " << c.inheritedIo
        << ",\n  \"fallbacks\": {";
    {
        std::lock_guard lock(g_reasonMutex);
        bool first = true;
        for (const auto& [reason, n] : g_tcpReasons) {
            out << (first ? "" : ",") << "\n    ";
            jsonString(out, reason);
            out << ": " << n;
            first = false;
        }
    }
    out << "\n  },\n  \"engine\": {";
    const auto engine = existingEngine();
    EngineStats stats = engine ? engine->stats() : EngineStats{};
    bool acceptFallbacks = false;
    {
        std::lock_guard lock(g_reasonMutex);
        acceptFallbacks = g_acceptFallbacks.total > 0;
        stats.serverFallbacks += g_acceptFallbacks.total;
        stats.fastFallbackAccepts += g_acceptFallbacks.fastPath;
        for (const auto& [reason, n] : g_acceptFallbacks.reasons) stats.serverFallbackReasons[reason] += n;
    }
    if (engine || acceptFallbacks) {
        bool first = true;
        for (const auto& [name, value] : stats.flatten()) {
            out << (first ? "" : ",") << "\n    ";
            jsonString(out, name);
            out << ": " << value;
            first = false;
        }
    }
    out << "\n  },\n  \"settings\": {";
    if (engine) {
        bool first = true;
        for (const SettingValue& v : engine->settings().list()) {
            out << (first ? "" : ",") << "\n    ";
            jsonString(out, v.name);
            out << ": ";
            jsonString(out, v.value);
            first = false;
        }
    }
    out << "\n  }\n}\n";
    return out.str();
}

void writeStatsFile() {
    const std::string& dir = config().statsDir;
    if (dir.empty()) return;
    const std::string text = statsJson();
    const std::string path = dir + "/smcr-" + std::to_string(currentPid()) + ".json";
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const bool ok = real().write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    real().close(fd);
    if (ok) ::rename(tmp.c_str(), path.c_str());
}

}  // namespace smcr::preload
