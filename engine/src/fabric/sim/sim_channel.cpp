// Completion channels: a named FIFO that producers in any process write one
// byte to when an armed CQ fires, and the device timer, both behind one
// epoll fd the application can poll; and a futex word in the device file
// for the owner's threads that sleep on nothing else (layout.h, ChannelWord).
#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
    m_word = channelWord(m_core->shared, m_id);
    if (m_word != nullptr) {
        m_word->sleepers.store(0);
        m_word->fifoBytes.store(0);
    }
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
    // The FIFO stays readable while any event is pending; drain it only
    // when none is, then look again for a producer that raced the drain.
    if (!anyPending()) {
        drainFifo();
        if (anyPending()) {
            if (m_word != nullptr) m_word->fifoBytes.fetch_add(1, std::memory_order_seq_cst);
            const char byte = 1;
            [[maybe_unused]] const ssize_t n = ::write(m_fifoFd, &byte, 1);
        }
    }
    return found;
}

bool SimChannel::anyPending() const {
    return std::any_of(m_cqs.begin(), m_cqs.end(),
                       [](SimCq* cq) { return cq->shared()->eventsPending.load(std::memory_order_seq_cst) > 0; });
}

void SimChannel::drainFifo() {
    // Wake-ups through the word leave nothing in the FIFO: read only what
    // producers counted in (each syscall costs about a microsecond on the
    // lab's VMs).
    if (m_word != nullptr && m_word->fifoBytes.load(std::memory_order_seq_cst) == 0) return;
    // A short read emptied the FIFO: no second read to see EAGAIN.
    char buffer[256];
    uint32_t drained = 0;
    for (;;) {
        const ssize_t n = ::read(m_fifoFd, buffer, sizeof buffer);
        if (n > 0) drained += static_cast<uint32_t>(n);
        if (n != static_cast<ssize_t>(sizeof buffer)) break;
    }
    if (m_word != nullptr && drained > 0) m_word->fifoBytes.fetch_sub(drained, std::memory_order_seq_cst);
}

uint32_t SimChannel::wordTicket() const {
    return m_word != nullptr ? m_word->seq.load(std::memory_order_seq_cst) : 0;
}

CompletionChannel::WordSleep SimChannel::sleepOnWord(uint32_t ticket, uint64_t deadlineNs) {
    if (m_word == nullptr) return WordSleep::eventPending;
    // Registered first, the pending counts looked at second: a producer
    // bumps its CQ's count, then looks for sleepers (cq_ring.cpp), so
    // either it wakes the word or this sees its event.
    m_word->sleepers.fetch_add(1, std::memory_order_seq_cst);
    bool pending = false;
    {
        std::lock_guard lock(m_core->mu);  // m_cqs changes under it
        pending = anyPending();
    }
    WordSleep result = WordSleep::eventPending;
    if (!pending) {
        timespec at{};
        at.tv_sec = static_cast<time_t>(deadlineNs / 1000000000ull);
        at.tv_nsec = static_cast<long>(deadlineNs % 1000000000ull);
        // FUTEX_WAIT_BITSET: an absolute CLOCK_MONOTONIC deadline, the
        // clock of the fabric's due times. A changed word (a wake since
        // the ticket) returns at once.
        const long r = ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&m_word->seq), FUTEX_WAIT_BITSET, ticket,
                                 deadlineNs != 0 ? &at : nullptr, nullptr, FUTEX_BITSET_MATCH_ANY);
        result = r != 0 && errno == ETIMEDOUT ? WordSleep::timedOut : WordSleep::woken;
    }
    m_word->sleepers.fetch_sub(1, std::memory_order_seq_cst);
    return result;
}

void SimChannel::wakeWordSleepers() {
    if (m_word != nullptr) wakeWord(m_word);
}

void SimChannel::nudgeWordSleepers() {
    if (m_word != nullptr && m_word->sleepers.load(std::memory_order_seq_cst) != 0) wakeWord(m_word);
}

bool SimChannel::mayHaveEvents() const {
    std::lock_guard lock(m_core->mu);  // m_cqs changes under it
    return anyPending();
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
