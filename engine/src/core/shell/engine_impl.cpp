#include "core/shell/engine_impl.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <ctime>
#include <random>

#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace smcr::core {

namespace {

// How often the background thread looks back while application threads own
// the completion channel (they process completions themselves meanwhile).
// After the last application waiter leaves, the channel stays with the
// application threads this long before the background thread takes it back
// (like NAPI's gro_flush_timeout with napi_defer_hard_irqs: interrupts stay
// masked for a while after busy polling). A ping-pong then never wakes the
// background thread per message; before, handing the channel back at every
// wait's end cost two background wake-ups (preempting the waiter on its CPU)
// on about one round trip in five. The background thread checks back this
// often while it does not watch the channel.
constexpr uint64_t kChannelGraceMs = 5;
// Timer slack of a thread that waits in the engine (threadEventFd()).
constexpr unsigned long kWaiterTimerSlackNs = 1000;
// Grace between a TCP hang-up and the abort: the peer's closing CDC travels
// over the fabric and may trail its FIN on loopback.
constexpr uint64_t kHangupGraceMs = 200;
constexpr uint64_t kBgTagEvent = ~0ull;
constexpr uint64_t kBgTagChannel = ~0ull - 1;

// One eventfd per thread, kept for the thread's life: a sleeper's wake-up line.
struct WakeLine {
    WakeLine() {
        // A sleep bounded by the sim's next due time must end at that
        // time: the "RNIC" delivers then. The default 50 us timer slack
        // of a normal thread let every such wake-up come up to 50 us
        // late (an interrupt on real hardware is not late).
        ::prctl(PR_SET_TIMERSLACK, kWaiterTimerSlackNs);
    }
    int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    bool gone = false;
    ~WakeLine() {
        if (fd >= 0) ::close(fd);
        // A wait after this thread's thread-locals are gone (exit()'s
        // flush, Engine::flushClosed) must not sleep on, or be woken
        // through, a number the process may have reused: -1 is ignored
        // by ppoll and refused by write.
        fd = -1;
        gone = true;
    }
};
thread_local WakeLine t_wakeLine;

int threadEventFd() {
    return t_wakeLine.fd;
}

}  // namespace

// A forked child's thread (the one that called fork()) would share its
// parent's eventfd: a wake-up meant for one process could be read by the
// other. It gets its own (pthread_atfork, registered with the first engine).
void renewThreadWakeLineAfterFork() {
    if (t_wakeLine.gone) return;
    if (t_wakeLine.fd >= 0) ::close(t_wakeLine.fd);
    t_wakeLine.fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

namespace {

void drainEventFd(int fd) {
    uint64_t value = 0;
    [[maybe_unused]] const ssize_t n = ::read(fd, &value, sizeof value);
}

}  // namespace

uint64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

Result<std::shared_ptr<EngineImpl>> EngineImpl::create(
    const std::vector<std::pair<std::string, std::string>>& settings) {
    std::shared_ptr<EngineImpl> engine(new EngineImpl());
    for (const auto& [name, value] : settings) {
        if (Status s = engine->m_settings.set(name, value); !s) return fail(s.error());
    }
    if (Status s = engine->init(); !s) return fail(s.error());
    return engine;
}

Status EngineImpl::init() {
    fabric::OpenOptions options;
    const std::string fabricName = m_settings.fabric();
    if (fabricName.rfind("sim", 0) == 0) options["link"] = m_settings.linkModel();
    // SMC-Rv2 (a UEID set): the port's IPv4-mapped RoCE v2 GID.
    if (fabricName.rfind("verbs", 0) == 0 && !m_settings.ueid().empty()) options["gid_type"] = "v2";
    auto device = fabric::openDevice(fabricName, options);
    if (!device) return fail(device.error());
    m_device = std::move(device.value());
    m_fabricRunsInCalls = m_device->progressModel() == fabric::ProgressModel::ownerCalls;
    const fabric::DeviceInfo& info = m_device->info();
    auto activePort = std::find_if(info.ports.begin(), info.ports.end(), [](const auto& p) { return p.active; });
    if (activePort == info.ports.end()) return fail(Errc::notFound, info.name + ": no active port");
    m_port = *activePort;

    auto pd = m_device->allocatePd();
    if (!pd) return fail(pd.error());
    m_pd = std::move(pd.value());
    auto channel = m_device->createChannel();
    if (!channel) return fail(channel.error());
    m_channel = std::move(channel.value());
    const uint32_t depth = std::min<uint32_t>(16384, info.limits.maxCqe);
    auto sendCq = m_device->createCq(fabric::CqInit{depth, m_channel.get(), 1});
    if (!sendCq) return fail(sendCq.error());
    m_sendCq = std::move(sendCq.value());
    auto recvCq = m_device->createCq(fabric::CqInit{depth, m_channel.get(), 2});
    if (!recvCq) return fail(recvCq.error());
    m_recvCq = std::move(recvCq.value());

    // System id: 2 random bytes + the MAC of the first active port (RFC 7609 3.3.2).
    std::random_device rd;
    m_systemId[0] = static_cast<uint8_t>(rd());
    m_systemId[1] = static_cast<uint8_t>(rd());
    std::copy(m_port.mac.begin(), m_port.mac.end(), m_systemId.begin() + 2);

    m_bgEventFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    m_bgEpollFd = ::epoll_create1(EPOLL_CLOEXEC);
    if (m_bgEventFd < 0 || m_bgEpollFd < 0) return fail(makeSystemError("eventfd/epoll_create1", errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kBgTagEvent;
    if (::epoll_ctl(m_bgEpollFd, EPOLL_CTL_ADD, m_bgEventFd, &ev) != 0) {
        return fail(makeSystemError("epoll_ctl", errno));
    }
    ev.data.u64 = kBgTagChannel;
    ev.events = 0;  // enabled while no application thread waits
    if (::epoll_ctl(m_bgEpollFd, EPOLL_CTL_ADD, m_channel->fd(), &ev) != 0) {
        return fail(makeSystemError("epoll_ctl channel", errno));
    }
    if (Status s = initForkOwner(); !s) return s;
    std::lock_guard lock(m_mutex);
    startBackgroundLocked();
    return {};
}

void EngineImpl::startBackgroundLocked() {
    m_parking = false;
    m_background = std::thread([this] {
        ::pthread_setname_np(::pthread_self(), "smcr-bg");  // per-thread tools (perf sched, top -H)
        backgroundLoop();
    });
}

EngineImpl::~EngineImpl() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        if (m_bgEventFd >= 0) {
            const uint64_t one = 1;
            [[maybe_unused]] const ssize_t n = ::write(m_bgEventFd, &one, sizeof one);
        }
        for (auto& lgr : m_linkGroups) {
            for (auto& [token, conn] : lgr->conns) {
                if (conn->tcpFd >= 0 && conn->appClosed) {
                    ::close(conn->tcpFd);
                    conn->tcpFd = -1;
                }
            }
        }
    }
    if (m_background.joinable()) m_background.join();
    // Fabric objects go before their PD, CQs and device (verbs order).
    m_closingConns.clear();
    m_connById.clear();
    m_lgrByQpn.clear();
    for (auto& lgr : m_linkGroups) {
        for (auto& [token, conn] : lgr->conns) conn->lgr.reset();
        lgr->conns.clear();
        for (auto& link : lgr->links) link.reset();
        lgr->multi.retired.reset();
        lgr->rmbs.clear();
        lgr->sndbufs.clear();
    }
    m_linkGroups.clear();
    m_sendCq.reset();
    m_recvCq.reset();
    m_channel.reset();
    m_pd.reset();
    m_device.reset();
    if (m_bgEpollFd >= 0) ::close(m_bgEpollFd);
    if (m_bgEventFd >= 0) ::close(m_bgEventFd);
    releaseForkOwner();
}

int EngineImpl::channelFd() const {
    return m_channel->fd();
}

EngineStats EngineImpl::stats() {
    std::lock_guard lock(m_mutex);
    if (discarded()) return m_stats;  // its device is gone from this process (fork)
    EngineStats out = m_stats;
    // Per-connection counters of live connections are summed in; released
    // connections were folded into m_stats.total when they went.
    for (const auto& lgr : m_linkGroups) {
        for (const auto& [token, conn] : lgr->conns) {
            out.total += conn->totals();
            ++out.connectionsActive;
        }
    }
    // The fabric's RNR NAKs (not counted on verbs: zero there).
    if (auto rnr = m_device->rnrCounters()) {
        out.rnrNaksSent = rnr->naksSent;
        out.rnrNaksReceived = rnr->naksReceived;
        // rnr_retry 7 retries forever: every NAK taken is followed by a retry.
        out.rnrRetries = rnr->naksReceived;
    }
    addFlowStatsLocked(out);
    addLinkStatsLocked(out);
    return out;
}

// ---- waiting ------------------------------------------------------------------

bool EngineImpl::progressLocked() {
    fabric::WorkCompletion wcs[32];
    bool any = serviceRxQueuesLocked();  // the slow receive path's due CDCs (engine_credits.cpp)
    for (;;) {
        auto n = m_recvCq->poll(wcs);
        if (!n || n.value() == 0) break;
        any = true;
        ++m_stats.cqPolls;
        for (size_t i = 0; i < n.value(); ++i) onRecvCompletionLocked(wcs[i]);
        afterRecvBatchLocked();  // RX backlog, credit announcements (engine_credits.cpp)
        if (n.value() < std::size(wcs)) break;
    }
    for (;;) {
        auto n = m_sendCq->poll(wcs);
        if (!n || n.value() == 0) break;
        any = true;
        ++m_stats.cqPolls;
        for (size_t i = 0; i < n.value(); ++i) onSendCompletionLocked(wcs[i]);
        if (n.value() < std::size(wcs)) break;
    }
    if (any) wakeSleepersLocked();
    return any;
}

void EngineImpl::wakeSleepersLocked() {
    ++m_changeGen;
    const uint64_t one = 1;
    const int self = threadEventFd();
    bool wordSleeper = false;
    for (const Sleeper& s : m_sleepers) {
        if (s.eventFd == self) continue;
        if (s.onWord) {
            wordSleeper = true;
            continue;
        }
        [[maybe_unused]] const ssize_t n = ::write(s.eventFd, &one, sizeof one);
    }
    if (wordSleeper) m_channel->wakeWordSleepers();
    m_sleepers.clear();  // they call in at once now
    publishOwnerWakeLocked();
    for (PersistentWatcher& w : m_watchers) {
        if (!w.armed) continue;
        w.armed = false;
        [[maybe_unused]] const ssize_t n = ::write(w.fd, &one, sizeof one);
    }
}

void EngineImpl::addPersistentWatcherLocked(int eventFd) {
    m_watchers.push_back({eventFd, true});
}
void EngineImpl::removePersistentWatcherLocked(int eventFd) {
    std::erase_if(m_watchers, [&](const PersistentWatcher& w) { return w.fd == eventFd; });
}
void EngineImpl::rearmPersistentWatcherLocked(int eventFd) {
    for (PersistentWatcher& w : m_watchers) {
        if (w.fd == eventFd) w.armed = true;
    }
}

bool EngineImpl::armLocked(bool armSend) {
    // A sleeper's wake-up event, left in the channel (sleepStepLocked), is
    // taken before any arm, whoever arms: taken after it, it could be the
    // event of a completion that came after the arm, and the armer would
    // sleep on a disarmed CQ with that completion unpolled. The arm's own
    // poll (the caller polls again when this returns false) sees what the
    // event stood for.
    if (m_channelEventLeft) consumeChannelEventsLocked();
    // Receives arm solicited-only: every CDC/LLC SEND carries the SE bit
    // (smc-protocol.md section 4). Send completions return sndbuf space and
    // CDC slots, so that CQ arms for the next completion when a waiter needs
    // them (engine_wake.cpp). Left unarmed it still fails safe: a lost link
    // flushes the receive queue too, and a flush error fires a solicited arm.
    auto r = m_recvCq->requestNotify(true);
    bool missed = r && r.value() == fabric::NotifyResult::missedEvents;
    if (armSend) {
        ++m_stats.cqSendArms;
        auto s = m_sendCq->requestNotify(false);
        missed = missed || (s && s.value() == fabric::NotifyResult::missedEvents);
    }
    ++m_stats.cqArms;
    return !missed;
}

void EngineImpl::consumeChannelEventsLocked() {
    m_channelEventLeft = false;
    for (;;) {
        auto ev = m_channel->getEvent(0);
        if (!ev) break;
        ev.value()->ackEvents(1);
        ++m_stats.cqEvents;
        if (!m_channel->mayHaveEvents()) break;
    }
}

EngineImpl::WaitResult EngineImpl::waitUntil(std::unique_lock<std::mutex>& lock, const std::function<bool()>& pred,
                                             uint64_t deadlineNs, std::span<const int> extraFds, Connection* owner,
                                             WaitFor waitFor, uint64_t minSpinUs) {
    progressLocked();
    // The kernel's waits let go of the socket before they look at their
    // condition (sk_wait_event: release_sock, which runs the pushes the
    // completions left to the owner). So does a wait here: a push deferred
    // to us goes now, not after our next copy into the sndbuf.
    if (owner != nullptr) runDeferredPushLocked(*owner);
    if (pred()) return {.ready = true};
    ++m_appWaiters;
    Waiter w{pred,
             deadlineNs,
             extraFds,
             owner,
             waitFor,
             monotonicNs() + std::max(m_settings.get(SettingId::busyPollUs), minSpinUs) * 1000,
             threadEventFd(),
             DueSpin{}};
    WaitResult result;
    for (;;) {
        const uint64_t now = monotonicNs();
        if (deadlineNs != 0 && now >= deadlineNs) break;
        const WaitStep step = now < w.spinUntilNs ? busyPollStepLocked(lock, w) : armStepLocked(lock, w);
        if (step == WaitStep::ready) {
            result.ready = true;
            break;
        }
        if (step == WaitStep::again) continue;
        result.slept = true;
        if (sleepStepLocked(lock, w, now)) {
            result.ready = true;
            break;
        }
    }
    --m_appWaiters;
    // The background thread takes the channel back kChannelGraceMs after the
    // last waiter leaves, on its own timer: no wake-up from here.
    m_lastWaiterExitMs = monotonicMs();
    return result;
}

bool EngineImpl::spinToDueStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w, bool* ready) {
    if (!spinToFabricDueLocked(lock, w.deadlineNs, w.dueSpin)) return false;
    progressLocked();
    if (w.owner != nullptr) runDeferredPushLocked(*w.owner);
    *ready = w.pred();
    return true;
}

EngineImpl::WaitStep EngineImpl::busyPollStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w) {
    lock.unlock();
    for (int i = 0; i < 16; ++i) cpuRelax();
    lock.lock();
    progressLocked();
    if (w.owner != nullptr) runDeferredPushLocked(*w.owner);  // tx deferral (engine_push.cpp)
    if (!w.pred()) return WaitStep::again;
    ++m_stats.busyPollHits;
    return WaitStep::ready;
}

EngineImpl::WaitStep EngineImpl::armStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w) {
    bool ready = false;
    // Our own WRs the sim delivers soon (a request just posted): wait for
    // them here, before arming, instead of sleeping on the sim's timer.
    if (spinToDueStepLocked(lock, w, &ready)) return ready ? WaitStep::ready : WaitStep::again;
    // A push deferred to us (tx deferral) goes out before the arm, so its
    // completions are drained or armed for, not found by a wake-up that
    // the arm itself caused.
    if (w.owner != nullptr) runDeferredPushLocked(*w.owner);
    // Drain and arm per lab.cq_mode (engine_cq.cpp): a completion that
    // slipped in between the last poll and the arm must not be slept on.
    // A receives-only waiter arms the send CQ only if a send completion
    // would move something (engine_wake.cpp).
    serviceCqsLocked(w.waitFor != WaitFor::receives || sendCompletionAwaitedLocked());
    // A push the arm's polls deferred to us (a window update came) goes
    // before the sleep decision: its WRs are due within a wire latency and
    // are waited for below. Left to the sleep's leaving the socket, they were
    // posted after that decision and slept on; left to a wait that ends here,
    // they went only after our next copy into the sndbuf.
    if (w.owner != nullptr) runDeferredPushLocked(*w.owner);
    if (w.pred()) return WaitStep::ready;
    // An ACK the arm made due soon (a sndbuf or slot waiter): the same.
    if (spinToDueStepLocked(lock, w, &ready)) return ready ? WaitStep::ready : WaitStep::again;
    return WaitStep::sleep;
}

// A ppoll timeout runs late by the thread's timer slack (50 us by default):
// longer than the wire's latency whose delivery it waits for. Set once per
// thread to 1 us (prctl(2) PR_SET_TIMERSLACK), the precision the sim's own
// timer (a timerfd, which has no slack) gave.
static void preciseTimeoutsForThisThread() {
    static thread_local bool done = false;
    if (done) return;
    done = true;
    ::prctl(PR_SET_TIMERSLACK, 1000ul, 0ul, 0ul, 0ul);
}

void EngineImpl::sleepOnFdsLocked(std::unique_lock<std::mutex>& lock, Waiter& w, uint64_t wakeNs, uint64_t now) {
    timespec timeout{};
    if (wakeNs != 0) {
        const uint64_t left = wakeNs > now ? wakeNs - now : 0;
        timeout.tv_sec = static_cast<time_t>(left / 1000000000ull);
        timeout.tv_nsec = static_cast<long>(left % 1000000000ull);
    }
    lock.unlock();
    // The channel's own fds, not its epoll fd: the wake-up takes one hop less.
    std::array<int, fabric::CompletionChannel::kMaxSleepFds> channelFds{};
    const size_t nChannel = m_channel->sleepFds(channelFds);
    pollfd fds[fabric::CompletionChannel::kMaxSleepFds + 1 + 8];
    nfds_t nfds = 0;
    for (size_t i = 0; i < nChannel; ++i) fds[nfds++] = pollfd{channelFds[i], POLLIN, 0};
    const nfds_t eventFdIndex = nfds;
    fds[nfds++] = pollfd{w.eventFd, POLLIN, 0};
    for (int fd : w.extraFds) {
        if (nfds < std::size(fds)) fds[nfds++] = pollfd{fd, POLLIN, 0};
    }
    ::ppoll(fds, nfds, wakeNs != 0 ? &timeout : nullptr, nullptr);
    lock.lock();
    if (fds[eventFdIndex].revents != 0) drainEventFd(w.eventFd);
    // The channel's event is left for the next arm (armLocked), not taken
    // now: its read (a system call) would stand between the wake-up and the
    // data, which the CQ poll below finds without it.
    for (size_t i = 0; i < nChannel; ++i) m_channelEventLeft = m_channelEventLeft || fds[i].revents != 0;
}

bool EngineImpl::sleepStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w, uint64_t now) {
    // A sleeping thread is not inside its socket (the kernel releases the
    // socket lock): completions push directly meanwhile.
    if (w.owner != nullptr) leaveOwnerLocked(*w.owner);
    ++m_stats.blockingWaits;
    // Bounded by the fabric's next due time too: the sim runs a delayed
    // delivery or ACK only inside our calls (fabric.h, "Waiting").
    const uint64_t wakeNs = sleepUntilNsLocked(w.deadlineNs);
    if (wakeNs != 0 && m_fabricRunsInCalls) preciseTimeoutsForThisThread();
    // A thread that waits for nothing but the engine sleeps on the
    // channel's word (fabric.h, sleepOnWord): the wake-up of a blocking
    // read, without the poll over the fds. Not while a foreign loop sleeps
    // on the channel's fd: a fired CQ wakes the word instead of the fd.
    const bool onWord = w.extraFds.empty() && m_foreignWaiters == 0 && m_channel->canSleepOnWord() &&
                        m_settings.get(SettingId::waitSleep) == 0;
    m_sleepers.push_back(Sleeper{w.eventFd, wakeNs, onWord});
    publishOwnerWakeLocked();
    if (onWord) {
        ++m_stats.wordSleeps;
        const uint32_t ticket = m_channel->wordTicket();  // under the lock wakeSleepersLocked holds
        lock.unlock();
        m_channel->sleepOnWord(ticket, wakeNs);
        lock.lock();
        // Woken by a fired CQ or not, its event (if any) is the next arm's;
        // so is the device timer, which fired unread if another thread armed
        // it while we slept (the arm's getEvent reads it, no syscall else).
        m_channelEventLeft = true;
    } else {
        sleepOnFdsLocked(lock, w, wakeNs, now);
    }
    w.dueSpin.spentNs = 0;
    std::erase_if(m_sleepers, [&](const Sleeper& s) { return s.eventFd == w.eventFd; });
    publishOwnerWakeLocked();
    // What arrived while we slept is handled before we re-enter the
    // socket, as the kernel's tasklet handles it while the owner sleeps:
    // its pushes go out at once instead of waiting for our next leave
    // (deferred, they waited until after the next arm: tx deferral
    // halved tcp_bw at 4-64 KiB on the ideal link).
    progressLocked();
    if (w.owner != nullptr) enterOwnerLocked(*w.owner);
    return w.pred();
}

uint64_t EngineImpl::sleepUntilNsLocked(uint64_t deadlineNs) {
    uint64_t dueNs = fabricDueNsLocked();
    // CDCs the slow receive path holds are due then too (engine_credits.cpp).
    if (const uint64_t rxNs = nextRxDueNsLocked(); rxNs != 0 && (dueNs == 0 || rxNs < dueNs)) dueNs = rxNs;
    if (dueNs == 0) return deadlineNs;
    return deadlineNs == 0 ? dueNs : std::min(deadlineNs, dueNs);
}

// ---- background thread ----------------------------------------------------------

void EngineImpl::watchTcpLocked(Connection& conn) {
    if (conn.tcpFd < 0) return;
    epoll_event ev{};
    ev.events = EPOLLRDHUP | EPOLLHUP | EPOLLERR;
    ev.data.u64 = conn.id;
    ::epoll_ctl(m_bgEpollFd, EPOLL_CTL_ADD, conn.tcpFd, &ev);
}

void EngineImpl::unwatchTcpLocked(Connection& conn) {
    if (conn.tcpFd >= 0) ::epoll_ctl(m_bgEpollFd, EPOLL_CTL_DEL, conn.tcpFd, nullptr);
}

void EngineImpl::timersLocked(uint64_t nowMs) {
    // Peer hang-ups whose grace ran out: the peer process is gone.
    std::vector<std::shared_ptr<Connection>> expired;
    for (auto& [id, weak] : m_connById) {
        auto conn = weak.lock();
        if (conn && conn->hangupDeadlineMs <= nowMs) expired.push_back(conn);
    }
    for (auto& conn : expired) {
        conn->hangupDeadlineMs = UINT64_MAX;
        if (!conn->core || conn->core->closer().aborted() || conn->core->closer().peerClosed()) continue;
        CloseActions a = conn->core->closer().on(CloseEvent::peerAbnormalClose);
        if (a.error != Errc::invalid) {
            conn->error = a.error;
            ++m_stats.connectionsAborted;
        }
        maybeReleaseLocked(*conn);
    }
    // TEST_LINK and link-down per link group.
    std::vector<std::shared_ptr<LinkGroup>> lost;
    for (auto& lgr : m_linkGroups) {
        if (lgr->terminated) continue;
        const LinkActions a = pollLinkLocked(*lgr, lgr->primary(), nowMs);
        if (a.linkDown || a.terminateLinkGroup) lost.push_back(lgr);
    }
    for (auto& lgr : lost) {
        // With a second link the connections move over (engine_links.cpp).
        if (!primaryLinkLostLocked(lgr, wire::DeleteLinkReason::lostPath)) {
            terminateLinkGroupLocked(lgr, wire::DeleteLinkReason::lostPath, PeerNotice::none);
        }
    }
    multiLinkTimersLocked(nowMs);  // ADD_LINK timeouts, TEST_LINK on added links
    txWatchdogLocked(nowMs);       // send completions that stopped (engine_watchdog.cpp)
    lingerCheckLocked(nowMs);
    wakeSleepersLocked();
}

void EngineImpl::backgroundLoop() {
    std::unique_lock lock(m_mutex);
    while (!m_stopping && !m_parking) {
        progressLocked();
        const uint64_t nowMs = monotonicMs();
        timersLocked(nowMs);
        corkTimersLocked(nowMs);
        int timeoutMs = backgroundTimeoutMsLocked(nowMs);
        backgroundChannelLocked(nowMs, timeoutMs);
        noteBackgroundSleepLocked(nowMs, timeoutMs);  // the watchdog may need a kick (engine_watchdog.cpp)
        if (m_bgChannelWatched) {
            m_bgChannelWakeNs = timeoutMs < 0 ? 0 : monotonicNs() + uint64_t(timeoutMs) * 1000000ull;
            if (m_bgChannelWakeNs == 0) m_bgChannelWakeNs = fabric::Device::kNoWakePromise;
            publishOwnerWakeLocked();
        }
        lock.unlock();
        epoll_event events[64];
        const int n = ::epoll_wait(m_bgEpollFd, events, static_cast<int>(std::size(events)), timeoutMs);
        lock.lock();
        ++m_stats.backgroundWakeups;
        if (m_bgChannelWakeNs != 0) {
            m_bgChannelWakeNs = 0;
            publishOwnerWakeLocked();
        }
        for (int i = 0; i < n; ++i) onBackgroundEventLocked(events[i].data.u64);
    }
}

int EngineImpl::backgroundTimeoutMsLocked(uint64_t nowMs) {
    // Next timer: hang-up graces, TEST_LINK deadlines, linger.
    uint64_t nextMs = nowMs + 60000;
    for (auto& [id, weak] : m_connById) {
        if (auto conn = weak.lock()) nextMs = std::min(nextMs, conn->hangupDeadlineMs);
    }
    nextMs = std::min(nextMs, nextCorkDeadlineMsLocked());  // lab.cork_timer_ms (engine_push.cpp)
    for (auto& lgr : m_linkGroups) {
        if (!lgr->terminated) nextMs = std::min(nextMs, lgr->primary().core->nextDeadlineMs());
        if (lgr->core) nextMs = std::min(nextMs, lgr->core->lingerDeadlineMs());
    }
    nextMs = std::min(nextMs, multiLinkDeadlineMs());
    nextMs = std::min(nextMs, txWatchdogDeadlineMsLocked(nowMs));
    return static_cast<int>(std::min<uint64_t>(nextMs > nowMs ? nextMs - nowMs : 0, 60000));
}

void EngineImpl::backgroundChannelLocked(uint64_t nowMs, int& timeoutMs) {
    // The application's last sign of life: a waiter leaving or a
    // Poller's wait (noteAppPollLocked).
    const uint64_t lastAppMs = std::max(m_lastWaiterExitMs, m_lastAppPollMs);
    const bool inGrace = m_appWaiters > 0 || m_foreignWaiters > 0 || nowMs < lastAppMs + kChannelGraceMs;
    const bool watchChannel = !inGrace;
    m_bgAwaitsForeignExit = false;
    if (watchChannel) {
        serviceCqsLocked();  // drained and armed per lab.cq_mode (engine_cq.cpp)
        // The fabric's timed work runs only inside our calls: wake for it
        // (whole milliseconds; the sim's timer normally comes first).
        if (const uint64_t dueNs = sleepUntilNsLocked(0); dueNs != 0) {
            const uint64_t nowNs = monotonicNs();
            const uint64_t dueMs = dueNs > nowNs ? (dueNs - nowNs + 999999) / 1000000 : 0;
            timeoutMs = std::min(timeoutMs, static_cast<int>(std::min<uint64_t>(dueMs, 60000)));
        }
    } else if (m_appWaiters == 0 && m_foreignWaiters > 0 && nowMs >= m_lastWaiterExitMs + kChannelGraceMs) {
        // Only foreign loops wait on the channel (through their pollers'
        // fds), and none left for a grace: an idle server, for hours
        // maybe. No check-back timer; the last of them to leave kicks
        // (engine_wake.cpp). A busy loop that leaves and re-enters all
        // the time keeps the timer, and no waiter's exit costs a kick.
        m_bgAwaitsForeignExit = true;
    } else {
        const uint64_t graceLeftMs = m_appWaiters > 0 || nowMs >= lastAppMs + kChannelGraceMs
                                         ? kChannelGraceMs
                                         : lastAppMs + kChannelGraceMs - nowMs;
        timeoutMs = std::min(timeoutMs, static_cast<int>(std::max<uint64_t>(graceLeftMs, 1)));
    }
    if (watchChannel != m_bgChannelWatched) {
        epoll_event ev{};
        ev.events = watchChannel ? uint32_t{EPOLLIN} : 0u;
        ev.data.u64 = kBgTagChannel;
        ::epoll_ctl(m_bgEpollFd, EPOLL_CTL_MOD, m_channel->fd(), &ev);
        m_bgChannelWatched = watchChannel;
    }
}

void EngineImpl::onBackgroundEventLocked(uint64_t tag) {
    if (tag == kBgTagEvent) {
        drainEventFd(m_bgEventFd);
        return;
    }
    if (tag == kBgTagChannel) {
        consumeChannelEventsLocked();
        return;
    }
    auto it = m_connById.find(tag);
    auto conn = it == m_connById.end() ? nullptr : it->second.lock();
    if (!conn) return;
    // The peer's TCP socket closed: either an orderly end that the closing
    // CDC already announced, or a dead peer.
    unwatchTcpLocked(*conn);
    if (conn->hangupDeadlineMs == UINT64_MAX) conn->hangupDeadlineMs = monotonicMs() + kHangupGraceMs;
}

}  // namespace smcr::core
