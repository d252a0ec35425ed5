// One SMC-R connection's protocol state, without I/O: the send and receive
// halves, the CDC sequence numbers and the close machine. The shell owns one
// per socket and calls it under the connection's lock.
#pragma once

#include <cstdint>

#include "core/connection/cdc_info.h"
#include "core/connection/close_machine.h"
#include "core/connection/conn_rx.h"
#include "core/connection/conn_tx.h"

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
    bool userCorked = false;   // TCP_CORK / MSG_MORE hold the data (a window update still goes)
    bool linkCanPost = false;  // the sending link has a free send slot and an RQ credit
};

class ConnectionCore {
public:
    explicit ConnectionCore(const ConnectionParams& params);

    const ConnectionParams& params() const { return m_params; }
    ConnTx& tx() { return m_tx; }
    const ConnTx& tx() const { return m_tx; }
    ConnRx& rx() { return m_rx; }
    const ConnRx& rx() const { return m_rx; }
    CloseMachine& closer() { return m_close; }
    const CloseMachine& closer() const { return m_close; }

    // A CDC for this connection arrived (the shell found us by its token).
    // Stale sequence numbers (16-bit serial compare, RFC 7609 4.4; the
    // kernel's smc_cdc_before) are dropped unless failover validation is set.
    CdcRxResult onCdc(const CdcInfo& cdc);

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
    // The reader consumed enough (or the peer asked) that the window is
    // announced: owes a CDC and returns true (window_policy.h).
    bool oweWindowUpdateIfDue(WindowUpdateLimit limit);

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
};

}  // namespace smcr::core
