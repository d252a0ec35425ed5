#include <smcr/listener.h>

#include "core/listener/listener_impl.h"
#include "core/shell/socket_impl.h"

namespace smcr {

Result<Listener> Listener::listen(const std::string& addr, uint16_t port, int backlog, std::shared_ptr<Engine> engine) {
    if (!engine) {
        auto shared = Engine::shared();
        if (!shared) return fail(shared.error());
        engine = shared.value();
    }
    auto impl = core::ListenerImpl::listen(engine->implPtr(), addr, port, backlog);
    if (!impl) return fail(impl.error());
    return Listener(impl.value());
}

Result<Socket> Listener::accept() {
    if (!m_impl) return fail(Errc::invalidState, "listener is not listening");
    auto sock = m_impl->accept();
    if (!sock) return fail(sock.error());
    return Socket(sock.value());
}

Status Listener::setNonBlocking(bool enabled) {
    if (!m_impl) return fail(Errc::invalidState, "listener is not listening");
    m_impl->setNonBlocking(enabled);
    return {};
}

Status Listener::setTimeoutMs(int timeoutMs) {
    if (!m_impl) return fail(Errc::invalidState, "listener is not listening");
    if (timeoutMs < 0) return fail(Errc::invalidArgument, "timeout must be >= 0");
    m_impl->setTimeoutMs(timeoutMs);
    return {};
}

uint16_t Listener::localPort() const {
    return m_impl ? m_impl->localPort() : 0;
}

void Listener::close() {
    if (m_impl) m_impl->close();
}

}  // namespace smcr
