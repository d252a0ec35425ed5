#include <cstdlib>
#include <mutex>

#include <unistd.h>

#include <smcr/engine.h>

#include "core/shell/engine_impl.h"

namespace smcr {

namespace {

// "name=value,name=value" from SMCR_SETTINGS.
Result<std::vector<std::pair<std::string, std::string>>> settingsFromEnv() {
    std::vector<std::pair<std::string, std::string>> out;
    const char* env = std::getenv("SMCR_SETTINGS");
    if (env == nullptr) return out;
    std::string text(env);
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find(',', pos);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(pos, end - pos);
        const size_t eq = item.find('=');
        if (eq == std::string::npos) return fail(Errc::invalidArgument, "SMCR_SETTINGS: '" + item + "' has no '='");
        out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        pos = end + 1;
    }
    return out;
}

// The process-wide engine: leaked on purpose (exit must not tear it down
// under the threads still running), and owned by the process that made it.
std::mutex g_sharedMutex;
std::shared_ptr<Engine>* g_shared = nullptr;
pid_t g_sharedOwner = 0;

void flushSharedAtExit() {
    std::lock_guard lock(g_sharedMutex);
    // A forked child that exits leaves its parent's engine alone.
    if (g_shared != nullptr && g_sharedOwner == ::getpid()) (void)(*g_shared)->flushClosed();
}

}  // namespace

Result<std::shared_ptr<Engine>> Engine::shared() {
    std::lock_guard lock(g_sharedMutex);
    // A forked child must not use its parent's engine (its thread and shared
    // memory stayed behind): it gets its own, the inherited one is left alone.
    if (g_shared == nullptr || g_sharedOwner != ::getpid()) {
        auto settings = settingsFromEnv();
        if (!settings) return fail(settings.error());
        auto made = create(settings.value());
        if (!made) return fail(made.error());
        // A child inherits the exit hook with the rest of the process.
        if (g_shared == nullptr) std::atexit(flushSharedAtExit);
        g_shared = new std::shared_ptr<Engine>(made.value());
        g_sharedOwner = ::getpid();
    }
    return *g_shared;
}

Result<std::shared_ptr<Engine>> Engine::create(const std::vector<std::pair<std::string, std::string>>& settings) {
    auto impl = core::EngineImpl::create(settings);
    if (!impl) return fail(impl.error());
    return std::shared_ptr<Engine>(new Engine(impl.value()));
}

Settings& Engine::settings() {
    return m_impl->settings();
}
EngineStats Engine::stats() const {
    return m_impl->stats();
}

uint64_t Engine::nextDueNs() const {
    if (m_impl->discarded()) return 0;
    std::lock_guard lock(m_impl->mutex());
    return m_impl->nextDueNsLocked();
}

bool Engine::parkForFork() {
    return m_impl->parkForFork();
}
void Engine::afterFork() {
    m_impl->afterFork();
}
bool Engine::claim(int pid) {
    return m_impl->claim(pid);
}
void Engine::discard() {
    m_impl->discard();
}
bool Engine::runsIn(int pid) const {
    return m_impl->runsIn(pid);
}
bool Engine::parked() const {
    return m_impl->parked();
}

bool Engine::flushClosed(int timeoutMs) {
    // A copy of an engine that another process runs (fork) is not ours to drive.
    if (!m_impl->runsIn(::getpid())) return true;
    const uint64_t ms = timeoutMs < 0 ? settings().get(SettingId::closeDrainMs) : uint64_t(timeoutMs);
    std::unique_lock lock(m_impl->mutex());
    const uint64_t deadlineNs = core::monotonicNs() + ms * 1000000ull + 1;
    return m_impl->flushClosedLocked(lock, deadlineNs);
}

}  // namespace smcr
