// Slows down token guessing: after kFreeFailures failed logins from one
// address, further attempts from it are refused (HTTP 429) until a delay
// that doubles with every failure (0.5 s, 1 s, 2 s ... capped at 60 s) has
// passed. A successful login clears the address. Entries idle for ten
// minutes are forgotten so the table stays small.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>

namespace smclab::daemon {

class LoginLimiter {
public:
    static constexpr int kFreeFailures = 3;
    static constexpr qint64 kBaseDelayMs = 500;
    static constexpr qint64 kMaxDelayMs = 60'000;
    static constexpr qint64 kForgetAfterMs = 600'000;

    LoginLimiter() { m_clock.start(); }

    // Milliseconds this address must still wait; 0 = may try now.
    qint64 retryAfterMs(const QHostAddress& address);
    void recordFailure(const QHostAddress& address);
    void recordSuccess(const QHostAddress& address);
    int failures(const QHostAddress& address) const;

private:
    struct Entry {
        int failures = 0;
        qint64 lastFailureMs = 0;
    };
    void prune();
    static qint64 delayFor(int failures);

    QElapsedTimer m_clock;
    QHash<QString, Entry> m_entries;
};

}  // namespace smclab::daemon
