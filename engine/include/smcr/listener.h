// smcr::Listener: accepts connections from libsmcr (and kernel SMC) clients
// over SMC-R and from plain TCP clients, which fall back transparently and
// receive every byte unchanged. accept() returns finished sockets: SMC
// handshakes run on a worker thread per listener; plain TCP clients skip it
// (lab.fast_fallback, on by default), so a slow handshake never delays them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <smcr/engine.h>
#include <smcr/result.h>
#include <smcr/socket.h>

namespace smcr {

namespace core {
class ListenerImpl;
}

class Listener {
public:
    Listener() = default;

    // addr "" or "0.0.0.0" = any; port 0 = ephemeral (see localPort()).
    static Result<Listener> listen(const std::string& addr, uint16_t port, int backlog = 128,
                                   std::shared_ptr<Engine> engine = nullptr);

    bool valid() const { return m_impl != nullptr; }
    Result<Socket> accept();
    Status setNonBlocking(bool enabled);
    Status setTimeoutMs(int timeoutMs);  // accept() gives up with timedOut; 0 = never
    uint16_t localPort() const;
    void close();

    const std::shared_ptr<core::ListenerImpl>& impl() const { return m_impl; }

private:
    explicit Listener(std::shared_ptr<core::ListenerImpl> impl) : m_impl(std::move(impl)) {}
    std::shared_ptr<core::ListenerImpl> m_impl;
};

}  // namespace smcr
