// accept() with lab.fast_fallback on: the calling thread sorts connections
// itself, so a plain TCP client costs what it costs a kernel TCP server's
// accept() (one wake-up of the thread that will serve it) plus one peek of
// its first bytes; no acceptor or worker thread hands it over (seed 003: the
// fallback accept queue that skips the SMC work item, 98.7% of TCP).
//
// The caller never blocks on one socket: it sleeps in poll() on the
// listening socket, its own undecided sockets (a client whose first bytes
// are still on their way) and the listener's wake-up eventfd (a socket
// queued by the handshake worker or the acceptor), and sorts whatever is
// ready. Undecided sockets it still holds when it returns go to the
// acceptor, which watches them until they decide or lab.clc_detect_ms ends.
// Sockets already queued are served first, so SMC clients finished by the
// worker are never starved by a stream of TCP clients.
#include <poll.h>

#include <vector>

#include "listener_impl.h"
#include "socket_impl.h"

namespace smcr::core {

std::shared_ptr<SocketImpl> ListenerImpl::popReady() {
    std::lock_guard lock(m_mutex);
    auto sock = m_ready.pop();
    if (!sock) return nullptr;
    m_readyCount.store(m_ready.size());
    return std::move(*sock);
}

Result<std::shared_ptr<SocketImpl>> ListenerImpl::acceptSorting(uint64_t deadlineNs) {
    std::vector<Pending> mine;  // undecided sockets this call watches
    m_sortingCallers.fetch_add(1);
    if (!m_nonBlocking.load()) {
        // This thread will sleep on the listening socket: the acceptor lets
        // go of it, so a connection wakes one thread. (A non-blocking caller
        // only looks; the acceptor keeps watching for its Poller.)
        std::lock_guard sort(m_sortMutex);
        watchListenLocked(false);
    }
    auto leave = [&] {
        std::lock_guard sort(m_sortMutex);
        for (Pending& p : mine) adoptLocked(std::move(p));
        m_lastSortingNs.store(monotonicNs());
        m_sortingCallers.fetch_sub(1);
    };
    std::vector<pollfd> fds;
    bool listenReady = true;  // look at the listening socket first, then when poll() says so
    for (;;) {
        if (auto sock = popReady()) {
            leave();
            return sock;
        }
        if (m_closed.load()) {
            leave();
            return fail(Errc::closed, "listener closed");
        }
        // Decide what the last wait found: new connections, then bytes (or
        // the end of lab.clc_detect_ms) on the undecided ones.
        bool sorted = false;
        const size_t older = mine.size();
        for (int k = 0; listenReady && k < 64; ++k) {
            auto got = acceptOne();
            if (!got) break;
            sorted = true;
            if (*got) {
                mine.push_back(std::move(**got));
            } else {
                break;  // one queued: serve it; the next call takes the others
            }
        }
        listenReady = false;
        const uint64_t now = monotonicNs();
        for (size_t i = 0; i < mine.size();) {
            // acceptOne() just looked at the ones it added.
            const bool decided = i < older && decide(mine[i], now >= mine[i].deadlineNs);
            if (decided || mine[i].partial) {
                // Half an eyecatcher or half a Proposal keeps the socket
                // readable: poll() would spin, the acceptor's epoll waits
                // for the next bytes.
                if (!decided) {
                    std::lock_guard sort(m_sortMutex);
                    adoptLocked(std::move(mine[i]));
                }
                mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(i));
                sorted = true;
            } else {
                ++i;
            }
        }
        if (sorted) continue;  // a socket may be queued now
        if (m_nonBlocking.load()) {
            leave();
            return fail(Errc::wouldBlock, "no connection to accept");
        }
        if (deadlineNs != 0 && now >= deadlineNs) {
            leave();
            return fail(Errc::timedOut, "accept timed out");
        }
        uint64_t wakeNs = deadlineNs;
        fds.clear();
        fds.push_back({m_listenFd, POLLIN, 0});
        for (const Pending& p : mine) {
            fds.push_back({p.fd, POLLIN | POLLRDHUP, 0});
            if (wakeNs == 0 || p.deadlineNs < wakeNs) wakeNs = p.deadlineNs;
        }
        waitReady(fds, wakeNs);
        listenReady = fds[0].revents != 0;
    }
}

}  // namespace smcr::core
