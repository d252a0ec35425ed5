// Link-group bookkeeping without I/O: connection tokens, the connection
// limit (smcr_max_conns_per_lgr), the buffer pool per size class, and the
// linger before an unused group is freed (smc-protocol.md sections 2 and 4).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace smcr::core {

// RMB and sndbuf sizes: 16 KiB << n, n <= 5 (512 KiB) for SMC-R.
inline constexpr uint32_t kBufferMinBytes = 16 * 1024;
inline constexpr uint8_t kBufferMaxClass = 5;
// The size class that holds `bytes` (rounded up, clamped to 16 KiB..512 KiB).
uint8_t bufferClassFor(uint64_t bytes);
inline uint32_t bufferClassBytes(uint8_t sizeClass) {
    return kBufferMinBytes << sizeClass;
}

// Buffers reused per size class (the kernel keeps RMBs and sndbufs per lgr
// and reuses a free one of the same size before allocating).
class BufferPool {
public:
    // A free buffer of this class (now in use), or nullopt: allocate one and add() it.
    std::optional<uint32_t> acquire(uint8_t sizeClass);
    // Records a newly allocated buffer (in use) under the caller's id.
    void add(uint32_t id, uint8_t sizeClass);
    void release(uint32_t id);
    uint32_t inUse() const { return m_inUse; }
    uint32_t total() const { return static_cast<uint32_t>(m_slots.size()); }
    uint64_t reuses() const { return m_reuses; }

private:
    struct Slot {
        uint32_t id;
        uint8_t sizeClass;
        bool inUse;
    };
    std::vector<Slot> m_slots;
    uint32_t m_inUse = 0;
    uint64_t m_reuses = 0;
};

class LinkGroupCore {
public:
    LinkGroupCore(uint32_t maxConns, uint64_t lingerMs, uint32_t tokenSeed);

    bool full() const { return m_tokens.size() >= m_maxConns; }
    uint32_t connectionCount() const { return static_cast<uint32_t>(m_tokens.size()); }
    void setMaxConns(uint32_t maxConns) { m_maxConns = maxConns; }

    // A fresh nonzero alert token unique in this group; nullopt when full.
    std::optional<uint32_t> addConnection();
    void removeConnection(uint32_t token, uint64_t nowMs);
    bool hasToken(uint32_t token) const { return m_tokens.count(token) != 0; }

    // An empty group lingers so a reconnect reuses it (kernel
    // SMC_LGR_FREE_DELAY); true once the linger ran out with no connection.
    bool lingerExpired(uint64_t nowMs) const;
    uint64_t lingerDeadlineMs() const { return m_lingerDeadlineMs; }

    BufferPool& rmbs() { return m_rmbs; }
    BufferPool& sndbufs() { return m_sndbufs; }

private:
    uint32_t m_maxConns;
    uint64_t m_lingerMs;
    uint32_t m_nextToken;
    std::set<uint32_t> m_tokens;
    uint64_t m_lingerDeadlineMs = UINT64_MAX;
    BufferPool m_rmbs;
    BufferPool m_sndbufs;
};

}  // namespace smcr::core
