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
#include <cerrno>
#include <iterator>
#include <span>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/syn_option.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/decline_reasons.h>

#include "core/listener/listener_impl.h"
#include "core/listener/smc_detect.h"
#include "core/shell/handshake_io.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

namespace {

constexpr int kAcceptBurst = 64;  // connections taken per wake before pending ones get a turn

// "a.b.c.d:port", formatted by hand: inet_ntop() and std::to_string() go
// through the printf machinery and three temporaries, a visible share of a
// short plain TCP connection's user-space time in the accept path (perf).
std::string peerNameOf(const sockaddr_in& a) {
    char text[sizeof "255.255.255.255:65535"];
    char* at = text;
    auto put = [&at](uint32_t value) {
        char digits[5];
        int n = 0;
        do {
            digits[n++] = static_cast<char>('0' + value % 10);
            value /= 10;
        } while (value != 0);
        while (n > 0) *at++ = digits[--n];
    };
    const uint32_t ip = ntohl(a.sin_addr.s_addr);
    for (int shift = 24; shift >= 0; shift -= 8) {
        put((ip >> shift) & 0xFF);
        *at++ = shift > 0 ? '.' : ':';
    }
    put(ntohs(a.sin_port));
    return std::string(text, at);
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
    const bool congested = settings.get(SettingId::limitSmcHs) != 0 && hsCongested();
    // The client's SYN carried the SMC option and our SYN-ACK answered it
    // (smc_synopt records only then): its Proposal comes next, as a kernel
    // client's does, so it goes to the handshake without a sort.
    if (!congested && peerSynOption(fd) == PeerSynOption::present) {
        {
            std::lock_guard lock(m_engine->mutex());
            ++m_engine->statsLocked().synOptionAccepts;
        }
        queueHandshake({fd, peerNameOf(peer), false, {}});
        return std::optional<Pending>();
    }
    // limit_smc_hs never lets a client wait behind a congested worker,
    // whichever path sorts the others.
    if (!fast && !congested) {
        queueHandshake({fd, peerNameOf(peer), true, {}});
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
    if (p.declining) return continueDecline(p, expired);
    // One consuming read decides (no MSG_PEEK): a plain TCP client's bytes
    // go to the application with its socket; an SMC client's to the CLC
    // reader. Every byte there was is taken, so an undecided socket is not
    // readable again until more come: no level-triggered wait spins on it.
    const DetectResult r = readSmcClient(p.fd, p.prefix);
    switch (r) {
        case DetectResult::smc:
            if (m_engine->settings().get(SettingId::limitSmcHs) != 0 && hsCongested()) {
                p.declining = true;
                return continueDecline(p, expired);
            }
            unwatch(p);
            queueHandshake({p.fd, p.peer, false, std::move(p.prefix)});
            return true;
        case DetectResult::plainTcp:
        case DetectResult::closed:
            unwatch(p);
            queuePlain(p, true, direct);
            return true;
        case DetectResult::silent:
            break;
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
    // Read what the Proposal still lacks, never more (bytes after it are the
    // application's). A read that comes up short took all there was, so
    // the edge-triggered watch fires again on the next bytes.
    bool ended = false;  // EOF or a broken socket
    size_t want = wire::kClcHeaderBytes;
    for (;;) {
        if (p.prefix.size() >= wire::kClcHeaderBytes) {
            auto h = wire::peekClcHeader(std::span<const uint8_t>(p.prefix.data(), wire::kClcHeaderBytes));
            if (!h || h->lengthBytes < wire::kClcHeaderBytes) {
                unwatch(p);
                // Malformed: the worker declines it (CNFERR).
                queueHandshake({p.fd, p.peer, false, std::move(p.prefix)});
                return true;
            }
            want = h->lengthBytes;
            if (p.prefix.size() >= want) break;  // whole
        }
        const size_t have = p.prefix.size();
        p.prefix.resize(want);
        const ssize_t n = ::recv(p.fd, p.prefix.data() + have, want - have, MSG_DONTWAIT);
        p.prefix.resize(have + (n > 0 ? static_cast<size_t>(n) : 0));
        if (n == static_cast<ssize_t>(want - have)) continue;
        ended = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
        break;
    }
    if (p.prefix.size() >= wire::kClcHeaderBytes && p.prefix.size() >= want) {
        const auto whole = std::span<const uint8_t>(p.prefix.data(), want);
        auto msg = wire::decodeClc(whole);
        if (!msg || !std::holds_alternative<wire::ClcProposal>(msg.value())) {
            unwatch(p);
            // A Decline or garbage: the handshake's rules apply.
            queueHandshake({p.fd, p.peer, false, std::move(p.prefix)});
            return true;
        }
        unwatch(p);
        p.prefix.erase(p.prefix.begin(), p.prefix.begin() + static_cast<std::ptrdiff_t>(want));
        const auto reason = wire::DeclineReason::peerNoSmc;
        (void)sendDecline(p.fd, m_engine->systemId(), reason, false);  // best effort, as in the handshake
        m_engine->countFallback(Side::server, static_cast<uint32_t>(reason), 0, false);
        {
            std::lock_guard lock(m_engine->mutex());
            ++m_engine->statsLocked().limitHsFallbacks;
        }
        auto sock = std::make_shared<SocketImpl>(m_engine, p.fd, p.peer, static_cast<uint32_t>(reason), 0);
        if (!p.prefix.empty()) sock->setPrefix(std::move(p.prefix));
        queueReady(AcceptSource::fastPath, std::move(sock));
        return true;
    }
    if (ended || expired) {
        // Gone, broken, or still partial after lab.clc_detect_ms: the worker's
        // CLC reader waits out the rest and declines with the usual reason.
        unwatch(p);
        queueHandshake({p.fd, p.peer, false, std::move(p.prefix)});
        return true;
    }
    return false;
}

void ListenerImpl::queuePlain(Pending& p, bool fastPath, std::shared_ptr<SocketImpl>* direct) {
    // Plain TCP client: the application gets every byte, those the sort read first.
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
    if (!p.prefix.empty()) sock->setPrefix(std::move(p.prefix));
    if (direct != nullptr) {
        // The caller in accept() returns it: no queue, no wake-up.
        *direct = std::move(sock);
        return;
    }
    queueReady(fastPath ? AcceptSource::fastPath : AcceptSource::handshake, std::move(sock));
}

}  // namespace smcr::core
