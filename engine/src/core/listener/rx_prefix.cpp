#include "core/listener/rx_prefix.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace smcr::core {

void RxPrefix::set(std::vector<uint8_t> bytes) {
    std::lock_guard lock(m_mutex);
    m_bytes = std::move(bytes);
    m_at = 0;
    m_left.store(m_bytes.size(), std::memory_order_release);
}

size_t RxPrefix::take(void* data, size_t len, bool peek) {
    if (empty() || len == 0) return 0;
    std::lock_guard lock(m_mutex);
    const size_t n = std::min(len, m_bytes.size() - m_at);
    std::memcpy(data, m_bytes.data() + m_at, n);
    if (!peek) {
        m_at += n;
        if (m_at == m_bytes.size()) {
            // All served: the memory goes, later reads go straight to the kernel.
            std::vector<uint8_t>().swap(m_bytes);
            m_at = 0;
        }
        m_left.store(m_bytes.size() - m_at, std::memory_order_release);
    }
    return n;
}

void RxPrefix::clear() {
    set({});
}

}  // namespace smcr::core
