// Readiness for many libsmcr sockets and listeners from one thread
// (level-triggered, like epoll). SMC sockets are user-space objects whose
// readiness is computed from the connection state; fallback sockets are
// kernel sockets watched through an internal epoll set.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>

#include <smcr/result.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

class SocketImpl;
class ListenerImpl;

struct PollerEventImpl {
    void* userData = nullptr;
    uint32_t events = 0;  // POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDHUP
};

class PollerImpl {
public:
    static Result<std::shared_ptr<PollerImpl>> create(std::shared_ptr<EngineImpl> engine);
    ~PollerImpl();

    Status add(std::shared_ptr<SocketImpl> sock, uint32_t events, void* userData);
    Status add(std::shared_ptr<ListenerImpl> listener, uint32_t events, void* userData);
    Status modify(const void* target, uint32_t events, void* userData);
    Status remove(const void* target);
    Result<size_t> wait(std::span<PollerEventImpl> out, int timeoutMs);
    void wakeup();
    // For foreign event loops (epoll, Qt's QSocketNotifier): readable when a
    // wait(…, 0) may report something. wait(…, 0) re-arms the engine.
    int fd() const { return m_foreignEpollFd; }
    // A foreign loop's wait on fd() (smcr::Poller::beginForeignWait).
    void beginForeignWait();
    void endForeignWait();
    void fdReadable();

private:
    PollerImpl() = default;
    // userSpace false: only the kernel sockets (no engine change since the last scan).
    size_t scanLocked(std::span<PollerEventImpl> out, bool userSpace = true);
    // A blocking wait of a poller with no SMC socket (listeners and fallback
    // sockets only: an accept loop). Nothing it watches moves with a
    // completion, so it neither spins nor sleeps in the engine, where every
    // CDC of the connections its program serves would wake it.
    // Empty when an SMC socket was added meanwhile: the wait goes on in the engine.
    std::optional<size_t> waitOutsideEngineLocked(std::unique_lock<std::mutex>& lock, std::span<PollerEventImpl> out,
                                                  uint64_t deadlineNs);

    struct Entry {
        std::shared_ptr<SocketImpl> sock;
        std::shared_ptr<ListenerImpl> listener;
        uint32_t events = 0;
        void* userData = nullptr;
        bool kernel = false;  // a fallback socket: readiness from the kernel
    };
    std::shared_ptr<EngineImpl> m_engine;
    std::map<const void*, Entry> m_entries;  // by impl pointer
    const void* m_scanAfter = nullptr;       // the entry reported last: the next scan starts after it
    int m_kernelEpollFd = -1;                // fallback sockets
    int m_watchFd = -1;                      // eventfd the engine writes at a change (re-armed by each wait)
    int m_notifyFd = -1;                     // eventfd the listeners and wakeup() write (waitOutsideEngineLocked)
    int m_foreignEpollFd = -1;               // channel + m_watchFd + m_kernelEpollFd
    bool m_wakeup = false;
    size_t m_kernelCount = 0;
    size_t m_smcCount = 0;  // SMC sockets (user-space readiness that completions move)
    // Fallback sockets holding first bytes the listener read (rx_prefix.h):
    // readable though their kernel socket may not be, so every scan looks
    // at them until the bytes are gone.
    std::set<const void*> m_prefixed;
};

}  // namespace smcr::core
