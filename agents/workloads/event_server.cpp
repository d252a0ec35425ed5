#include "event_server.h"

#include <mutex>
#include <thread>
#include <unordered_map>

#include "accept_loop.h"
#include "clock.h"

namespace smclab::workloads {

namespace {

using transports::Interest;

struct Slot {
    std::unique_ptr<transports::Stream> stream;  // declared first: destroyed after the handler
    std::unique_ptr<Connection> connection;
    Interest interest = Interest::read;
};

class Worker {
public:
    Worker(int index, std::unique_ptr<transports::Poller> poller, const EventServerConfig& config)
        : m_index(index), m_poller(std::move(poller)), m_config(config) {}

    WorkerStats& stats() { return m_stats; }

    void hand(std::unique_ptr<transports::Stream> stream) {
        {
            std::lock_guard lock(m_inboxMutex);
            m_inbox.push_back(std::move(stream));
        }
        m_poller->wakeup();
    }

    void requestStop() {
        m_stop.store(true);
        m_poller->wakeup();
    }

    void run(const RunContext& ctx) {
        m_ctx = &ctx;
        transports::PollEvent events[64];
        while (!ctx.stopRequested() && !m_stop.load(std::memory_order_relaxed)) {
            adoptInbox();
            auto ready = m_poller->wait(events, kStopCheckMs);
            if (!ready) break;
            for (size_t i = 0; i < *ready; ++i) {
                auto* slot = static_cast<Slot*>(events[i].userData);
                const Interest next = slot->connection->onReady(events[i].ready);
                if (next == Interest::none) {
                    close(slot);
                } else if (next != slot->interest) {
                    slot->interest = next;
                    (void)m_poller->modify(*slot->stream, next, slot);
                }
            }
        }
        while (!m_slots.empty()) close(m_slots.begin()->first);
    }

private:
    void adoptInbox() {
        std::vector<std::unique_ptr<transports::Stream>> incoming;
        {
            std::lock_guard lock(m_inboxMutex);
            incoming.swap(m_inbox);
        }
        for (auto& stream : incoming) {
            auto slot = std::make_unique<Slot>();
            slot->stream = std::move(stream);
            slot->connection = m_config.accept(*slot->stream, m_stats, m_index);
            if (Status added = m_poller->add(*slot->stream, Interest::read, slot.get()); !added) {
                if (m_stats.errors.fetch_add(1, std::memory_order_relaxed) == 0 && m_ctx->onLog) {
                    m_ctx->onLog("server: a connection could not be watched: " + added.error().message);
                }
                continue;
            }
            m_stats.connections.fetch_add(1, std::memory_order_relaxed);
            Slot* key = slot.get();
            m_slots.emplace(key, std::move(slot));
        }
    }

    void close(Slot* slot) {
        (void)m_poller->remove(*slot->stream);
        m_slots.erase(slot);
    }

    int m_index;
    std::unique_ptr<transports::Poller> m_poller;
    const EventServerConfig& m_config;
    WorkerStats m_stats;
    const RunContext* m_ctx = nullptr;
    std::atomic<bool> m_stop{false};
    std::mutex m_inboxMutex;
    std::vector<std::unique_ptr<transports::Stream>> m_inbox;
    std::unordered_map<Slot*, std::unique_ptr<Slot>> m_slots;
};

EventServerTotals sum(const std::vector<std::unique_ptr<Worker>>& workers) {
    EventServerTotals t;
    for (const auto& w : workers) {
        WorkerStats& s = w->stats();
        t.ops += s.ops.load(std::memory_order_relaxed);
        t.bytesIn += s.bytesIn.load(std::memory_order_relaxed);
        t.bytesOut += s.bytesOut.load(std::memory_order_relaxed);
        t.connections += s.connections.load(std::memory_order_relaxed);
        t.errors += s.errors.load(std::memory_order_relaxed);
    }
    return t;
}

}  // namespace

Result<EventServerTotals> runEventServer(const RunContext& ctx, const EventServerConfig& config) {
    if (!ctx.transport) return smcr::fail(smcr::Errc::invalidArgument, "transport: none given");
    if (config.threads < 1) return smcr::fail(smcr::Errc::invalidArgument, "threads: must be at least 1");
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < config.threads; ++i) {
        auto poller = ctx.transport->createPoller();
        if (!poller) return smcr::fail(poller.error());
        workers.push_back(std::make_unique<Worker>(i, std::move(poller).value(), config));
    }
    auto acceptor = Acceptor::listen(ctx, 1024);
    if (!acceptor) return smcr::fail(acceptor.error());

    std::vector<std::thread> threads;
    for (auto& w : workers) threads.emplace_back([&ctx, worker = w.get()] { worker->run(ctx); });

    const uint64_t startNs = monotonicNs();
    const CpuTimes cpuStart = CpuTimes::now();
    size_t next = 0;
    AcceptHandlers handlers;
    // Round-robin over the I/O threads, each stream non-blocking for its poller.
    handlers.accepted = [&workers, &next](std::unique_ptr<transports::Stream> stream) {
        if (!stream->setNonBlocking(true)) return;
        workers[next]->hand(std::move(stream));
        next = (next + 1) % workers.size();
    };
    handlers.totals = [&workers](uint64_t* bytes, uint64_t* ops) {
        const EventServerTotals t = sum(workers);
        *bytes = t.bytesOut;
        *ops = t.ops;
    };
    const Status accepting = (*acceptor)->run(ctx, startNs, handlers);
    for (auto& w : workers) w->requestStop();
    for (std::thread& t : threads) t.join();
    if (!accepting) return smcr::fail(accepting.error());
    EventServerTotals totals = sum(workers);
    totals.wallSec = static_cast<double>(monotonicNs() - startNs) / 1e9;
    const CpuTimes cpuEnd = CpuTimes::now();
    totals.cpu = {cpuEnd.userSec - cpuStart.userSec, cpuEnd.systemSec - cpuStart.systemSec};
    return totals;
}

}  // namespace smclab::workloads
