// Completion channels: a named FIFO that producers in any process write one
// byte to when an armed CQ fires, and the device timer, both behind one
// epoll fd the application can poll.
#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "sim_objects.h"

namespace smcr::fabric::sim {

Status SimChannel::open() {
    const std::string path = objectPath(m_core->dir, m_core->instance, "ch", m_id);
    if (::mkfifo(path.c_str(), 0666) != 0) return fail(makeSystemError("mkfifo " + path, errno));
    ::chmod(path.c_str(), 0666);
    // O_RDWR keeps the FIFO open for writing too, so it never reports EOF.
    m_fifoFd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (m_fifoFd < 0) return fail(makeSystemError("open " + path, errno));
    m_epollFd = epoll_create1(EPOLL_CLOEXEC);
    if (m_epollFd < 0) return fail(makeSystemError("epoll_create1", errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = m_fifoFd;
    if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, m_fifoFd, &ev) != 0) return fail(makeSystemError("epoll_ctl", errno));
    std::lock_guard lock(m_core->mu);
    ev.data.fd = m_core->timerFd;
    if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, m_core->timerFd, &ev) != 0) {
        return fail(makeSystemError("epoll_ctl timer", errno));
    }
    m_core->channels.push_back(this);
    return {};
}

SimChannel::~SimChannel() {
    bool detached = false;
    {
        std::lock_guard lock(m_core->mu);
        std::erase(m_core->channels, this);
        detached = m_core->detached;
    }
    if (m_epollFd >= 0) ::close(m_epollFd);
    if (m_fifoFd >= 0) ::close(m_fifoFd);
    if (!detached) ::unlink(objectPath(m_core->dir, m_core->instance, "ch", m_id).c_str());
}

size_t SimChannel::sleepFds(std::span<int, kMaxSleepFds> out) const {
    out[0] = m_fifoFd;
    out[1] = m_core->timerFd;  // set when the device opened, before any channel
    return 2;
}

void SimChannel::attach(SimCq* cq) {
    m_cqs.push_back(cq);
}
void SimChannel::detach(SimCq* cq) {
    std::erase(m_cqs, cq);
}

bool SimChannel::anyArmed() const {
    return std::any_of(m_cqs.begin(), m_cqs.end(),
                       [](SimCq* cq) { return cq->shared()->arm.load(std::memory_order_relaxed) != kArmNone; });
}

SimCq* SimChannel::takeEventLocked() {
    SimCq* found = nullptr;
    for (SimCq* cq : m_cqs) {
        auto& pending = cq->shared()->eventsPending;
        uint32_t count = pending.load(std::memory_order_acquire);
        while (count > 0 && !pending.compare_exchange_weak(count, count - 1, std::memory_order_acq_rel)) {
        }
        if (count > 0) {
            found = cq;
            break;
        }
    }
    auto anyPending = [this] {
        return std::any_of(m_cqs.begin(), m_cqs.end(),
                           [](SimCq* cq) { return cq->shared()->eventsPending.load(std::memory_order_seq_cst) > 0; });
    };
    // The FIFO stays readable while any event is pending; drain it only
    // when none is, then look again for a producer that raced the drain.
    if (!anyPending()) {
        // A short read emptied the FIFO: no second read to see EAGAIN (each
        // syscall costs about a microsecond on the lab's VMs).
        char buffer[256];
        while (::read(m_fifoFd, buffer, sizeof buffer) == static_cast<ssize_t>(sizeof buffer)) {
        }
        if (anyPending()) {
            const char byte = 1;
            [[maybe_unused]] const ssize_t n = ::write(m_fifoFd, &byte, 1);
        }
    }
    return found;
}

bool SimChannel::mayHaveEvents() const {
    std::lock_guard lock(m_core->mu);  // m_cqs changes under it
    return std::any_of(m_cqs.begin(), m_cqs.end(),
                       [](SimCq* cq) { return cq->shared()->eventsPending.load(std::memory_order_acquire) > 0; });
}

Result<CompletionQueue*> SimChannel::getEvent(int timeoutMs) {
    const uint64_t deadline = timeoutMs > 0 ? nowNs() + uint64_t(timeoutMs) * 1000000ull : 0;
    for (;;) {
        {
            std::lock_guard lock(m_core->mu);
            // The timer can only have fired once its armed time has passed;
            // before that (or unarmed) its read would only say EAGAIN.
            if (m_core->timerArmedNs != 0 && nowNs() >= m_core->timerArmedNs) {
                uint64_t expirations = 0;
                if (::read(m_core->timerFd, &expirations, sizeof expirations) == sizeof expirations) {
                    m_core->timerArmedNs = 0;
                }
            }
            m_core->progressLocked();
            if (SimCq* cq = takeEventLocked()) {
                cq->noteEvent();
                return static_cast<CompletionQueue*>(cq);
            }
        }
        if (timeoutMs == 0) return fail(Errc::wouldBlock, "no completion event");
        int waitMs = -1;
        if (timeoutMs > 0) {
            const uint64_t now = nowNs();
            if (now >= deadline) return fail(Errc::timedOut, "no completion event within timeout");
            waitMs = static_cast<int>((deadline - now + 999999) / 1000000);
        }
        epoll_event events[2];
        const int n = epoll_wait(m_epollFd, events, 2, waitMs);
        if (n < 0 && errno != EINTR) return fail(makeSystemError("epoll_wait", errno));
    }
}

}  // namespace smcr::fabric::sim
