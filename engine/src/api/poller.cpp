#include <vector>

#include <smcr/poller.h>

#include "core/listener/listener_impl.h"
#include "core/shell/poller_impl.h"
#include "core/shell/socket_impl.h"

namespace smcr {

namespace {
Status notCreated() {
    return fail(Errc::invalidState, "poller not created");
}
}  // namespace

Result<Poller> Poller::create(std::shared_ptr<Engine> engine) {
    if (!engine) {
        auto shared = Engine::shared();
        if (!shared) return fail(shared.error());
        engine = shared.value();
    }
    auto impl = core::PollerImpl::create(engine->implPtr());
    if (!impl) return fail(impl.error());
    return Poller(impl.value());
}

Status Poller::add(const Socket& socket, uint32_t events, void* userData) {
    if (!m_impl) return notCreated();
    return m_impl->add(socket.impl(), events, userData);
}
Status Poller::add(const Listener& listener, uint32_t events, void* userData) {
    if (!m_impl) return notCreated();
    return m_impl->add(listener.impl(), events, userData);
}
Status Poller::modify(const Socket& socket, uint32_t events, void* userData) {
    if (!m_impl) return notCreated();
    return m_impl->modify(socket.impl().get(), events, userData);
}
Status Poller::remove(const Socket& socket) {
    if (!m_impl) return notCreated();
    return m_impl->remove(socket.impl().get());
}
Status Poller::remove(const Listener& listener) {
    if (!m_impl) return notCreated();
    return m_impl->remove(listener.impl().get());
}

Result<size_t> Poller::wait(std::span<PollEvent> out, int timeoutMs) {
    if (!m_impl) return fail(notCreated().error());
    std::vector<core::PollerEventImpl> events(out.size());
    auto n = m_impl->wait(events, timeoutMs);
    if (!n) return fail(n.error());
    for (size_t i = 0; i < n.value(); ++i) out[i] = PollEvent{events[i].userData, events[i].events};
    return n.value();
}

void Poller::wakeup() {
    if (m_impl) m_impl->wakeup();
}

void Poller::beginForeignWait() {
    if (m_impl) m_impl->beginForeignWait();
}
void Poller::endForeignWait() {
    if (m_impl) m_impl->endForeignWait();
}
void Poller::fdReadable() {
    if (m_impl) m_impl->fdReadable();
}

int Poller::fd() const {
    return m_impl ? m_impl->fd() : -1;
}

}  // namespace smcr
