#include "accept_loop.h"

#include "clock.h"
#include "interval_reporter.h"

namespace smclab::workloads {

Result<std::unique_ptr<Acceptor>> Acceptor::listen(const RunContext& ctx, int backlog) {
    if (!ctx.transport) return smcr::fail(smcr::Errc::invalidArgument, "transport: none given");
    auto listener = ctx.transport->listen(ctx.host, ctx.port, backlog);
    if (!listener) return smcr::fail(listener.error());
    auto poller = ctx.transport->createPoller();
    if (!poller) return smcr::fail(poller.error());
    // Non-blocking: one readiness event drains the whole queue, and the
    // loop gets back to the stop flag within kStopCheckMs.
    if (Status s = (*listener)->setNonBlocking(true); !s) return smcr::fail(s.error());
    std::unique_ptr<Acceptor> acceptor(new Acceptor(std::move(listener).value(), std::move(poller).value()));
    if (Status s = acceptor->m_poller->add(*acceptor->m_listener, transports::Interest::read, &acceptor->m_token); !s)
        return smcr::fail(s.error());
    return acceptor;
}

Acceptor::Acceptor(std::unique_ptr<transports::Listener> listener, std::unique_ptr<transports::Poller> poller)
    : m_listener(std::move(listener)), m_poller(std::move(poller)) {}

Acceptor::~Acceptor() {
    close();
}

void Acceptor::close() {
    if (!m_open) return;
    m_open = false;
    (void)m_poller->remove(*m_listener);
    m_listener->close();
}

Status Acceptor::run(const RunContext& ctx, uint64_t startNs, const AcceptHandlers& handlers) {
    if (ctx.onListening) ctx.onListening(m_listener->localPort());
    IntervalReporter reporter(ctx, startNs);
    transports::PollEvent events[4];
    Status outcome;
    while (!ctx.stopRequested() && !(handlers.finished && handlers.finished())) {
        auto ready = m_poller->wait(events, kStopCheckMs);
        if (!ready) {
            outcome = smcr::fail(ready.error());
            break;
        }
        if (*ready > 0) {
            for (;;) {
                auto stream = m_listener->accept();
                if (!stream) break;
                handlers.accepted(std::move(stream).value());
            }
        }
        const uint64_t now = monotonicNs();
        if (reporter.due(now)) {
            uint64_t bytes = 0, ops = 0;
            handlers.totals(&bytes, &ops);
            reporter.report(now, bytes, ops, nullptr, false);
        }
    }
    close();
    return outcome;
}

}  // namespace smclab::workloads
