// A listening socket. Two threads per listener:
//   - the acceptor (listener_acceptor.cpp) accepts TCP connections and,
//     with lab.fast_fallback on, classifies each on its first bytes without
//     ever blocking (epoll on the new sockets, smc_detect.h): plain TCP
//     clients go straight to the fast-path accept queue, SMC clients to the
//     handshake queue; with limit_smc_hs on and the handshake queue
//     congested, SMC clients are declined at once and carry on over TCP;
//   - the handshake worker (listener_handshake.cpp) runs the server CLC
//     handshakes one at a time; with lab.fast_fallback off it also decides
//     SMC or TCP for every connection (the path without seed 003).
// accept() takes from both result queues in turn (accept_queues.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include <smcr/result.h>

#include "accept_queues.h"
#include "engine_impl.h"

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

    // limit_smc_hs congestion, the user-space form of the kernel's
    // workqueue_congested(smc_hs_wq): the one handshake worker is busy and
    // at least this many handshakes already wait for it.
    static constexpr size_t kHsCongestedWaiting = 1;

private:
    ListenerImpl() = default;

    // A connection the acceptor watches until its first bytes decide it.
    struct Pending {
        int fd = -1;
        uint64_t deadlineNs = 0;  // lab.clc_detect_ms after accept: silence means plain TCP
        std::string peer;
        bool declining = false;   // limit_smc_hs: waiting for the whole Proposal to decline it
    };
    // A connection for the handshake worker.
    struct HsJob {
        int fd = -1;
        std::string peer;
        bool detect = false;  // fast fallback off: the worker decides SMC or TCP too
    };

    // listener_acceptor.cpp
    void acceptorLoop();
    void acceptBurst(std::map<int, Pending>& pending, std::set<std::pair<uint64_t, int>>& deadlines);
    // True when the connection was handed on (fast-path queue or handshake).
    bool decide(Pending& p, bool expired);
    bool continueDecline(Pending& p, bool expired);
    void queuePlain(const Pending& p, bool fastPath);

    // listener_handshake.cpp
    void handshakeLoop();
    void queueHandshake(HsJob job);
    bool hsCongested();

    // listener_impl.cpp
    void queueReady(AcceptSource from, std::shared_ptr<SocketImpl> sock);

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

    // Guards the queues below; never held while taking the engine mutex.
    std::mutex m_mutex;
    std::condition_variable m_readyCv;
    std::condition_variable m_hsCv;
    AcceptQueues<std::shared_ptr<SocketImpl>> m_ready;
    std::atomic<size_t> m_readyCount{0};  // m_ready.size(), for readinessLocked()
    std::deque<HsJob> m_hsJobs;
    bool m_hsRunning = false;
    uint64_t m_hsDepthMax = 0;
};

}  // namespace smcr::core
