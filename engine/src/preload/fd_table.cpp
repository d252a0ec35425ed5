#include "fd_table.h"

#include <cstdlib>

#include <sys/mman.h>

namespace smcr::preload {

namespace {
std::atomic<FdTable*> g_table{nullptr};
}  // namespace

FdTable& fdTable() {
    // Never destroyed: calls keep arriving from other threads during exit.
    static FdTable* table = [] {
        auto* made = new FdTable;
        g_table.store(made, std::memory_order_release);
        return made;
    }();
    return *table;
}

FdTable* existingFdTable() {
    return g_table.load(std::memory_order_acquire);
}

FdTable::FdTable() {
    void* pages = ::mmap(nullptr, kMaxFd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) std::abort();  // at load: nothing sensible to fall back to
    m_kinds = static_cast<std::atomic<uint8_t>*>(pages);
}

void FdTable::setKind(int fd, FdKind kind) {
    if (fd < 0 || fd >= kMaxFd) return;
    m_kinds[fd].store(static_cast<uint8_t>(kind), std::memory_order_release);
}

std::shared_ptr<Conn> FdTable::conn(int fd) {
    std::lock_guard lock(m_mutex);
    auto it = m_conns.find(fd);
    return it != m_conns.end() ? it->second : nullptr;
}

void FdTable::setConn(int fd, std::shared_ptr<Conn> c) {
    if (fd < 0 || fd >= kMaxFd) return;
    std::lock_guard lock(m_mutex);
    m_conns[fd] = std::move(c);
    m_kinds[fd].store(static_cast<uint8_t>(FdKind::smc), std::memory_order_release);
}

std::shared_ptr<Conn> FdTable::take(int fd) {
    if (fd < 0 || fd >= kMaxFd) return nullptr;
    std::lock_guard lock(m_mutex);
    m_kinds[fd].store(static_cast<uint8_t>(FdKind::none), std::memory_order_release);
    m_listeners.erase(fd);
    auto it = m_conns.find(fd);
    if (it == m_conns.end()) return nullptr;
    std::shared_ptr<Conn> c = std::move(it->second);
    m_conns.erase(it);
    return c;
}

std::shared_ptr<Conn> FdTable::copy(int oldFd, int newFd) {
    if (newFd < 0 || newFd >= kMaxFd) return nullptr;
    std::lock_guard lock(m_mutex);
    std::shared_ptr<Conn> dropped;
    if (auto it = m_conns.find(newFd); it != m_conns.end()) {
        dropped = std::move(it->second);
        m_conns.erase(it);
    }
    m_listeners.erase(newFd);
    const uint8_t k = (oldFd >= 0 && oldFd < kMaxFd) ? m_kinds[oldFd].load() : uint8_t{0};
    if (auto it = m_conns.find(oldFd); k == static_cast<uint8_t>(FdKind::smc) && it != m_conns.end()) {
        it->second->fdRefs.fetch_add(1);
        m_conns[newFd] = it->second;
    }
    if (auto it = m_listeners.find(oldFd); it != m_listeners.end()) m_listeners[newFd] = it->second;
    m_kinds[newFd].store(k, std::memory_order_release);
    return dropped;
}

void FdTable::setListener(int fd, ListenerInfo info) {
    if (fd < 0 || fd >= kMaxFd) return;
    std::lock_guard lock(m_mutex);
    m_listeners[fd] = info;
    m_kinds[fd].store(static_cast<uint8_t>(FdKind::listener), std::memory_order_release);
}

ListenerInfo FdTable::listener(int fd) {
    std::lock_guard lock(m_mutex);
    auto it = m_listeners.find(fd);
    return it != m_listeners.end() ? it->second : ListenerInfo{};
}

std::vector<ListenerInfo> FdTable::listeners() {
    std::lock_guard lock(m_mutex);
    std::vector<ListenerInfo> out;
    for (const auto& [fd, info] : m_listeners) {
        if (info.port != 0) out.push_back(info);
    }
    return out;
}

bool FdTable::holdsConnectionsOf(const Engine* engine) {
    std::lock_guard lock(m_mutex);
    for (const auto& [fd, c] : m_conns) {
        if (c && c->engine.get() == engine) return true;
    }
    return false;
}

}  // namespace smcr::preload
