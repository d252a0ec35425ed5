// What the preload knows about an fd. The app's fd is always the real
// kernel TCP socket (the carrier, like libvma's shadow socket and the
// kernel's clcsock), so fstat, CLOEXEC, fork, exec and FD_SETSIZE behave as
// without the preload; an SMC connection's data runs over libsmcr beside it.
// Calls on fds the table does not track cost one relaxed atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <sys/types.h>

#include <smcr/engine.h>
#include <smcr/socket.h>

namespace smcr::preload {

enum class FdKind : uint8_t {
    none = 0,   // not ours (files, pipes, unix sockets, fds past the table)
    candidate,  // an INET/INET6 stream socket, not connected or listening yet
    listener,   // a kernel listening socket (never a libsmcr object)
    tcp,        // a plain TCP connection (fallback or policy): bytes counted only
    smc,        // carrier of an SMC-R connection: data through libsmcr
    epoll,      // an epoll fd that holds SMC carriers (epoll_shadow.h)
};

// One SMC connection, shared by every fd that dup() made of the carrier.
struct Conn {
    smcr::Socket sock;  // non-blocking; the preload does the blocking (smc_io.h)
    // Its engine: after fork() the process that uses the connection first
    // runs it (usableHere(), process.h; engine/README.md "fork").
    std::shared_ptr<Engine> engine;
    std::atomic<bool> nonBlocking{false};  // the carrier's O_NONBLOCK, mirrored
    std::atomic<int> fdRefs{1};            // fds naming it; the last close ends it
    // Bumped by every recv/send call: an edge-triggered epoll reports a
    // direction again only after the program used it (epoll_shadow.h).
    std::atomic<uint64_t> rxGen{0};
    std::atomic<uint64_t> txGen{0};
    std::mutex epollMutex;
    std::set<int> epollSets;  // shadowed epoll fds that hold it
    std::string peer;
};

struct ListenerInfo {
    uint16_t port = 0;
    pid_t ownerPid = 0;
    std::string record;  // its registry entry (registry.h listenerRecord)
};

class FdTable {
public:
    static constexpr int kMaxFd = 1 << 20;

    FdTable();

    FdKind kind(int fd) const {
        if (fd < 0 || fd >= kMaxFd) return FdKind::none;
        return static_cast<FdKind>(m_kinds[fd].load(std::memory_order_acquire));
    }
    void setKind(int fd, FdKind kind);
    // SMC connections by fd (null when the fd is not one).
    std::shared_ptr<Conn> conn(int fd);
    void setConn(int fd, std::shared_ptr<Conn> conn);
    // Forgets fd; returns its connection if it had one.
    std::shared_ptr<Conn> take(int fd);
    // dup: newFd names what oldFd names (newFd's old entry is dropped first
    // and returned, for the caller to release).
    std::shared_ptr<Conn> copy(int oldFd, int newFd);

    void setListener(int fd, ListenerInfo info);
    ListenerInfo listener(int fd);
    // Every listening socket in the table.
    std::vector<ListenerInfo> listeners();
    // True when some fd of the table names a connection of `engine`.
    bool holdsConnectionsOf(const Engine* engine);

    std::mutex& mutex() { return m_mutex; }

private:
    // kMaxFd bytes of zero pages (mmap): only the pages of fds in use are
    // ever touched, so a process pays for the fds it has, not for the table.
    std::atomic<uint8_t>* m_kinds = nullptr;
    std::mutex m_mutex;
    std::unordered_map<int, std::shared_ptr<Conn>> m_conns;
    std::unordered_map<int, ListenerInfo> m_listeners;
};

FdTable& fdTable();
// The table if something made it already, else null; never allocates (for
// calls that may come from inside the program's allocator).
FdTable* existingFdTable();

}  // namespace smcr::preload
