// One thread per accepted connection, joined as soon as it has finished: a
// server that runs for days (`smclab serve tcp`, one connection per qperf
// test) must not keep every finished thread's stack mapped until it stops
// (tens of thousands of them run into vm.max_map_count and the next
// thread cannot start).
#pragma once

#include <atomic>
#include <list>
#include <memory>
#include <thread>
#include <utility>

namespace smclab::workloads {

class ConnectionThreads {
public:
    ConnectionThreads() = default;
    ConnectionThreads(const ConnectionThreads&) = delete;
    ConnectionThreads& operator=(const ConnectionThreads&) = delete;
    ~ConnectionThreads() { joinAll(); }

    // Joins the threads that have finished, then starts fn on a new one.
    template <typename Fn>
    void start(Fn fn) {
        reap();
        auto done = std::make_shared<std::atomic<bool>>(false);
        Entry entry;
        entry.done = done;
        entry.thread = std::thread([fn = std::move(fn), done]() mutable {
            fn();
            done->store(true, std::memory_order_release);
        });
        m_threads.push_back(std::move(entry));
    }
    void joinAll() {
        for (Entry& e : m_threads) e.thread.join();
        m_threads.clear();
    }
    size_t running() const { return m_threads.size(); }

private:
    struct Entry {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    void reap() {
        for (auto it = m_threads.begin(); it != m_threads.end();) {
            if (!it->done->load(std::memory_order_acquire)) {
                ++it;
                continue;
            }
            it->thread.join();
            it = m_threads.erase(it);
        }
    }
    std::list<Entry> m_threads;
};

}  // namespace smclab::workloads
