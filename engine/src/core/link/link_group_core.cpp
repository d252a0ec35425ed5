#include "core/link/link_group_core.h"

namespace smcr::core {

uint8_t bufferClassFor(uint64_t bytes) {
    uint8_t sizeClass = 0;
    while (sizeClass < kBufferMaxClass && (uint64_t{kBufferMinBytes} << sizeClass) < bytes) ++sizeClass;
    return sizeClass;
}

std::optional<uint32_t> BufferPool::acquire(uint8_t sizeClass) {
    for (Slot& slot : m_slots) {
        if (!slot.inUse && slot.sizeClass == sizeClass) {
            slot.inUse = true;
            ++m_inUse;
            ++m_reuses;
            return slot.id;
        }
    }
    return std::nullopt;
}

void BufferPool::add(uint32_t id, uint8_t sizeClass) {
    m_slots.push_back(Slot{id, sizeClass, true});
    ++m_inUse;
}

void BufferPool::release(uint32_t id) {
    for (Slot& slot : m_slots) {
        if (slot.id == id && slot.inUse) {
            slot.inUse = false;
            --m_inUse;
            return;
        }
    }
}

LinkGroupCore::LinkGroupCore(uint32_t maxConns, uint64_t lingerMs, uint32_t tokenSeed)
    : m_maxConns(maxConns), m_lingerMs(lingerMs), m_nextToken(tokenSeed == 0 ? 1 : tokenSeed) {}

std::optional<uint32_t> LinkGroupCore::addConnection() {
    if (full()) return std::nullopt;
    while (m_nextToken == 0 || m_tokens.count(m_nextToken) != 0) ++m_nextToken;
    const uint32_t token = m_nextToken++;
    m_tokens.insert(token);
    m_lingerDeadlineMs = UINT64_MAX;
    return token;
}

void LinkGroupCore::removeConnection(uint32_t token, uint64_t nowMs) {
    if (m_tokens.erase(token) == 0) return;
    if (m_tokens.empty()) m_lingerDeadlineMs = nowMs + m_lingerMs;
}

bool LinkGroupCore::lingerExpired(uint64_t nowMs) const {
    return m_tokens.empty() && nowMs >= m_lingerDeadlineMs;
}

}  // namespace smcr::core
