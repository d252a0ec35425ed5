// Bytes a listener already took off a plain TCP socket while sorting it
// (seed 003's fast fallback, listener_acceptor.cpp): the read that decides
// SMC or TCP consumes the client's first bytes instead of peeking at them, so
// a fallback connection costs the accept path one recv() less (the MSG_PEEK
// look and the application's first read become one). The socket's recv()
// serves these bytes first, byte for byte, before it reads the kernel's; a
// peek leaves them in place. Safe for concurrent readers, and free to ask
// about once empty (one atomic load).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace smcr::core {

class RxPrefix {
public:
    // Replaces what is held (before the socket is handed out).
    void set(std::vector<uint8_t> bytes);
    bool empty() const { return m_left.load(std::memory_order_acquire) == 0; }
    size_t size() const { return m_left.load(std::memory_order_acquire); }
    // Copies up to len held bytes into data; removes them unless peek.
    // Returns 0 when nothing is held (the caller reads the kernel then).
    size_t take(void* data, size_t len, bool peek);
    void clear();

private:
    std::mutex m_mutex;
    std::vector<uint8_t> m_bytes;
    size_t m_at = 0;
    std::atomic<size_t> m_left{0};
};

}  // namespace smcr::core
