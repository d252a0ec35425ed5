#include "login_limiter.h"

#include <algorithm>

namespace smclab::daemon {

qint64 LoginLimiter::delayFor(int failures) {
    if (failures < kFreeFailures) return 0;
    const int doublings = std::min(failures - kFreeFailures, 20);
    return std::min(kBaseDelayMs << doublings, kMaxDelayMs);
}

qint64 LoginLimiter::retryAfterMs(const QHostAddress& address) {
    prune();
    const auto it = m_entries.constFind(address.toString());
    if (it == m_entries.constEnd()) return 0;
    const qint64 readyAt = it->lastFailureMs + delayFor(it->failures);
    return std::max<qint64>(0, readyAt - m_clock.elapsed());
}

void LoginLimiter::recordFailure(const QHostAddress& address) {
    Entry& entry = m_entries[address.toString()];
    ++entry.failures;
    entry.lastFailureMs = m_clock.elapsed();
}

void LoginLimiter::recordSuccess(const QHostAddress& address) {
    m_entries.remove(address.toString());
}

int LoginLimiter::failures(const QHostAddress& address) const {
    return m_entries.value(address.toString()).failures;
}

void LoginLimiter::prune() {
    const qint64 now = m_clock.elapsed();
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (now - it->lastFailureMs > kForgetAfterMs) {
            it = m_entries.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace smclab::daemon
