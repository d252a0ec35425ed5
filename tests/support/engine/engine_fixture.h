// What the engine, integration and fuzz tests share around a libsmcr engine in the test process:
// an engine from a setting list, a client connection to a loopback port, a
// readable fallback reason, a bounded wait and a counter by its flat name.
// Setup failures end the test program (qFatal): nothing to test without them.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <smcr/engine.h>
#include <smcr/socket.h>
#include <smcr/stats.h>

#include <QtGlobal>

namespace smclab::test {

using SettingList = std::vector<std::pair<std::string, std::string>>;

inline std::shared_ptr<smcr::Engine> newEngine(const SettingList& settings = {}) {
    auto e = smcr::Engine::create(settings);
    if (!e) qFatal("engine: %s", e.error().toString().c_str());
    return e.value();
}

// A blocking client connection to 127.0.0.1:port through `engine`.
inline smcr::Socket connectTo(const std::shared_ptr<smcr::Engine>& engine, uint16_t port) {
    smcr::ConnectOptions options;
    options.engine = engine;
    auto s = smcr::Socket::connect("127.0.0.1", port, options);
    if (!s) qFatal("connect: %s", s.error().toString().c_str());
    return s.value();
}

// "fallback 0x... peer 0x..." for a message when a socket fell back.
inline std::string fallbackText(const smcr::Socket& s) {
    char text[64];
    std::snprintf(text, sizeof text, "fallback 0x%08x peer 0x%08x", s.fallbackReason(), s.peerDeclineReason());
    return text;
}

// Polls `cond` every 2 ms for up to timeoutMs; its last answer.
template <typename Cond>
bool waitFor(Cond cond, int timeoutMs = 5000) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < until) {
        if (cond()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return cond();
}

// An engine counter by its flat smc_stats-like name ("smcr.srv_fallbacks"); 0 if unknown.
inline uint64_t counter(const smcr::EngineStats& stats, const std::string& name) {
    for (const auto& [n, v] : stats.flatten()) {
        if (n == name) return v;
    }
    return 0;
}

}  // namespace smclab::test
