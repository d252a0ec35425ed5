// One SMC-R connection's protocol state, without I/O: the send and receive
// halves, the CDC sequence numbers, the push and cork state and the close
// machine. The shell owns one per socket and calls it under the engine's
// lock. It is a machine like LinkCore: events in (the application wrote or
// read bytes, a CDC arrived, a CDC's send completed, a cork was cleared, a
// timer fired, an application thread entered or left the socket), and what
// the shell must do out (push: post what nextCdc returns; wake the threads
// that wait; arm the cork timer). The shell copies bytes, posts, sleeps and
// wakes; what goes when, and why, is decided here.
#pragma once

#include <cstdint>

#include <smcr/stats.h>

#include "core/connection/cdc_info.h"
#include "core/connection/close_machine.h"
#include "core/connection/conn_rx.h"
#include "core/connection/conn_tx.h"
#include "core/connection/cork_policy.h"

namespace smcr::core {

struct ConnectionParams {
    uint32_t localToken = 0;  // our RMBE alert token (peer puts it in its CDCs)
    uint32_t peerToken = 0;   // the peer's token (we put it in ours)
    uint32_t sndbufBytes = 0;
    uint32_t rmbeBytes = 0;      // our RMBE
    uint32_t peerRmbeBytes = 0;  // the peer's RMBE
};

enum class CdcVerdict : uint8_t {
    accepted = 0,
    staleSeqno,
    wrongToken,
    protocolViolation,
    failoverChecked,  // a failover-validation CDC that found nothing lost (link_failover.h)
    failoverLost,     // a failover-validation CDC names a seqno never seen: CDCs were lost
};

struct CdcRxResult {
    CdcVerdict verdict = CdcVerdict::accepted;
    uint32_t newBytes = 0;        // became readable
    uint32_t freedPeerBytes = 0;  // the peer consumed this much of what we wrote
    CloseActions close;           // from the connection state flags
    // Freed peer space lets unsent data go, or a window update became due
    // (asked for by the peer or by our reader's progress): push.
    bool push = false;
};

// What the send side posts next (ConnectionCore::nextCdc).
enum class CdcStepKind : uint8_t {
    none = 0,  // nothing to send
    blocked,   // a CDC is due but the link has no send slot or RQ credit: wait for one
    data,      // the plan's RDMA WRITEs, then the CDC
    control,   // a CDC alone: a window update and/or close flags
};

struct CdcStep {
    CdcStepKind kind = CdcStepKind::none;
    CdcInfo cdc;                // data, control: the CDC to post
    TxPlan plan;                // data: the RDMA WRITEs that go before it
    bool peerFull = false;      // unsent data that the peer's RMBE has no room for (bufFullPeer)
    bool windowUpdate = false;  // control without close flags: only the cursors
};

// What the shell knows when it asks for the next CDC.
struct CdcSendInput {
    bool linkCanPost = false;  // the sending link has a free send slot and an RQ credit
};

// The application's send copied bytes into the sndbuf (onAppSend), with
// the settings that decide whether they go now.
struct AppSendEvent {
    uint32_t committedBytes = 0;   // copied into the space reserve() gave
    SendHints hints;               // MSG_MORE, TCP_CORK, a non-last sendfile piece
    uint64_t autocorkingSize = 0;  // autocorking_size; 0 = off
    uint64_t corkTimerMs = 0;      // lab.cork_timer_ms; 0 = the 2022 cork without a timer
    uint64_t nowMs = 0;            // read only when a cork timer may be armed
};

struct AppSendActions {
    SendDecision decision = SendDecision::invalid;
    bool push = false;       // push now (pushLocked with PushOrigin::app)
    bool kickTimer = false;  // a cork deadline was armed: the timer thread must look
};

// Clearing TCP_CORK (onCorkCleared).
enum class UncorkAction : uint8_t {
    none = 0,  // nothing held
    push,      // push now (seed 002 patch 1)
    timer,     // the old way: the timer thread pushes at once (corkDeadlineMs is now)
};

class ConnectionCore {
public:
    explicit ConnectionCore(const ConnectionParams& params);

    const ConnectionParams& params() const { return m_params; }
    // The rings as the shell reads them (where to copy; readiness). They
    // change only through the events below.
    const ConnTx& tx() const { return m_tx; }
    const ConnRx& rx() const { return m_rx; }
    CloseMachine& closer() { return m_close; }
    const CloseMachine& closer() const { return m_close; }
    // The counters of what this machine decided (pushes, corks, window
    // updates, a full peer RMBE); the shell adds its own I/O counters.
    const ConnectionStats& counters() const { return m_counters; }

    // ---- events: the peer ----------------------------------------------------
    // A CDC for this connection arrived (the shell found us by its token).
    // Stale sequence numbers (16-bit serial compare, RFC 7609 4.4; the
    // kernel's smc_cdc_before) are dropped unless failover validation is set.
    // An accepted CDC owes a window update when `limit` says one is due.
    CdcRxResult onCdc(const CdcInfo& cdc, WindowUpdateLimit limit = WindowUpdateLimit::max);
    // The send completion of our oldest outstanding CDC: its bytes leave the
    // sndbuf (space for writers). True: push the autocorked data it held
    // (seed 000 patch 2: the last outstanding CDC's completion pushes).
    bool onCdcSendComplete();

    // ---- events: the application ---------------------------------------------
    // The send copied e.committedBytes into the space tx().reserve() gave:
    // they are prepared, and autocorking or the user's cork holds them or
    // they go now (cork_policy.h).
    AppSendActions onAppSend(const AppSendEvent& e);
    // A recv has its data: ready, polled for, or slept for (ConnRx::onRecv).
    void onAppRecv(ConnRx::RecvWait wait) { m_rx.onRecv(wait); }
    // The reader copied `bytes` out of the RMBE (tx().readSpans): they are
    // consumed. True: a window update is due, push it now.
    bool onAppRead(uint32_t bytes, WindowUpdateLimit limit);
    // TCP_NODELAY was set: true when held bytes go now (seed 000 patch 4);
    // what TCP_CORK holds stays held, MSG_MORE's hold ends.
    bool onNoDelay(bool tcpCork);
    // TCP_CORK was cleared.
    UncorkAction onCorkCleared(bool timerMode, uint64_t nowMs);
    // shutdown/close: whatever is corked goes now (always push).
    void onFlushAll();
    // The cork timer's scan (lab.cork_timer_ms): true when this connection's
    // deadline passed and its held bytes go now.
    bool onCorkTimer(uint64_t nowMs);
    uint64_t corkDeadlineMs() const { return m_corkDeadlineMs; }
    bool userCorked() const { return m_userCorked; }
    // Unsent bytes that nothing holds but the peer's full RMBE: they go when
    // the peer's reader announces its window (a CDC), not before.
    bool waitsForPeerWindow() const { return !m_userCorked && m_tx.unsentBytes() > 0 && m_tx.peerSpaceBytes() == 0; }
    // Autocorked bytes wait for the completion of the last outstanding CDC.
    bool awaitsCdcCompletion() const { return !m_userCorked && m_tx.unsentBytes() > 0 && m_tx.pendingCdcCount() > 0; }

    // ---- the pusher (one at a time; tx deferral to the thread inside) ----------
    // An application thread enters or leaves the socket; the last to leave
    // runs a push deferred to it (true: push with PushOrigin::owner).
    void enterOwner() { ++m_owners; }
    bool leaveOwner();
    // A push deferred to the thread inside the socket, taken by that thread
    // (while it spins, or as it leaves): true when it must push now.
    bool takeDeferredPush();
    // A push from `origin` starts: false when there is nothing to send, the
    // push is deferred to the owner (tx deferral) or another push runs (it
    // goes round again). True: the shell flushes (nextCdc until none), then
    // asks pushAgain() whether to flush once more.
    bool startPush(PushOrigin origin, bool deferEnabled);
    bool pushAgain(PushOrigin origin);

    // The send side's one decision, events in and actions out (like
    // LinkCore::onLlc): whether data or an owed CDC goes next, and the CDC
    // built (sequence number taken, data marked sent, owed CDC cleared)
    // when the link can post it. The shell posts what it returns and asks
    // again after a data CDC: more may fit in the peer's window.
    CdcStep nextCdc(const CdcSendInput& in);
    // A CDC without data is owed (window update, close flags, a failover's
    // re-send); nextCdc sends it with the next data or alone.
    void oweCdc() { m_cdcOwed = true; }
    bool cdcOwed() const { return m_cdcOwed; }

    // The CDC to post after the plan's RDMA WRITEs; marks them sent and the
    // consumer cursor announced. Close flags set earlier stay set in every
    // later CDC, as the kernel keeps them in its local tx control block.
    CdcInfo buildDataCdc(const TxPlan& plan);
    // A CDC with no new data: a window update and/or close flags.
    CdcInfo buildControlCdc(const CloseActions& flags = {});
    // Close flags for this and every later CDC (sticky, like the kernel's
    // local tx control block); a CDC that carries them is owed.
    void addCloseFlags(const CloseActions& flags);

    uint16_t lastSentSeqno() const { return m_txSeqno; }
    uint16_t lastRxSeqno() const { return m_rxSeqno; }
    // The link under this connection failed and another takes over
    // (link_failover.cpp): rewinds the send side to the last confirmed
    // cursor and returns the failover-validation CDC to post first; the
    // unconfirmed bytes go again after it, with a CDC owed for a fresh
    // consumer cursor.
    CdcInfo beginFailover();

private:
    CdcInfo baseCdc();
    // The reader consumed enough (or the peer asked) that the window is
    // announced: owes a CDC and returns true (window_policy.h).
    bool oweWindowUpdateIfDue(WindowUpdateLimit limit);
    // A round of pushing data (not only an owed CDC) is counted by who runs it.
    void countPushRound(PushOrigin origin);

    ConnectionParams m_params;
    ConnTx m_tx;
    ConnRx m_rx;
    CloseMachine m_close;
    uint16_t m_txSeqno = 0;
    uint16_t m_rxSeqno = 0;
    bool m_haveRxSeqno = false;
    bool m_flagDoneWriting = false;
    bool m_flagClosed = false;
    bool m_flagAbnormal = false;
    bool m_cdcOwed = false;  // a window update or close flags must go out

    // Push and cork state (cork_policy.h).
    PushGate m_gate;
    uint32_t m_owners = 0;                   // application threads inside the socket (not waiting)
    bool m_deferred = false;                 // a push waits for the owner to leave
    bool m_userCorked = false;               // unsent data is held by TCP_CORK / MSG_MORE / a sendfile piece
    bool m_autocorked = false;               // unsent data is held by autocorking
    uint64_t m_corkDeadlineMs = UINT64_MAX;  // lab.cork_timer_ms: when the timer thread pushes
    ConnectionStats m_counters;
};

}  // namespace smcr::core
