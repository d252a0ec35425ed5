#include "bench_progress.h"

#include <unistd.h>

#include <cstdio>

#include "bench_local.h"

namespace smclab::cli {

namespace {

constexpr int kBarWidth = 30;
constexpr size_t kMaxLine = 150;

std::string duration(uint64_t ms) {
    const uint64_t s = (ms + 500) / 1000;
    char buf[32];
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%lluh%02llum", static_cast<unsigned long long>(s / 3600),
                                 static_cast<unsigned long long>(s % 3600 / 60));
    else if (s >= 60) std::snprintf(buf, sizeof buf, "%llum%02llus", static_cast<unsigned long long>(s / 60),
                                    static_cast<unsigned long long>(s % 60));
    else std::snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(s));
    return buf;
}

}  // namespace

BenchProgress::BenchProgress(int total, uint64_t stepMs)
    : m_total(total), m_stepMs(stepMs), m_startNs(nowNs()), m_tty(::isatty(STDERR_FILENO) == 1) {}

BenchProgress::~BenchProgress() { finish(); }

std::string BenchProgress::eta() const {
    const int left = m_total - m_done;
    if (left <= 0) return "0s";
    // Measured pace once a step has finished (it includes connection set-up
    // and the servers' start), the nominal step length before that.
    const uint64_t elapsedMs = (nowNs() - m_startNs) / 1000000;
    const uint64_t perStep = m_done > 0 ? elapsedMs / static_cast<uint64_t>(m_done) : m_stepMs;
    return duration(perStep * static_cast<uint64_t>(left));
}

void BenchProgress::begin(const std::string& what) {
    m_current = what;
    draw();
}

void BenchProgress::end(const std::string& outcome) {
    ++m_done;
    if (!m_tty) {
        std::fprintf(stderr, "run %d/%d %s: %s  ETA %s\n", m_done, m_total, m_current.c_str(), outcome.c_str(),
                     eta().c_str());
        std::fflush(stderr);
        return;
    }
    draw();
}

void BenchProgress::note(const std::string& text) {
    clear();
    std::fprintf(stderr, "%s\n", text.c_str());
    draw();
}

void BenchProgress::finish() { clear(); }

void BenchProgress::clear() {
    if (m_shown) std::fprintf(stderr, "\r\033[K");
    m_shown = false;
}

void BenchProgress::draw() {
    if (!m_tty) return;
    const int filled = m_total > 0 ? m_done * kBarWidth / m_total : 0;
    std::string line = "[" + std::string(static_cast<size_t>(filled), '#') +
                       std::string(static_cast<size_t>(kBarWidth - filled), '.') + "] " + std::to_string(m_done) +
                       "/" + std::to_string(m_total) + "  ETA " + eta() + "  " + m_current;
    if (line.size() > kMaxLine) line.resize(kMaxLine);
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    m_shown = true;
}

}  // namespace smclab::cli
