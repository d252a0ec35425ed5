// The two accept queues of a listener, after seed 003's "shadow sockets"
// (net/smc: a fallback accept queue beside the SMC one): sockets the
// acceptor classified as plain TCP on their first bytes (the fast path),
// and sockets the handshake worker finished (SMC-R, or a fallback the
// handshake decided). accept() takes from both in turn while both hold
// sockets, so a burst of one kind never starves the other; in the seed the
// fallback queue is always served first, which a steady stream of TCP
// clients could use to starve SMC ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace smcr::core {

enum class AcceptSource : uint8_t { invalid = 0, fastPath, handshake };

template <class T>
class AcceptQueues {
public:
    void push(AcceptSource from, T item) {
        (from == AcceptSource::fastPath ? m_fast : m_handshake).push_back(std::move(item));
    }
    bool empty() const { return m_fast.empty() && m_handshake.empty(); }
    size_t size() const { return m_fast.size() + m_handshake.size(); }
    size_t size(AcceptSource from) const { return from == AcceptSource::fastPath ? m_fast.size() : m_handshake.size(); }

    // The next socket: from the queue not served last when both hold one.
    std::optional<T> pop() {
        if (empty()) return std::nullopt;
        AcceptSource from = m_fast.empty() ? AcceptSource::handshake : AcceptSource::fastPath;
        if (!m_fast.empty() && !m_handshake.empty() && m_last == AcceptSource::fastPath) {
            from = AcceptSource::handshake;
        }
        std::deque<T>& q = from == AcceptSource::fastPath ? m_fast : m_handshake;
        T item = std::move(q.front());
        q.pop_front();
        m_last = from;
        return item;
    }

    // Everything still queued (listener close), fast path first.
    std::deque<T> takeAll() {
        std::deque<T> out = std::move(m_fast);
        for (T& item : m_handshake) out.push_back(std::move(item));
        m_fast.clear();
        m_handshake.clear();
        return out;
    }

private:
    std::deque<T> m_fast;
    std::deque<T> m_handshake;
    AcceptSource m_last = AcceptSource::invalid;
};

}  // namespace smcr::core
