#include <algorithm>
#include <atomic>
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

// The shared engine as flushSharedAtExit sees it: never destroyed, so the
// raw pointer stays valid; a forked child that exits leaves its parent's alone.
std::atomic<Engine*> g_sharedEngine{nullptr};
std::atomic<pid_t> g_sharedOwner{0};

void flushSharedAtExit() {
    Engine* engine = g_sharedEngine.load(std::memory_order_acquire);
    if (engine == nullptr || g_sharedOwner.load(std::memory_order_acquire) != ::getpid()) return;
    (void)engine->flushClosed(static_cast<int>(engine->settings().get(SettingId::closeDrainMs)));
}

}  // namespace

Result<std::shared_ptr<Engine>> Engine::shared() {
    static std::mutex mutex;
    static std::shared_ptr<Engine>* engine = nullptr;
    static pid_t owner = 0;
    std::lock_guard lock(mutex);
    // A forked child must not use its parent's engine (its thread and shared
    // memory stayed behind): it gets its own, the inherited one is left alone.
    if (engine == nullptr || owner != ::getpid()) {
        auto settings = settingsFromEnv();
        if (!settings) return fail(settings.error());
        auto made = create(settings.value());
        if (!made) return fail(made.error());
        const bool first = engine == nullptr;
        engine = new std::shared_ptr<Engine>(made.value());  // lives for the process
        owner = ::getpid();
        g_sharedEngine.store(engine->get(), std::memory_order_release);
        g_sharedOwner.store(owner, std::memory_order_release);
        if (first) std::atexit(flushSharedAtExit);
    }
    return *engine;
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
    std::lock_guard lock(m_impl->mutex());
    return m_impl->nextDueNsLocked();
}

bool Engine::flushClosed(int timeoutMs) {
    std::unique_lock lock(m_impl->mutex());
    const uint64_t deadlineNs = core::monotonicNs() + uint64_t(std::max(timeoutMs, 0)) * 1000000ull + 1;
    return m_impl->flushClosedLocked(lock, deadlineNs);
}

}  // namespace smcr
