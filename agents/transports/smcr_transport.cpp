// `smcr`: libsmcr, SMC-R in user space (sim fabric by default, verbs where a
// device exists). Streams are smcr::Socket (not kernel fds: nativeFd() is
// -1), readiness goes through smcr::Poller, and the live settings are the
// engine's (kernel net.smc names plus lab.*), changeable while a run goes.
//
// Options (TransportOptions): "fabric" (sim | verbs[:device]), "link"
// (ideal | cx4-25g | cx4lx-vf), and any engine setting by name, applied when the
// transport's engine is made.
#include <atomic>
#include <csignal>
#include <memory>
#include <vector>

#include <poll.h>
#include <sys/socket.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/poller.h>
#include <smcr/socket.h>

#include "transport_factories.h"

namespace smclab::transports {

namespace {

uint32_t toPollEvents(Interest interest) {
    uint32_t events = 0;
    if (any(interest & Interest::read)) events |= POLLIN;
    if (any(interest & Interest::write)) events |= POLLOUT;
    return events;
}

Interest fromPollEvents(uint32_t events) {
    Interest ready = Interest::none;
    if (events & (POLLIN | POLLRDHUP)) ready = ready | Interest::read;
    if (events & POLLOUT) ready = ready | Interest::write;
    if (events & (POLLERR | POLLHUP | POLLNVAL)) ready = ready | Interest::hangup;
    return ready;
}

// Application bytes that the transport's fallen-back connections moved
// over TCP: the engine counts only what went over RDMA (smcr.tx_bytes,
// smcr.rx_bytes), and a run's record must say how much did not
// (smcr.tcp_tx_bytes, smcr.tcp_rx_bytes; db/report connection_use.h).
struct TcpBytes {
    std::atomic<uint64_t> tx{0};
    std::atomic<uint64_t> rx{0};
};

class SmcrStream final : public Stream {
public:
    SmcrStream(smcr::Socket socket, std::shared_ptr<TcpBytes> tcpBytes)
        : m_socket(std::move(socket)), m_tcpBytes(m_socket.fellBack() ? std::move(tcpBytes) : nullptr) {}
    ~SmcrStream() override { m_socket.close(); }

    int nativeFd() const override { return -1; }
    Status setNonBlocking(bool enabled) override { return m_socket.setNonBlocking(enabled); }
    Status setIoTimeoutMs(int timeoutMs) override { return m_socket.setTimeoutMs(timeoutMs); }
    Result<size_t> read(void* buffer, size_t len) override { return countRx(m_socket.recv(buffer, len)); }
    Result<size_t> write(const void* buffer, size_t len) override { return countTx(m_socket.send(buffer, len)); }
    Result<size_t> writev(const iovec* iov, int count) override {
        size_t total = 0;
        for (int i = 0; i < count; ++i) {
            // MSG_MORE on all but the last piece, like a corked writev.
            auto n = m_socket.send(iov[i].iov_base, iov[i].iov_len, i + 1 < count ? MSG_MORE : 0);
            if (!n) {
                if (total > 0) return countTx(total);
                return smcr::fail(n.error());
            }
            total += n.value();
            if (n.value() < iov[i].iov_len) break;
        }
        return countTx(total);
    }
    Result<size_t> sendfile(int fileFd, off_t offset, size_t len) override {
        return countTx(m_socket.sendfile(fileFd, offset, len));
    }
    Status setCork(bool enabled) override { return m_socket.setCork(enabled); }
    Status setNoDelay(bool enabled) override { return m_socket.setNoDelay(enabled); }
    Status shutdownWrite() override { return m_socket.shutdown(SHUT_WR); }
    void close() override { m_socket.close(); }
    Result<Interest> waitReady(Interest interest, int timeoutMs) override {
        auto r = m_socket.waitReady(toPollEvents(interest), timeoutMs);
        if (!r) return smcr::fail(r.error());
        return fromPollEvents(r.value());
    }
    std::string peerAddress() const override { return m_socket.peerAddress(); }
    Counters counters() const override {
        const smcr::ConnectionStats s = m_socket.stats();
        return {{"smcr.fell_back", m_socket.fellBack() ? 1u : 0u},
                {"smcr.fallback_reason", m_socket.fallbackReason()},
                {"smcr.cdc_sent", s.cdcSent},
                {"smcr.cdc_received", s.cdcReceived},
                {"smcr.rdma_writes", s.rdmaWrites},
                {"smcr.tx_bytes", s.txBytes},
                {"smcr.rx_bytes", s.rxBytes},
                {"smcr.window_updates", s.windowUpdates},
                {"smcr.buf_full_peer", s.bufFullPeer},
                {"smcr.buf_full", s.bufFull}};
    }

    const smcr::Socket& socket() const { return m_socket; }

private:
    Result<size_t> countTx(Result<size_t> n) {
        if (m_tcpBytes && n) m_tcpBytes->tx.fetch_add(n.value(), std::memory_order_relaxed);
        return n;
    }
    Result<size_t> countRx(Result<size_t> n) {
        if (m_tcpBytes && n) m_tcpBytes->rx.fetch_add(n.value(), std::memory_order_relaxed);
        return n;
    }

    smcr::Socket m_socket;
    std::shared_ptr<TcpBytes> m_tcpBytes;  // set when the connection fell back
};

class SmcrListener final : public Listener {
public:
    SmcrListener(smcr::Listener listener, std::shared_ptr<TcpBytes> tcpBytes)
        : m_listener(std::move(listener)), m_tcpBytes(std::move(tcpBytes)) {}
    ~SmcrListener() override { m_listener.close(); }
    int nativeFd() const override { return -1; }
    Status setNonBlocking(bool enabled) override { return m_listener.setNonBlocking(enabled); }
    Result<std::unique_ptr<Stream>> accept() override {
        auto s = m_listener.accept();
        if (!s) return smcr::fail(s.error());
        return std::unique_ptr<Stream>(new SmcrStream(s.value(), m_tcpBytes));
    }
    uint16_t localPort() const override { return m_listener.localPort(); }
    void close() override { m_listener.close(); }
    const smcr::Listener& listener() const { return m_listener; }

private:
    smcr::Listener m_listener;
    std::shared_ptr<TcpBytes> m_tcpBytes;
};

class SmcrPoller final : public Poller {
public:
    explicit SmcrPoller(smcr::Poller poller) : m_poller(std::move(poller)) {}
    Status add(Pollable& target, Interest interest, void* userData) override {
        if (auto* s = dynamic_cast<SmcrStream*>(&target))
            return m_poller.add(s->socket(), toPollEvents(interest), userData);
        if (auto* l = dynamic_cast<SmcrListener*>(&target)) {
            return m_poller.add(l->listener(), toPollEvents(interest), userData);
        }
        return smcr::fail(smcr::Errc::invalidArgument, "smcr poller: not an smcr stream or listener");
    }
    Status modify(Pollable& target, Interest interest, void* userData) override {
        if (auto* s = dynamic_cast<SmcrStream*>(&target)) {
            return m_poller.modify(s->socket(), toPollEvents(interest), userData);
        }
        if (auto* l = dynamic_cast<SmcrListener*>(&target)) {
            // Listeners only ever report readability: re-adding updates the user data.
            if (Status r = m_poller.remove(l->listener()); !r) return r;
            return m_poller.add(l->listener(), toPollEvents(interest), userData);
        }
        return smcr::fail(smcr::Errc::invalidArgument, "smcr poller: not an smcr stream or listener");
    }
    Status remove(Pollable& target) override {
        if (auto* s = dynamic_cast<SmcrStream*>(&target)) return m_poller.remove(s->socket());
        if (auto* l = dynamic_cast<SmcrListener*>(&target)) return m_poller.remove(l->listener());
        return smcr::fail(smcr::Errc::invalidArgument, "smcr poller: not an smcr stream or listener");
    }
    Result<size_t> wait(std::span<PollEvent> events, int timeoutMs) override {
        m_buffer.resize(events.size());
        auto n = m_poller.wait(m_buffer, timeoutMs);
        if (!n) return smcr::fail(n.error());
        for (size_t i = 0; i < n.value(); ++i) {
            events[i] = PollEvent{m_buffer[i].userData, fromPollEvents(m_buffer[i].events)};
        }
        return n.value();
    }
    void wakeup() override { m_poller.wakeup(); }

private:
    smcr::Poller m_poller;
    std::vector<smcr::PollEvent> m_buffer;
};

SettingScope scopeOf(smcr::SettingScope scope) {
    switch (scope) {
        case smcr::SettingScope::immediate:
            return SettingScope::immediate;
        case smcr::SettingScope::newConnections:
            return SettingScope::newConnections;
        case smcr::SettingScope::newLinkGroups:
            return SettingScope::newLinkGroups;
        case smcr::SettingScope::invalid:
            break;
    }
    return SettingScope::invalid;
}

class SmcrTransport final : public Transport {
public:
    explicit SmcrTransport(std::shared_ptr<smcr::Engine> engine) : m_engine(std::move(engine)) {}

    std::string name() const override { return "smcr"; }

    Result<std::unique_ptr<Stream>> connect(const std::string& host, uint16_t port,
                                            const ConnectOptions& options) override {
        smcr::ConnectOptions o;
        o.timeoutMs = options.timeoutMs;
        o.engine = m_engine;
        auto s = smcr::Socket::connect(host, port, o);
        if (!s) return smcr::fail(s.error());
        if (options.noDelay) {
            if (Status r = s->setNoDelay(true); !r) return smcr::fail(r.error());
        }
        return std::unique_ptr<Stream>(new SmcrStream(s.value(), m_tcpBytes));
    }

    Result<std::unique_ptr<Listener>> listen(const std::string& addr, uint16_t port, int backlog) override {
        auto l = smcr::Listener::listen(addr, port, backlog, m_engine);
        if (!l) return smcr::fail(l.error());
        return std::unique_ptr<Listener>(new SmcrListener(l.value(), m_tcpBytes));
    }

    Result<std::unique_ptr<Poller>> createPoller() override {
        auto p = smcr::Poller::create(m_engine);
        if (!p) return smcr::fail(p.error());
        return std::unique_ptr<Poller>(new SmcrPoller(p.value()));
    }

    std::vector<SettingInfo> settings() const override {
        std::vector<SettingInfo> out;
        for (const smcr::SettingValue& v : m_engine->settings().list()) {
            out.push_back({v.name, v.value, scopeOf(v.scope), v.help});
        }
        return out;
    }

    Status applySetting(const std::string& name, const std::string& value) override {
        return m_engine->settings().set(name, value);
    }

    Counters counters() const override {
        Counters out;
        for (const auto& [name, value] : m_engine->stats().flatten()) out.push_back({name, value});
        out.push_back({"smcr.tcp_tx_bytes", m_tcpBytes->tx.load(std::memory_order_relaxed)});
        out.push_back({"smcr.tcp_rx_bytes", m_tcpBytes->rx.load(std::memory_order_relaxed)});
        return out;
    }

private:
    std::shared_ptr<smcr::Engine> m_engine;
    std::shared_ptr<TcpBytes> m_tcpBytes = std::make_shared<TcpBytes>();
};

}  // namespace

Availability probeSmcr() {
    return {true, {}};
}

Result<std::unique_ptr<Transport>> createSmcr(const TransportOptions& options) {
    // Peer-closed sockets in fallback mode must report EPIPE, not kill the process.
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<std::pair<std::string, std::string>> settings;
    for (const auto& [name, value] : options) {
        if (name == "fabric")
            settings.emplace_back("lab.fabric", value);
        else if (name == "link")
            settings.emplace_back("lab.link", value);
        else
            settings.emplace_back(name, value);
    }
    auto engine = smcr::Engine::create(settings);
    if (!engine) return smcr::fail(engine.error());
    return std::unique_ptr<Transport>(new SmcrTransport(engine.value()));
}

}  // namespace smclab::transports
