// The listening side every workload server shares: listen on the run's
// transport, watch the non-blocking listener with a transport Poller, and
// until the run stops accept each queued connection and hand it on (a
// thread per connection for tcp_bw/tcp_lat, an I/O thread's poller for
// http and kv), reporting the interval samples when they are due.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "workload.h"

namespace smclab::workloads {

struct AcceptHandlers {
    // Each accepted connection, on the accepting thread.
    std::function<void(std::unique_ptr<transports::Stream> stream)> accepted;
    // The bytes and operations so far, for the interval samples.
    std::function<void(uint64_t* bytes, uint64_t* ops)> totals;
    // Ends the loop before the run's stop (tcp's max_tests); null = never.
    std::function<bool()> finished;
};

class Acceptor {
public:
    // Listens on ctx.host:ctx.port with `backlog`; the port is announced by run().
    static Result<std::unique_ptr<Acceptor>> listen(const RunContext& ctx, int backlog);
    ~Acceptor();
    Acceptor(const Acceptor&) = delete;
    Acceptor& operator=(const Acceptor&) = delete;

    // Announces the port (ctx.onListening), accepts until the run stops or
    // handlers.finished says so, then closes the listener. The samples'
    // intervals count from startNs. An error only when the poller fails.
    Status run(const RunContext& ctx, uint64_t startNs, const AcceptHandlers& handlers);

private:
    Acceptor(std::unique_ptr<transports::Listener> listener, std::unique_ptr<transports::Poller> poller);
    void close();

    std::unique_ptr<transports::Listener> m_listener;
    std::unique_ptr<transports::Poller> m_poller;
    int m_token = 0;  // the listener's poller cookie
    bool m_open = true;
};

}  // namespace smclab::workloads
