// A listening socket: a worker thread accepts TCP connections, decides per
// connection whether the client speaks SMC (smc_detect.h), runs the server
// handshake or falls back, and queues the result for accept().
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <smcr/result.h>

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

private:
    ListenerImpl() = default;
    void workerLoop();

    struct Pending {
        int fd;
        uint64_t deadlineNs;
        std::string peer;
    };

    std::shared_ptr<EngineImpl> m_engine;
    int m_listenFd = -1;
    int m_stopFd = -1;
    uint16_t m_port = 0;
    std::thread m_worker;
    std::atomic<bool> m_nonBlocking{false};
    std::atomic<int> m_timeoutMs{0};
    std::atomic<bool> m_closed{false};
    std::deque<std::shared_ptr<SocketImpl>> m_queue;  // guarded by the engine mutex
};

}  // namespace smcr::core
