// Sorting connections on their first bytes without ever blocking on one
// (seed 003, "shadow sockets for fallback connections"), and the acceptor
// thread that does it while no thread sorts in accept(). The kernel sorts on
// the SYN option; user space sorts on the client's first bytes, so every new
// socket is watched (here in an epoll set, edge-triggered: a partial
// eyecatcher waits for more bytes, not for a timer) until smc_detect.h
// decides:
//   - not an eyecatcher, or EOF           -> fast-path accept queue, as TCP;
//   - no decision within lab.clc_detect_ms -> the same (a client that waits
//     for the server to speak first);
//   - a CLC eyecatcher                     -> the handshake worker, unless
//     limit_smc_hs is on and its queue is congested: then the Proposal is
//     read as soon as it is whole, declined, and the socket goes to the
//     fast-path queue as TCP at once.
// With lab.fast_fallback off every connection goes to the worker unsorted
// (except limit_smc_hs declines, which never wait for the worker).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <vector>

#include <smcr/wire/clc.h>
#include <smcr/wire/decline_reasons.h>

#include "handshake_io.h"
#include "listener_impl.h"
#include "smc_detect.h"
#include "socket_impl.h"

namespace smcr::core {

namespace {

constexpr int kAcceptBurst = 64;  // connections taken per wake before pending ones get a turn

std::string peerNameOf(const sockaddr_in& a) {
    char host[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(a.sin_port));
}

}  // namespace

void ListenerImpl::acceptorLoop() {
    epoll_event events[64];
    while (!m_closed.load()) {
        int timeoutMs = -1;
        {
            std::lock_guard sort(m_sortMutex);
            const uint64_t now = monotonicNs();
            if (!m_deadlines.empty()) {
                const uint64_t next = m_deadlines.begin()->first;
                timeoutMs = next > now ? static_cast<int>((next - now + 999999) / 1000000) : 0;
            }
            // Callers sort for themselves: look back now and then to take
            // the listening socket over once they are gone.
            if (!m_listenWatched) {
                const bool callers = m_sortingCallers.load() > 0;
                if (!callers && now >= m_lastSortingNs.load() + kRewatchMs * 1000000) {
                    watchListenLocked(true);
                } else {
                    // While a caller sleeps in accept() new connections wake
                    // it, so look back seldom; once it is gone, soon.
                    const int lookMs = static_cast<int>(callers ? kCallerCheckMs : kRewatchMs);
                    if (timeoutMs < 0 || timeoutMs > lookMs) timeoutMs = lookMs;
                }
            }
        }
        const int n = ::epoll_wait(m_epollFd, events, static_cast<int>(std::size(events)), timeoutMs);
        bool stop = false;
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == m_stopFd) {
                stop = true;
            } else if (fd == m_kickFd) {
                uint64_t value = 0;
                [[maybe_unused]] const ssize_t r = ::read(m_kickFd, &value, sizeof value);
            } else if (fd == m_listenFd) {
                for (int k = 0; k < kAcceptBurst; ++k) {
                    auto got = acceptOne();
                    if (!got) break;
                    if (*got) {
                        std::lock_guard sort(m_sortMutex);
                        adoptLocked(std::move(**got));
                    }
                }
            } else {
                std::lock_guard sort(m_sortMutex);
                if (auto it = m_pending.find(fd); it != m_pending.end() && decide(it->second, false)) forgetLocked(it);
            }
        }
        if (stop) break;
        std::lock_guard sort(m_sortMutex);
        const uint64_t now = monotonicNs();
        while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
            auto it = m_pending.find(m_deadlines.begin()->second);
            decide(it->second, true);  // always decides when expired
            forgetLocked(it);
        }
    }
    std::lock_guard sort(m_sortMutex);
    for (auto& [fd, p] : m_pending) ::close(fd);
    m_pending.clear();
    m_deadlines.clear();
}

void ListenerImpl::adoptLocked(Pending p) {
    // Bytes that arrived before this ADD still raise an event: epoll reports
    // readiness present at registration.
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    ev.data.fd = p.fd;
    if (::epoll_ctl(m_epollFd, EPOLL_CTL_ADD, p.fd, &ev) != 0) {
        queuePlain(p, true);  // cannot watch it: let the application have it as TCP
        return;
    }
    p.watched = true;
    m_deadlines.insert({p.deadlineNs, p.fd});
    const int fd = p.fd;
    m_pending.emplace(fd, std::move(p));
}

void ListenerImpl::forgetLocked(std::map<int, Pending>::iterator it) {
    unwatch(it->second);  // decided: already out, unless it never got in
    m_deadlines.erase({it->second.deadlineNs, it->first});
    m_pending.erase(it);
}

void ListenerImpl::unwatch(Pending& p) {
    if (!p.watched) return;
    ::epoll_ctl(m_epollFd, EPOLL_CTL_DEL, p.fd, nullptr);
    p.watched = false;
}

void ListenerImpl::watchListenLocked(bool watched) {
    if (watched == m_listenWatched) return;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = m_listenFd;
    ::epoll_ctl(m_epollFd, watched ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, m_listenFd, &ev);
    m_listenWatched = watched;
    if (!watched) {
        // The acceptor may sleep with no timeout: it must come back to take
        // the listening socket over once the callers are gone.
        const uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_kickFd, &one, sizeof one);
    }
}

std::optional<std::optional<ListenerImpl::Pending>> ListenerImpl::acceptOne(std::shared_ptr<SocketImpl>* direct) {
    const Settings& settings = m_engine->settings();
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(m_listenFd, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) return std::nullopt;  // EAGAIN: all taken; other errors: the next wake retries
    const bool fast = settings.get(SettingId::fastFallback) != 0;
    // limit_smc_hs never lets a client wait behind a congested worker,
    // whichever path sorts the others.
    if (!fast && !(settings.get(SettingId::limitSmcHs) != 0 && hsCongested())) {
        queueHandshake({fd, peerNameOf(peer), true});
        return std::optional<Pending>();
    }
    Pending p;
    p.fd = fd;
    p.deadlineNs = monotonicNs() + settings.get(SettingId::clcDetectMs) * 1000000;
    p.peer = peerNameOf(peer);
    if (decide(p, false, direct)) return std::optional<Pending>();
    return std::optional<Pending>(std::move(p));
}

bool ListenerImpl::decide(Pending& p, bool expired, std::shared_ptr<SocketImpl>* direct) {
    if (p.declining) {
        p.partial = true;
        return continueDecline(p, expired);
    }
    size_t peeked = 0;
    const DetectResult r = peekSmcClient(p.fd, &peeked);
    p.partial = peeked > 0;
    switch (r) {
        case DetectResult::smc:
            if (m_engine->settings().get(SettingId::limitSmcHs) != 0 && hsCongested()) {
                p.declining = true;
                p.partial = true;
                return continueDecline(p, expired);
            }
            unwatch(p);
            queueHandshake({p.fd, p.peer, false});
            return true;
        case DetectResult::plainTcp:
        case DetectResult::closed:
            unwatch(p);
            queuePlain(p, true, direct);
            return true;
        case DetectResult::silent: break;
    }
    if (!expired) return false;
    unwatch(p);
    queuePlain(p, true, direct);  // silence (or half an eyecatcher) for lab.clc_detect_ms: plain TCP
    return true;
}

// limit_smc_hs under congestion. The kernel stops echoing the SYN option,
// so both ends fall back before any CLC message; here the client has sent
// its Proposal already, so the listener takes it off the socket (nothing of
// it may reach the application) and answers with a Decline. Reason
// PEERNOSMC on both counts: what the kernel counts for a connection whose
// SYN-ACK lacked the option.
bool ListenerImpl::continueDecline(Pending& p, bool expired) {
    uint8_t header[wire::kClcHeaderBytes];
    const ssize_t n = ::recv(p.fd, header, sizeof header, MSG_PEEK | MSG_DONTWAIT);
    if (n == static_cast<ssize_t>(sizeof header)) {
        auto h = wire::peekClcHeader(header);
        if (!h) {
            unwatch(p);
            queueHandshake({p.fd, p.peer, false});  // malformed: the worker declines it (CNFERR)
            return true;
        }
        std::vector<uint8_t> bytes(h->lengthBytes);
        const ssize_t m = ::recv(p.fd, bytes.data(), bytes.size(), MSG_PEEK | MSG_DONTWAIT);
        if (m == static_cast<ssize_t>(bytes.size())) {
            auto msg = wire::decodeClc(bytes);
            if (!msg || !std::holds_alternative<wire::ClcProposal>(msg.value())) {
                unwatch(p);
                queueHandshake({p.fd, p.peer, false});  // a Decline or garbage: the handshake's rules apply
                return true;
            }
            // Whole and peeked, so this read cannot block or come up short.
            unwatch(p);
            [[maybe_unused]] const ssize_t taken = ::recv(p.fd, bytes.data(), bytes.size(), MSG_DONTWAIT);
            const auto reason = wire::DeclineReason::peerNoSmc;
            (void)sendDecline(p.fd, m_engine->systemId(), reason, false);  // best effort, as in the handshake
            m_engine->countFallback(HandshakeRole::server, static_cast<uint32_t>(reason), 0, false);
            {
                std::lock_guard lock(m_engine->mutex());
                ++m_engine->statsLocked().limitHsFallbacks;
            }
            queueReady(AcceptSource::fastPath,
                       std::make_shared<SocketImpl>(m_engine, p.fd, p.peer, static_cast<uint32_t>(reason), 0));
            return true;
        }
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) || expired) {
        // Gone, broken, or still partial after lab.clc_detect_ms: the worker's
        // CLC reader waits out the rest and declines with the usual reason.
        unwatch(p);
        queueHandshake({p.fd, p.peer, false});
        return true;
    }
    return false;
}

void ListenerImpl::queuePlain(const Pending& p, bool fastPath, std::shared_ptr<SocketImpl>* direct) {
    // Plain TCP client: nothing was read, the application gets every byte.
    // Counted as countFallback() would, in one lock with the fast-path count.
    const auto reason = static_cast<uint32_t>(wire::DeclineReason::peerNoSmc);
    {
        std::lock_guard lock(m_engine->mutex());
        EngineStats& stats = m_engine->statsLocked();
        ++stats.serverFallbacks;
        ++stats.serverFallbackReasons[reason];
        if (fastPath) ++stats.fastFallbackAccepts;
    }
    auto sock = std::make_shared<SocketImpl>(m_engine, p.fd, p.peer, reason, 0);
    if (direct != nullptr) {
        // The caller in accept() returns it: no queue, no wake-up.
        *direct = std::move(sock);
        return;
    }
    queueReady(fastPath ? AcceptSource::fastPath : AcceptSource::handshake, std::move(sock));
}

}  // namespace smcr::core
