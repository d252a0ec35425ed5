// The engine shell: one fabric device with its CQs and completion channel,
// the link groups, the progress loop and the waiting policy. Everything
// protocol-shaped is decided by the functional core (connection_core.h,
// handshake.h, link_core.h, link_group_core.h); this class does the I/O.
//
// Threading and progress (engine/README.md, "Progress and waiting"):
// - One mutex guards all engine state; the fabric is driven under it.
// - Any thread that waits for a condition (recv data, sndbuf space, a
//   handshake message, poller readiness) runs waitUntil(): it polls the CQs
//   and processes completions itself while spinning for busy_poll_us, then
//   arms both CQs (solicited-only for receives; a recv waiter leaves the send
//   CQ unarmed unless a send completion would move something, engine_wake.cpp),
//   polls once more, and only then sleeps in poll() on the completion channel
//   fd and its own eventfd (rsocket's rs_get_comp sequence). Whoever
//   processes completions wakes the other sleepers through their eventfds,
//   so no wake-up is lost. On a fabric whose work runs only inside our
//   calls (the sim: fabric.h, Device::progressModel) the sleep also ends at
//   the device's next due time, and work due within microseconds is waited
//   for on the CPU instead of slept on (engine_wake.cpp).
// - A background thread BLOCKS (never spins) on the channel, a timer and the
//   TCP sockets of the connections, so CDC/LLC arrivals, TEST_LINK and peer
//   hang-ups are handled while no application thread is in the engine. While
//   application threads are waiting, and for kChannelGraceMs after the last
//   one left, it leaves the channel to them (checking back on a timer), so a
//   busy-polling benchmark does not pay for a second woken thread per message.
//   A foreign loop's thread waiting on a Poller's fd() (the preload's
//   epoll_wait and poll: Poller::beginForeignWait) counts as such a waiter.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include <sys/types.h>

#include <smcr/fabric.h>
#include <smcr/result.h>
#include <smcr/settings.h>
#include <smcr/stats.h>
#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

#include "core/connection/cork_policy.h"
#include "core/shell/link_group.h"

namespace smcr::core {

uint64_t monotonicNs();
// The calling thread's wake-up eventfd is replaced in a forked child
// (engine_impl.cpp; engine_fork.cpp registers it with pthread_atfork).
void renewThreadWakeLineAfterFork();
inline uint64_t monotonicMs() {
    return monotonicNs() / 1000000;
}
// One step of a spin-wait: a PAUSE, so a spinning thread leaves the core's
// pipeline to its sibling and the peer it waits for.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

class SocketImpl;

class EngineImpl : public std::enable_shared_from_this<EngineImpl> {
public:
    // Settings are applied (by name) before the fabric device opens.
    static Result<std::shared_ptr<EngineImpl>> create(
        const std::vector<std::pair<std::string, std::string>>& settings = {});
    ~EngineImpl();
    EngineImpl(const EngineImpl&) = delete;
    EngineImpl& operator=(const EngineImpl&) = delete;

    Settings& settings() { return m_settings; }
    EngineStats stats();
    // The counters themselves, for shell code outside this class (caller holds mutex()).
    EngineStats& statsLocked() { return m_stats; }
    std::mutex& mutex() { return m_mutex; }

    // ---- waiting (callers hold `lock` on mutex()) ----------------------------
    // What a waiter's condition can be moved by: any completion (the default:
    // sndbuf space, a CDC slot, a close's last CDC), or receives alone (recv
    // data). A receives-only sleeper leaves the send CQ unarmed unless a send
    // completion would move something (engine_wake.cpp), so its own ACK does
    // not wake it before the answer arrives.
    enum class WaitFor { invalid, anyCompletion, receives };
    // ready: pred() holds (false at the deadline; 0 = no deadline); slept:
    // this wait slept at least once, not only polled (a reader that keeps up
    // with its sender polls: ConnRx::onRecv).
    struct WaitResult {
        bool ready = false;
        bool slept = false;
        explicit operator bool() const { return ready; }
    };
    // extraFds: more fds to sleep on (a poller's kernel sockets).
    // owner: the connection this thread is inside (send); it stays inside while
    // spinning, runs pushes deferred to it, and leaves while it sleeps.
    // minSpinUs: poll at least this long before arming (lab.busy_poll_us if longer).
    WaitResult waitUntil(std::unique_lock<std::mutex>& lock, const std::function<bool()>& pred, uint64_t deadlineNs,
                         std::span<const int> extraFds = {}, Connection* owner = nullptr,
                         WaitFor waitFor = WaitFor::anyCompletion, uint64_t minSpinUs = 0);
    // Polls both CQs once and processes what it finds; true if anything was.
    bool progressLocked();
    // Wakes every thread sleeping in waitUntil (and persistent watchers).
    void wakeSleepersLocked();
    // Counts wakeSleepersLocked() calls: readiness (data, space, errors, a
    // queued connection) only rises with one, so a waiter whose condition
    // was false at one value need not look again until it moves (a Poller's
    // scan of many sockets).
    uint64_t changeGenLocked() const { return m_changeGen; }
    // An eventfd written at the first wake after it was armed (a Poller's fd
    // for foreign event loops). It is armed when added and re-armed by its
    // owner once it has read it: a written eventfd stays readable, so a
    // second write would only cost a system call per engine change (one per
    // CDC) while nobody looks.
    void addPersistentWatcherLocked(int eventFd);
    void removePersistentWatcherLocked(int eventFd);
    void rearmPersistentWatcherLocked(int eventFd);
    int channelFd() const;
    // A thread of a foreign event loop waits on a poller's fd(), which holds
    // the completion channel (PollerImpl::beginForeignWait, engine_wake.cpp):
    // while one does, and for the channel's grace after the last left, the
    // channel is the waiters' and the background thread does not wake for
    // its events.
    void foreignWaitBeginLocked();
    void foreignWaitEndLocked();
    // An application's poll of the CQs outside waitUntil (every Poller
    // wait): the channel stays the application's for the grace.
    void noteAppPollLocked() { m_lastAppPollMs = monotonicMs(); }
    // Takes the channel's events: its fd stays readable until they are taken.
    void consumeChannelEventsLocked();
    // The fabric's next due time (monotonic ns; 0 = none), for sleepers outside waitUntil.
    uint64_t nextDueNsLocked() { return sleepUntilNsLocked(0); }
    // Arms the receive CQ (solicited) and, with armSend, the send CQ for its
    // next completion; false when completions may have been missed (poll again).
    bool armLocked(bool armSend = true);

    // ---- connection setup (handshake_*.cpp) ---------------------------------
    // Client side over a connected TCP socket: CLC + LLC, or fallback.
    Result<std::shared_ptr<SocketImpl>> clientHandshake(int tcpFd, const std::string& peerName);
    // Server side for an accepted TCP socket whose first bytes are a CLC Proposal.
    // prefix: the client's first bytes, already read by the listener's sort.
    // limit_smc_hs under congestion for an accepted socket whose client
    // proposes next (the preload's accept path): its Proposal is read and
    // declined, PEERNOSMC (listener_acceptor.cpp continueDecline does the same).
    std::shared_ptr<SocketImpl> serverDeclineCongested(int tcpFd, const std::string& peerName);
    std::shared_ptr<SocketImpl> serverHandshake(int tcpFd, const std::string& peerName,
                                                std::vector<uint8_t> prefix = {});
    // Counts a fallback of a socket that never started the handshake.
    void countFallback(Side role, uint32_t reason, uint32_t peerReason, bool error);

    // ---- data path (callers hold the lock) ------------------------------------
    // engine_tx.cpp: sends what the window allows and any owed CDC; queues
    // for a send slot when none is free.
    void flushLocked(Connection& conn);
    // engine_rx.cpp: recv() copies out (and consumes unless peek),
    // announcing the window if due.
    uint32_t readLocked(Connection& conn, uint8_t* out, uint32_t len, bool peek);

    // ---- push decisions (engine_push.cpp, rules in cork_policy.h) -------------
    // send(): copies up to len bytes (large copies with the engine unlocked
    // while the socket is owned), then corks or pushes. Returns bytes taken.
    uint32_t sendCopyLocked(std::unique_lock<std::mutex>& lock, Connection& conn, const uint8_t* data, uint32_t len,
                            const SendHints& hints);
    // After sendCopyLocked: a send whose push found no free send slot waits
    // for one (bounded by deadlineNs), as the kernel's sendmsg does.
    void waitSendSlotLocked(std::unique_lock<std::mutex>& lock, Connection& conn, uint64_t deadlineNs);
    // Pushes unsent data and any owed CDC, or leaves it to the owner (tx deferral).
    void pushLocked(Connection& conn, PushOrigin origin);
    // An application thread enters / leaves the socket; leaving runs a deferred push.
    void enterOwnerLocked(Connection& conn);
    void leaveOwnerLocked(Connection& conn);
    // The owner runs a push a completion left to it (also while it spins).
    void runDeferredPushLocked(Connection& conn);
    void setNoDelayLocked(Connection& conn, bool tcpCork);
    void setCorkLocked(Connection& conn, bool enabled);
    // shutdown/close: whatever is corked goes now.
    void pushAllLocked(Connection& conn);
    void applyCloseLocked(Connection& conn, const CloseActions& actions);
    // Keeps a closed connection alive until the peer's close arrives.
    void retainClosingLocked(const std::shared_ptr<Connection>& conn) { m_closingConns.push_back(conn); }
    // The socket is done with the connection: release once fully closed.
    void maybeReleaseLocked(Connection& conn);
    // Waits, at most until deadlineNs, until every connection the
    // application closed has handed its peer all it owes (its last bytes and
    // its closing CDC, completed on the wire): for a process about to exit.
    // True when nothing is left.
    bool flushClosedLocked(std::unique_lock<std::mutex>& lock, uint64_t deadlineNs);

    // ---- link groups (engine_lgr.cpp; callers hold the lock) -----------------
    // Whether the peer hears of the end (a DELETE_LINK over a link that still
    // works) or not (the link is lost, or the peer never knew of the group).
    enum class PeerNotice : uint8_t { invalid = 0, deleteLink, none };
    void terminateLinkGroupLocked(const std::shared_ptr<LinkGroup>& lgr, wire::DeleteLinkReason reason,
                                  PeerNotice notice);

    // ---- fork hand-over (engine_fork.cpp) --------------------------------------
    // Before fork(): an engine with connections the application holds open
    // is parked: its background thread ends and its lock is held until
    // afterFork(). Neither process runs it then until one of them claims
    // it (the first to use one of its connections, engine.h); the other
    // process's copy stays parked for good. True when it parked.
    bool parkForFork();
    void afterFork();
    bool claim(int pid);
    // In a process that will never run this parked copy (another one does,
    // or will): its fds and mappings go, nothing shared changes; the
    // object stays, inert (Engine::discard).
    void discard();
    bool discarded() const { return m_runPid.load(std::memory_order_acquire) < 0; }
    bool runsIn(int pid) const { return m_runPid.load(std::memory_order_acquire) == pid; }
    bool parked() const { return m_runPid.load(std::memory_order_acquire) == 0; }

    const wire::PeerId& systemId() const { return m_systemId; }
    const fabric::PortInfo& port() const { return m_port; }

    // The QP of the link that carries the connections (primary) or of the
    // added one (standby) in every live link group (engine_links.cpp), for
    // the lab hooks that arm sim faults on them (lab_hooks.h).
    enum class LinkSelect : uint8_t { primary = 0, standby };
    std::vector<fabric::QueuePair*> linkQpsLocked(LinkSelect which) const;
    // The fabric device, for backend-specific controls (lab_hooks.h; tests
    // arm sim faults through fabric::sim::simControl(device()) while holding
    // mutex()).
    fabric::Device& device() { return *m_device; }

private:
    // The handshake drivers (handshake_client.cpp, handshake_server.cpp):
    // one handshake's state and steps over the link groups and connections.
    friend class ClientHandshakeDriver;
    friend class ServerHandshakeDriver;
    // Both roles' last handshake step (handshake_io.cpp): the connection
    // watches its TCP socket for the peer's death, the CDCs that came before
    // its core are processed, a reused link group is counted.
    void establishLocked(LinkGroup& lgr, Connection& conn, int fd, bool newLgr);

    EngineImpl() = default;
    Status init();
    Status initForkOwner();  // engine_fork.cpp
    void releaseForkOwner();

    // engine_lgr.cpp
    Result<std::shared_ptr<LinkGroup>> createLinkGroupLocked(Side role, const PeerKey& peer);
    // A link on `port` (link.h), the first of a group or one added by
    // ADD_LINK; its QP is mapped to lgr for the completions.
    Result<std::unique_ptr<Link>> makeLinkLocked(const std::shared_ptr<LinkGroup>& lgr, const fabric::PortInfo& port,
                                                 uint8_t linkId, uint32_t sendSlots, uint32_t recvWr);
    std::shared_ptr<LinkGroup> findLinkGroupLocked(Side role, const PeerKey& peer, uint32_t peerQpn, bool anyQpn);
    Result<std::shared_ptr<Connection>> addConnectionLocked(const std::shared_ptr<LinkGroup>& lgr);
    void dropConnectionLocked(Connection& conn);
    void lingerCheckLocked(uint64_t nowMs);
    // An LLC message on `link` of lgr, either link: posted or queued for a
    // slot (Link::postLlc); refused once the group is terminated. kind: an
    // ANNOUNCE_CREDITS may use the credit kept back for it (credits.h).
    Status postLlcLocked(LinkGroup& lgr, Link& link, const wire::LlcBytes& bytes,
                         CreditSendKind kind = CreditSendKind::message);
    // The same on the link that carries the connections.
    Status postLlcLocked(LinkGroup& lgr, const wire::LlcBytes& bytes) {
        return postLlcLocked(lgr, lgr.primary(), bytes);
    }

    // engine_receive.cpp: one receive path for every link (RxRules, rx_flow.h).
    void onRecvCompletionLocked(const fabric::WorkCompletion& wc);
    // A successful receive of `link`: refilled, decoded, handed on.
    void receiveLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link, const RxRules& rules,
                       const fabric::WorkCompletion& wc);
    // An LLC message that `link` brought: its own (TEST_LINK, ANNOUNCE_CREDITS,
    // an added link's CONFIRM_LINK) or the group's.
    void onLlcLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link, const RxRules& rules, const uint8_t* bytes);

    // engine_rx.cpp
    void onSendCompletionLocked(const fabric::WorkCompletion& wc);
    // A decoded CDC for the connection its token names, whichever link brought it.
    void onCdcLocked(LinkGroup& lgr, const CdcInfo& cdc);
    // The handshake made conn.core: process CDCs that came before it.
    void replayEarlyCdcsLocked(LinkGroup& lgr, Connection& conn);
    // A send slot or credit of `link` came free: its queued LLC messages,
    // the failover validations (primary), its waiting connections, then
    // owed credits (either link).
    void serviceSlotWaitersLocked(LinkGroup& lgr, Link& link);

    // engine_tx.cpp
    bool postCdcLocked(Connection& conn, const CdcInfo& cdc, const TxPlan* plan);
    // The connection's next CDC must wait for `link`'s slot or credit: it
    // queues on the link, and the next completion or credit pushes it.
    void queueForSendLocked(Connection& conn, Link& link, Link::CdcWait wait);

    // engine_credits.cpp: RQ credits (lab.rq_credits) and the RX backlog
    // (lab.rx_backlog), receive refill order, RNR counters.
    // The receive WQEs a link offers as credits (CLC byte 51, ADD_LINK byte 36; 0: off).
    uint8_t creditOfferLocked(const Link& link) const;
    // Reposts receive `slot` of either link; false when the link failed
    // over or the group ended meanwhile (the message is then not handled).
    bool refillRecvLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link, uint32_t slot);
    // CDC byte 26 for the link the CDC came over; true when it granted credits.
    bool takeCdcCreditsLocked(Link& link, uint8_t credits);
    void onAnnounceCreditsLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link,
                                 const wire::LlcAnnounceCredits& msg);
    void announceCreditsLocked(LinkGroup& lgr, Link& link);
    void afterRecvBatchLocked();  // drains backlogs, announces due credits
    // CDCs waiting for the receive path (lab.rx_backlog, lab.rx_repost_delay_us).
    bool runRxQueueLocked(const std::shared_ptr<LinkGroup>& lgr, uint64_t nowNs);
    bool serviceRxQueuesLocked();        // the due ones of every group, on each progress
    uint64_t nextRxDueNsLocked() const;  // the first due time, 0: none waits
    void addFlowStatsLocked(EngineStats& out);

    // engine_push.cpp
    void corkTimersLocked(uint64_t nowMs);
    uint64_t nextCorkDeadlineMsLocked();
    void kickBackgroundLocked();
    // engine_cq.cpp: drain and arm the CQs per lab.cq_mode; true if anything was processed.
    bool serviceCqsLocked(bool armSend = true);
    // engine_wake.cpp: whether a send completion would move something nobody
    // sleeps for on the send CQ itself (queued CDCs/LLCs, autocorked data).
    bool sendCompletionAwaitedLocked() const;
    // engine_wake.cpp: a fabric whose work runs only inside our calls (the
    // sim) runs this process's delayed WRs then; when the next is due within
    // kFabricDueSpinNs, waits for it unlocked (cheaper than a sleep and a
    // wake-up) and returns true (poll now); false when nothing is due that
    // soon, it was waited for already or this sleep decision's spin budget
    // is spent.
    struct DueSpin {
        uint64_t lastDueNs = 0;  // each due time is waited for once
        uint64_t spentNs = 0;    // spun since the last sleep
    };
    bool spinToFabricDueLocked(std::unique_lock<std::mutex>& lock, uint64_t deadlineNs, DueSpin& spin);

    // waitUntil's steps: busy-poll for lab.busy_poll_us, then drain and arm
    // the CQs (spinning for the fabric's near due work), then sleep on the
    // channel. Each says whether the condition holds, to go round again, or
    // to sleep.
    enum class WaitStep { ready, again, sleep };
    struct Waiter {
        const std::function<bool()>& pred;
        uint64_t deadlineNs = 0;
        std::span<const int> extraFds;
        Connection* owner = nullptr;
        WaitFor waitFor = WaitFor::anyCompletion;
        uint64_t spinUntilNs = 0;  // busy polling ends here
        int eventFd = -1;          // this thread's eventfd (wakeSleepersLocked)
        DueSpin dueSpin;           // the fabric's near due work, waited for instead of slept on
    };
    WaitStep busyPollStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w);
    WaitStep armStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w);
    // Sleeps until the channel, the eventfd, an extra fd or the next due
    // time; true when the condition holds afterwards.
    bool sleepStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w, uint64_t now);
    // The sleep of a waiter that watches fds too: ppoll over the channel's
    // fds, its eventfd and the extra fds.
    void sleepOnFdsLocked(std::unique_lock<std::mutex>& lock, Waiter& w, uint64_t wakeNs, uint64_t now);
    // True when it waited for the fabric's near due work and polled; *ready: the condition then held.
    bool spinToDueStepLocked(std::unique_lock<std::mutex>& lock, Waiter& w, bool* ready);

    // engine_links.cpp: the second link (ADD_LINK), failover, CONFIRM_RKEY/DELETE_RKEY.
    void startAddLinkLocked(const std::shared_ptr<LinkGroup>& lgr);  // server: first link confirmed
    // An LLC message the multi-link code owns; false: LinkCore handles it.
    bool onMultiLinkLlcLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcMessage& msg);
    // Carries out what the ADD_LINK flow decided (add_link_flow.h).
    void applyAddLinkLocked(LinkGroup& lgr, const AddLinkActions& a);
    // The timer duty of either link (LinkCore::poll): a TEST_LINK when idle
    // is sent over it; the caller acts on a link that went down.
    LinkActions pollLinkLocked(LinkGroup& lgr, Link& link, uint64_t nowMs);
    // `link` failed (error completion, failed post, watchdog, TEST_LINK):
    // the primary fails over or ends the group, the added link is dropped.
    void linkLostLocked(const std::shared_ptr<LinkGroup>& lgr, Link& link);
    // The primary link failed: fail over (true) or leave it to the caller to
    // terminate the group (false).
    bool primaryLinkLostLocked(const std::shared_ptr<LinkGroup>& lgr, wire::DeleteLinkReason reason);
    void multiLinkTimersLocked(uint64_t nowMs);
    uint64_t multiLinkDeadlineMs() const;
    // Moves the connections to the standby; announce (a DELETE_LINK request
    // or response) goes over the survivor first.
    void failoverLocked(const std::shared_ptr<LinkGroup>& lgr, const wire::LlcDeleteLink* announce);
    void serviceValidationsLocked(LinkGroup& lgr);  // failover CDCs that waited for a slot
    void announceRmbLocked(LinkGroup& lgr, Connection& conn);
    void withdrawRmbLocked(LinkGroup& lgr, Connection& conn);
    void dropStandbyLocked(LinkGroup& lgr);
    // engine_retired_link.cpp: a lost link is kept as the group's retired
    // link so that CDCs it received before it went down are still handled
    // when their completions come after the switch (by receiveLocked with
    // RxRules::retired()); everything else of it is ignored.
    void retireLinkLocked(LinkGroup& lgr, std::unique_ptr<Link> link);
    void freeRetiredLinkLocked(LinkGroup& lgr);
    void addLinkStatsLocked(EngineStats& out) const;
    // The standby link failed: its connections move to the primary, it is
    // dropped and the peer hears of it over the primary.
    void standbyLinkLostLocked(LinkGroup& lgr);
    void moveConnsOffStandbyLocked(LinkGroup& lgr);
    // Balancing: a new connection's link (the one with fewer connections),
    // and the switch of a connection assigned to the added link.
    void assignLinkLocked(LinkGroup& lgr, Connection& conn);
    void switchToStandbyLocked(Connection& conn);

    // engine_watchdog.cpp: lab.tx_completion_timeout_ms, the send-completion
    // watchdog of every link (tx_watchdog.h); run by the timers.
    void txWatchdogLocked(uint64_t nowMs);
    uint64_t txWatchdogDeadlineMsLocked(uint64_t nowMs) const;
    // The background thread is about to sleep timeoutMs: whether the first
    // send posted meanwhile must wake it to start a watchdog clock.
    void noteBackgroundSleepLocked(uint64_t nowMs, int timeoutMs);
    // A send was posted on a link with `slotsUsed` slots now in use.
    void watchdogOnPostLocked(uint32_t slotsUsed) {
        if (slotsUsed == 1 && m_bgWatchdogIdle) {
            m_bgWatchdogIdle = false;
            kickBackgroundLocked();
        }
    }

    // engine_impl.cpp: background thread, hang-up monitor, timers
    void backgroundLoop();
    // Its sleep: until the first timer (ms), then whether it watches the
    // channel (not while application or foreign threads wait, nor for
    // kChannelGraceMs after), which may cut the sleep (the fabric's due
    // time, the grace's end); then what woke it (an epoll tag).
    int backgroundTimeoutMsLocked(uint64_t nowMs);
    void backgroundChannelLocked(uint64_t nowMs, int& timeoutMs);
    void onBackgroundEventLocked(uint64_t tag);
    void watchTcpLocked(Connection& conn);
    void unwatchTcpLocked(Connection& conn);
    void timersLocked(uint64_t nowMs);
    // The sleep of a thread about to block: until deadlineNs (0 = none) or
    // the fabric's next due time, whichever is first; 0 = no bound.
    uint64_t sleepUntilNsLocked(uint64_t deadlineNs);
    // The device's next due time when its timed work runs only inside our
    // calls (Device::progressModel ownerCalls: the sim); 0 = none, always on
    // hardware, which is not asked (no call on the waiting path).
    uint64_t fabricDueNsLocked() { return m_fabricRunsInCalls ? m_device->nextDueNs() : 0; }
    // flushClosedLocked's condition: no closed connection owes its peer anything.
    bool closedConnectionsFlushedLocked() const;
    // Tells the device when our earliest sleeper on the channel wakes by
    // itself, after every change of the sleepers (engine_wake.cpp).
    void publishOwnerWakeLocked();

    Settings m_settings;
    EngineStats m_stats;
    std::mutex m_mutex;

    std::unique_ptr<fabric::Device> m_device;
    // Its timed work runs only inside our calls (the sim): a sleep is
    // bounded by its next due time (fabricDueNsLocked).
    bool m_fabricRunsInCalls = false;
    std::unique_ptr<fabric::ProtectionDomain> m_pd;
    std::unique_ptr<fabric::CompletionChannel> m_channel;
    std::unique_ptr<fabric::CompletionQueue> m_sendCq;
    std::unique_ptr<fabric::CompletionQueue> m_recvCq;
    fabric::PortInfo m_port;
    wire::PeerId m_systemId{};

    std::vector<std::shared_ptr<LinkGroup>> m_linkGroups;
    std::map<uint32_t, std::weak_ptr<LinkGroup>> m_lgrByQpn;
    uint64_t m_nextLgrId = 1;
    uint64_t m_nextConnId = 1;
    std::map<uint64_t, std::weak_ptr<Connection>> m_connById;
    std::vector<std::shared_ptr<Connection>> m_closingConns;  // app closed, peer not yet

    // Kernel smc_client_lgr_pending / smc_server_lgr_pending: link-group
    // creation is serialized per role so two handshakes agree on reuse.
    std::mutex m_clientLgrPending;
    std::mutex m_serverLgrPending;

    // Waiting.
    struct Sleeper {
        int eventFd = -1;
        uint64_t wakeNs = 0;  // when its sleep times out by itself; 0 = never
        bool onWord = false;  // asleep on the channel's word, not on its eventfd
    };
    std::vector<Sleeper> m_sleepers;
    uint64_t m_bgChannelWakeNs = 0;                           // the background thread asleep on the channel until then
    uint64_t m_ownerWakeNs = fabric::Device::kNoWakePromise;  // as last told the device
    struct PersistentWatcher {
        int fd = -1;
        bool armed = true;  // written at the next wake, then disarmed until re-armed
    };
    std::vector<PersistentWatcher> m_watchers;
    uint64_t m_changeGen = 0;  // wakeSleepersLocked() calls
    uint32_t m_appWaiters = 0;
    uint64_t m_lastWaiterExitMs = 0;  // the channel's grace period (engine_impl.cpp)
    uint64_t m_lastAppPollMs = 0;     // and a Poller's last wait that found work
    uint32_t m_foreignWaiters = 0;    // foreignWaitBeginLocked() not yet ended
    // The background thread sleeps without a check-back timer while only
    // foreign waiters wait: the last of them to leave kicks it.
    bool m_bgAwaitsForeignExit = false;
    // A sleeper woke on the channel and left its event there (sleepStepLocked):
    // the next arm takes it first (armLocked), or the readable channel would
    // wake whoever sleeps on it next at once.
    bool m_channelEventLeft = false;

    // Background thread.
    std::thread m_background;
    int m_bgEventFd = -1;
    int m_bgEpollFd = -1;
    bool m_bgChannelWatched = false;
    bool m_bgWatchdogIdle = false;  // asleep past any watchdog timeout with no clock running
    bool m_stopping = false;
    bool m_parking = false;  // the background thread ends for a fork (engine_fork.cpp)

    // Fork hand-over (engine_fork.cpp). The process that runs this copy of
    // the engine (0: parked), and the word that parent and children share
    // (MAP_SHARED): park generation << 32 | the claimant's pid. -1: discarded.
    void startBackgroundLocked();
    std::atomic<int> m_runPid{0};
    int m_parkerPid = 0;
    uint32_t m_parkGen = 0;
    bool m_deviceHeldForFork = false;  // parkForFork holds the device's locks until afterFork
    std::atomic<uint64_t>* m_forkOwner = nullptr;
};

}  // namespace smcr::core
