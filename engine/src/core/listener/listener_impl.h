// A listening socket. Connections are sorted on their first bytes
// (smc_detect.h) without ever blocking on one:
//   - with lab.fast_fallback on, a thread blocked in accept() sorts them
//     itself (listener_accept_direct.cpp): it waits in poll() on the
//     listening socket, the new sockets whose first bytes have not come yet
//     and its wake-up eventfd; a plain TCP client is returned at once with
//     no other thread involved (seed 003's fallback accept queue, which
//     skips the SMC work item); SMC clients go to the handshake worker;
//   - the acceptor thread (listener_acceptor.cpp) sorts them while no
//     thread is in accept() (event loops with a Poller, or an application
//     busy elsewhere), watching the listening socket and the undecided
//     sockets in an epoll set; with fast fallback off it hands every
//     connection to the worker unsorted;
//   - the handshake worker (listener_handshake.cpp) runs the server CLC
//     handshakes one at a time; with fast fallback off it also decides SMC
//     or TCP for every connection (the path without seed 003).
// With limit_smc_hs on and the handshake queue congested, SMC clients are
// declined at once and carry on over TCP. accept() takes from the two result
// queues in turn (accept_queues.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <poll.h>

#include <smcr/result.h>

#include "core/listener/accept_queues.h"
#include "core/shell/engine_impl.h"

namespace smcr::core {

class SocketImpl;

class ListenerImpl {
public:
    static Result<std::shared_ptr<ListenerImpl>> listen(std::shared_ptr<EngineImpl> engine, const std::string& addr,
                                                        uint16_t port, int backlog);
    ~ListenerImpl();

    Result<std::shared_ptr<SocketImpl>> accept();
    void setNonBlocking(bool enabled) { m_nonBlocking.store(enabled); }
    void setTimeoutMs(int timeoutMs) { m_timeoutMs.store(timeoutMs); }
    uint16_t localPort() const { return m_port; }
    void close();
    // POLLIN when a connection waits (caller holds the engine lock).
    uint32_t readinessLocked() const;
    EngineImpl& engine() { return *m_engine; }
    // Eventfds written when a connection is queued or the listener closes: a
    // poller that watches only listeners sleeps on its own fd instead of
    // in the engine, where every completion would wake it (poller_impl.cpp).
    void addReadyWatcher(int eventFd);
    void removeReadyWatcher(int eventFd);

    // limit_smc_hs congestion, the user-space form of the kernel's
    // workqueue_congested(smc_hs_wq): the one handshake worker is busy and
    // at least this many handshakes already wait for it.
    static constexpr size_t kHsCongestedWaiting = 1;

private:
    ListenerImpl() = default;
    void notifyReadyWatchers();

    // A connection watched until its first bytes decide it.
    struct Pending {
        int fd = -1;
        uint64_t deadlineNs = 0;  // lab.clc_detect_ms after accept: silence means plain TCP
        std::string peer;
        bool declining = false;  // limit_smc_hs: waiting for the whole Proposal to decline it
        bool watched = false;    // in the acceptor's epoll set (removed before the fd is handed on)
        // The client's first bytes, taken off the socket by the sort
        // (smc_detect.h readSmcClient): the application's or the CLC reader's.
        std::vector<uint8_t> prefix;
    };
    // A connection for the handshake worker.
    struct HsJob {
        int fd = -1;
        std::string peer;
        bool detect = false;          // fast fallback off: the worker decides SMC or TCP too
        std::vector<uint8_t> prefix;  // first bytes the sort read (the start of a CLC message)
    };

    // listener_acceptor.cpp
    void acceptorLoop();
    // Takes one connection off the listening socket; nullopt when none waits.
    // Sorted ones are queued; an undecided one is returned for watching.
    // direct (a caller in accept()): a plain TCP connection is put there for
    // the caller to return instead of going through the ready queue.
    std::optional<std::optional<Pending>> acceptOne(std::shared_ptr<SocketImpl>* direct = nullptr);
    // True when the connection was handed on (fast-path queue, `direct`, or handshake).
    bool decide(Pending& p, bool expired, std::shared_ptr<SocketImpl>* direct = nullptr);
    bool continueDecline(Pending& p, bool expired);
    void queuePlain(Pending& p, bool fastPath, std::shared_ptr<SocketImpl>* direct = nullptr);
    // The acceptor watches p from now on (caller holds m_sortMutex).
    void adoptLocked(Pending p);
    void forgetLocked(std::map<int, Pending>::iterator it);
    // Out of the epoll set before anyone else owns (and may close) the fd.
    void unwatch(Pending& p);
    // Whether the acceptor's epoll set holds the listening socket.
    void watchListenLocked(bool watched);

    // listener_accept_direct.cpp: accept() with the caller sorting.
    Result<std::shared_ptr<SocketImpl>> acceptSorting(uint64_t deadlineNs);
    std::shared_ptr<SocketImpl> popReady();
    // One such call: its undecided sockets and what its last wait found.
    struct SortingCall {
        std::vector<Pending> mine;  // undecided sockets this call watches
        bool nonBlocking = false;
        bool slept = false;                  // waited for its connection
        bool listenReady = false;            // look at the listening socket
        std::shared_ptr<SocketImpl> direct;  // a plain TCP client this call sorted
        std::vector<pollfd> fds;             // the poll() set while it holds undecided sockets
    };
    // The call takes the listening socket from the acceptor / gives its
    // undecided sockets to the acceptor and the socket back.
    void beginSorting(SortingCall& call);
    void endSorting(SortingCall& call);
    // Sorts and sleeps until a socket is queued or sorted for the caller,
    // the listener closes, or (non-blocking: nothing ready) the deadline.
    Result<std::shared_ptr<SocketImpl>> sortUntilAccepted(SortingCall& call, uint64_t deadlineNs);
    // New connections off the listening socket; true when any was sorted.
    bool sortNew(SortingCall& call);
    // The undecided sockets older than index `older` that bytes or silence
    // decided; true when any was.
    bool sortUndecided(SortingCall& call, size_t older, uint64_t now);
    // Until the listening socket, an undecided socket, the wake-up eventfd
    // or the first deadline.
    void sleepSorting(SortingCall& call, uint64_t deadlineNs);

    // listener_handshake.cpp
    void handshakeLoop();
    void queueHandshake(HsJob job);
    bool hsCongested();

    // listener_impl.cpp
    void queueReady(AcceptSource from, std::shared_ptr<SocketImpl> sock);
    // Sleeps until a socket may be queued, or fds / the deadline (0 = none).
    void waitReady(std::vector<pollfd>& fds, uint64_t deadlineNs);
    // The same with nothing but the listening socket to watch: an epoll set
    // that holds it and the wake-up eventfd for good (no per-call setup);
    // true when the listening socket is readable.
    bool waitListenOrReady(uint64_t deadlineNs);

    std::shared_ptr<EngineImpl> m_engine;
    int m_listenFd = -1;
    int m_stopFd = -1;
    int m_epollFd = -1;
    uint16_t m_port = 0;
    std::thread m_acceptor;
    std::thread m_hsWorker;
    std::atomic<bool> m_nonBlocking{false};
    std::atomic<int> m_timeoutMs{0};
    std::atomic<bool> m_closed{false};

    // The acceptor's undecided connections and its view of the listening
    // socket. Lock order: m_sortMutex, then m_mutex, then the engine's.
    std::mutex m_sortMutex;
    std::map<int, Pending> m_pending;
    std::set<std::pair<uint64_t, int>> m_deadlines;  // (deadline, fd) of m_pending
    bool m_listenWatched = true;
    // Threads inside accept() sorting for themselves; while there are any
    // (and kRewatchMs after the last left) the acceptor leaves the listening
    // socket to them, so a connection wakes one thread, not two. A caller
    // that leaves hands it back within kCallerCheckMs + kRewatchMs.
    std::atomic<int> m_sortingCallers{0};
    std::atomic<uint64_t> m_lastSortingNs{0};
    static constexpr uint64_t kRewatchMs = 2;
    static constexpr uint64_t kCallerCheckMs = 50;

    // Guards the queues below.
    std::mutex m_mutex;
    std::condition_variable m_hsCv;
    AcceptQueues<std::shared_ptr<SocketImpl>> m_ready;
    std::atomic<size_t> m_readyCount{0};  // m_ready.size(), for readinessLocked()
    // accept() callers sleep in poll() on this eventfd; queueReady writes it
    // while m_waitingCallers > 0.
    int m_readyFd = -1;
    int m_kickFd = -1;         // eventfd in the acceptor's epoll set: look at m_listenWatched again
    int m_callerEpollFd = -1;  // the listening socket and m_readyFd, for callers in accept()
    // The last accept() slept before a connection came (one client at a
    // time): the next one sleeps first instead of trying an accept4() that
    // would find the queue empty again.
    std::atomic<bool> m_lastCallSlept{false};
    std::atomic<int> m_waitingCallers{0};
    std::vector<int> m_readyWatchers;  // addReadyWatcher (guarded by m_mutex)
    std::deque<HsJob> m_hsJobs;
    bool m_hsRunning = false;
    uint64_t m_hsDepthMax = 0;
};

}  // namespace smcr::core
