#include "core/connection/connection_core.h"

#include "core/link/link_failover.h"

namespace smcr::core {

ConnectionCore::ConnectionCore(const ConnectionParams& params)
    : m_params(params), m_tx(params.sndbufBytes, params.peerRmbeBytes), m_rx(params.rmbeBytes) {}

CdcRxResult ConnectionCore::onCdc(const CdcInfo& cdc, WindowUpdateLimit limit) {
    CdcRxResult out;
    if (cdc.alertToken != m_params.localToken) {
        out.verdict = CdcVerdict::wrongToken;
        return out;
    }
    // A failover-validation CDC only checks that nothing was lost (kernel
    // smc_cdc_msg_validate); its cursors mean nothing.
    if (cdc.prodFlags.failoverValidation) {
        out.verdict = checkFailoverValidation(m_rxSeqno, cdc.seqno);
        return out;
    }
    if (m_haveRxSeqno && static_cast<int16_t>(static_cast<uint16_t>(cdc.seqno - m_rxSeqno)) < 0) {
        out.verdict = CdcVerdict::staleSeqno;
        return out;
    }
    m_rxSeqno = cdc.seqno;
    m_haveRxSeqno = true;

    const int64_t produced = m_rx.onProducer(cdc.producer);
    if (produced < 0) {
        out.verdict = CdcVerdict::protocolViolation;
        return out;
    }
    out.newBytes = static_cast<uint32_t>(produced);
    out.freedPeerBytes = m_tx.onPeerConsumer(cdc.consumer);
    m_rx.onPeerFlags(cdc.prodFlags.writeBlocked, cdc.prodFlags.consumerUpdateRequested);

    if (cdc.connFlags.peerAbnormalClose) {
        out.close = m_close.on(CloseEvent::peerAbnormalClose);
    } else if (cdc.connFlags.peerConnClosed) {
        out.close = m_close.on(CloseEvent::peerConnClosed);
    } else if (cdc.connFlags.peerDoneWriting) {
        out.close = m_close.on(CloseEvent::peerDoneWriting);
    }
    // Freed peer space lets queued data go; a requested or due window update
    // goes out with it (or alone).
    oweWindowUpdateIfDue(limit);
    out.push = (out.freedPeerBytes > 0 && m_tx.unsentBytes() > 0) || m_cdcOwed;
    return out;
}

CdcInfo ConnectionCore::baseCdc() {
    CdcInfo cdc;
    cdc.seqno = ++m_txSeqno;
    cdc.alertToken = m_params.peerToken;
    cdc.producer = m_tx.producerCursor();
    cdc.consumer = m_rx.consumerCursor();
    cdc.connFlags.peerDoneWriting = m_flagDoneWriting;
    cdc.connFlags.peerConnClosed = m_flagClosed;
    cdc.connFlags.peerAbnormalClose = m_flagAbnormal;
    m_rx.markAnnounced();
    return cdc;
}

CdcInfo ConnectionCore::buildDataCdc(const TxPlan& plan) {
    m_tx.markSent(plan);
    CdcInfo cdc = baseCdc();
    cdc.prodFlags.writeBlocked = plan.writeBlocked;
    return cdc;
}

CdcStep ConnectionCore::nextCdc(const CdcSendInput& in) {
    CdcStep step;
    // TCP_CORK / MSG_MORE hold the data; a window update or close flag still goes.
    if (!m_userCorked) step.plan = m_tx.plan();
    step.peerFull = !m_userCorked && step.plan.bytes == 0 && m_tx.unsentBytes() > 0;
    if (step.peerFull) ++m_counters.bufFullPeer;
    if (step.plan.bytes == 0 && !m_cdcOwed) return step;
    if (!in.linkCanPost) {
        step.kind = CdcStepKind::blocked;
        return step;
    }
    m_cdcOwed = false;  // whatever goes now carries the cursors and flags
    if (step.plan.bytes > 0) {
        step.kind = CdcStepKind::data;
        step.cdc = buildDataCdc(step.plan);
        return step;
    }
    step.kind = CdcStepKind::control;
    step.cdc = buildControlCdc();
    const wire::CdcConnStateFlags& f = step.cdc.connFlags;
    step.windowUpdate = !f.peerDoneWriting && !f.peerConnClosed && !f.peerAbnormalClose;
    if (step.windowUpdate) ++m_counters.windowUpdates;
    return step;
}

bool ConnectionCore::oweWindowUpdateIfDue(WindowUpdateLimit limit) {
    if (!m_rx.windowUpdateNeeded(limit)) return false;
    m_cdcOwed = true;
    return true;
}

void ConnectionCore::addCloseFlags(const CloseActions& flags) {
    if (flags.sendDoneWriting || flags.sendConnClosed || flags.sendAbnormalClose) m_cdcOwed = true;
    m_flagDoneWriting = m_flagDoneWriting || flags.sendDoneWriting;
    m_flagClosed = m_flagClosed || flags.sendConnClosed;
    m_flagAbnormal = m_flagAbnormal || flags.sendAbnormalClose;
}

CdcInfo ConnectionCore::buildControlCdc(const CloseActions& flags) {
    addCloseFlags(flags);
    m_tx.markControlSent();
    CdcInfo cdc = baseCdc();
    cdc.prodFlags.writeBlocked = m_tx.unsentBytes() > 0 && m_tx.peerSpaceBytes() == 0;
    return cdc;
}

}  // namespace smcr::core
