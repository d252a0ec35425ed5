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

    // The CDC to post after the plan's RDMA WRITEs; marks them sent and the
    // consumer cursor announced. Close flags set earlier stay set in every
    // later CDC, as the kernel keeps them in its local tx control block.
    CdcInfo buildDataCdc(const TxPlan& plan);
    // A CDC with no new data: a window update and/or close flags.
    CdcInfo buildControlCdc(const CloseActions& flags = {});
    // Close flags for this and every later CDC (sticky, like the kernel's
    // local tx control block).
    void addCloseFlags(const CloseActions& flags);

    uint16_t lastSentSeqno() const { return m_txSeqno; }
    uint16_t lastRxSeqno() const { return m_rxSeqno; }
    // The link under this connection failed and another takes over
    // (link_failover.cpp): rewinds the send side to the last confirmed
    // cursor and returns the failover-validation CDC to post first.
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
};

}  // namespace smcr::core
