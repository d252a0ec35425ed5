// accept() with lab.fast_fallback on: the calling thread sorts connections
// itself, so a plain TCP client costs what it costs a kernel TCP server's
// accept() (one wake-up of the thread that will serve it); no acceptor or
// worker thread hands it over (seed 003: the fallback accept queue that
// skips the SMC work item, 98.7% of TCP).
//
// The caller never blocks on one socket: it sleeps on the listening socket
// and the listener's wake-up eventfd (a socket queued by the handshake
// worker or the acceptor) in a standing epoll set, or, while it holds
// undecided sockets (a client whose first bytes are still on their way), in
// poll() on those too, and sorts whatever is ready. A plain TCP client it
// sorted is returned directly, never queued. Per connection that is the
// wake-up, accept4() and one recv() that takes the client's first bytes
// (the socket serves them to the application's first reads, rx_prefix.h),
// so a request that fits costs no more syscalls than with a TCP listener;
// the accept4() that would only find the queue empty is skipped while
// connections come one at a time.
// Undecided sockets it still holds when it returns go to the acceptor,
// which watches them until they decide or lab.clc_detect_ms ends.
// Sockets already queued are served first, so SMC clients finished by the
// worker are never starved by a stream of TCP clients.
#include <vector>

#include <poll.h>

#include "core/listener/listener_impl.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

std::shared_ptr<SocketImpl> ListenerImpl::popReady() {
    // Nothing queued (the common case while plain TCP clients are returned
    // directly): no lock. A socket queued just after this look is not lost:
    // the caller counts itself a waiter and looks again under the lock
    // before it sleeps, and queueReady() writes the eventfd for waiters.
    if (m_readyCount.load() == 0) return nullptr;
    std::lock_guard lock(m_mutex);
    auto sock = m_ready.pop();
    if (!sock) return nullptr;
    m_readyCount.store(m_ready.size());
    return std::move(*sock);
}

Result<std::shared_ptr<SocketImpl>> ListenerImpl::acceptSorting(uint64_t deadlineNs) {
    SortingCall call;
    beginSorting(call);
    Result<std::shared_ptr<SocketImpl>> out = sortUntilAccepted(call, deadlineNs);
    endSorting(call);
    return out;
}

void ListenerImpl::beginSorting(SortingCall& call) {
    m_sortingCallers.fetch_add(1);
    call.nonBlocking = m_nonBlocking.load();
    if (!call.nonBlocking) {
        // This thread will sleep on the listening socket: the acceptor lets
        // go of it, so a connection wakes one thread. (A non-blocking caller
        // only looks; the acceptor keeps watching for its Poller.)
        std::lock_guard sort(m_sortMutex);
        watchListenLocked(false);
    }
    // Look at the listening socket first, unless the last call had to sleep
    // for its connection: then the queue is most likely empty again and an
    // accept4() would only say so (one client at a time, short connections).
    call.listenReady = call.nonBlocking || !m_lastCallSlept.load(std::memory_order_relaxed);
}

void ListenerImpl::endSorting(SortingCall& call) {
    if (!call.mine.empty()) {
        std::lock_guard sort(m_sortMutex);
        for (Pending& p : call.mine) adoptLocked(std::move(p));
    }
    m_lastCallSlept.store(call.slept, std::memory_order_relaxed);
    m_lastSortingNs.store(monotonicNs());
    m_sortingCallers.fetch_sub(1);
}

Result<std::shared_ptr<SocketImpl>> ListenerImpl::sortUntilAccepted(SortingCall& call, uint64_t deadlineNs) {
    for (;;) {
        if (auto sock = popReady()) return sock;
        if (m_closed.load()) return fail(Errc::closed, "listener closed");
        // Decide what the last wait found: new connections, then bytes (or
        // the end of lab.clc_detect_ms) on the undecided ones.
        const size_t older = call.mine.size();
        bool sorted = sortNew(call);
        // A plain TCP client goes straight back, as from a TCP listener's
        // accept(); sockets already queued were served first (above).
        if (call.direct) return std::move(call.direct);
        call.listenReady = false;
        const uint64_t now = monotonicNs();
        sorted = sortUndecided(call, older, now) || sorted;
        if (call.direct) return std::move(call.direct);
        if (sorted) continue;  // a socket may be queued now
        if (call.nonBlocking) return fail(Errc::wouldBlock, "no connection to accept");
        if (deadlineNs != 0 && now >= deadlineNs) return fail(Errc::timedOut, "accept timed out");
        sleepSorting(call, deadlineNs);
    }
}

bool ListenerImpl::sortNew(SortingCall& call) {
    bool sorted = false;
    for (int k = 0; call.listenReady && k < 64; ++k) {
        auto got = acceptOne(&call.direct);
        if (!got) break;
        sorted = true;
        if (!*got) break;  // one sorted: serve it; the next call takes the others
        call.mine.push_back(std::move(**got));
    }
    return sorted;
}

bool ListenerImpl::sortUndecided(SortingCall& call, size_t older, uint64_t now) {
    bool sorted = false;
    for (size_t i = 0; i < call.mine.size();) {
        // acceptOne() just looked at the ones it added.
        // The sort's reads take every byte there is (half an eyecatcher,
        // half a Proposal), so an undecided socket does not keep poll()
        // spinning.
        Pending& p = call.mine[i];
        const bool decided = i < older && decide(p, now >= p.deadlineNs, &call.direct);
        if (!decided) {
            ++i;
            continue;
        }
        call.mine.erase(call.mine.begin() + static_cast<std::ptrdiff_t>(i));
        sorted = true;
        if (call.direct) break;
    }
    return sorted;
}

void ListenerImpl::sleepSorting(SortingCall& call, uint64_t deadlineNs) {
    call.slept = true;
    if (call.mine.empty()) {
        // Only the listening socket to watch: the standing epoll set.
        call.listenReady = waitListenOrReady(deadlineNs);
        return;
    }
    uint64_t wakeNs = deadlineNs;
    call.fds.clear();
    call.fds.push_back({m_listenFd, POLLIN, 0});
    for (const Pending& p : call.mine) {
        call.fds.push_back({p.fd, POLLIN | POLLRDHUP, 0});
        if (wakeNs == 0 || p.deadlineNs < wakeNs) wakeNs = p.deadlineNs;
    }
    waitReady(call.fds, wakeNs);
    call.listenReady = call.fds[0].revents != 0;
}

}  // namespace smcr::core
