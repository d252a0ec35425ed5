// The send side of the data path over the fabric: sndbuf copy, RDMA WRITEs
// into the peer RMBE, then the CDC SEND on the same QP (RC ordering makes the
// data visible before the CDC; smc-protocol.md section 3).
#include <cstring>

#include <smcr/wire/cdc.h>

#include "core/shell/engine_impl.h"
#include "core/shell/wr_id.h"

namespace smcr::core {

bool EngineImpl::postCdcLocked(Connection& conn, const CdcInfo& cdc, const TxPlan* plan) {
    // The link this connection sends on: the first link, or the added one
    // when the connection was balanced onto it (engine_links.cpp), and the
    // peer's RMB as that link knows it.
    Link& link = sendLinkOf(conn);
    const bool standby = !conn.lgr->isPrimary(link);
    const PeerRmb& peerRmb = standby ? conn.assignment.standbyRmb() : conn.assignment.primaryRmb;
    fabric::SendWr wrs[3];
    size_t count = 0;
    if (plan != nullptr) {
        for (uint8_t i = 0; i < plan->writeCount; ++i) {
            const RdmaWritePlan& w = plan->writes[i];
            fabric::SendWr& wr = wrs[count++];
            wr.wrId = makeWrId(WrKind::rdmaWrite, conn.localToken);
            wr.opcode = fabric::WrOpcode::rdmaWrite;
            wr.flags = fabric::SendFlags::none;  // unsignaled: covered by the CDC's completion
            wr.remoteAddr = peerRmb.vaddr + w.remoteOffset;
            wr.rkey = peerRmb.rkey;
            wr.numSge = w.source.count;
            for (uint8_t s = 0; s < w.source.count; ++s) {
                wr.sg[s] = {conn.sndbuf->address() + w.source.spans[s].offset, w.source.spans[s].lengthBytes,
                            conn.sndbuf->lkey()};
            }
        }
    }
    wire::CdcMessage msg = cdc;
    msg.credits = link.spendCdcCredit();  // one RQ credit spent, owed credits returned (byte 26)
    const wire::CdcBytes bytes = wire::encode(msg);
    fabric::SendWr& send = wrs[count++];
    send.wrId = makeWrId(WrKind::cdc, conn.localToken);
    send.opcode = fabric::WrOpcode::send;
    send.flags = fabric::SendFlags::signaled | fabric::SendFlags::solicited;
    link.attachMessage(send, bytes.data());
    if (Status s = link.qp->postSend(std::span<const fabric::SendWr>(wrs, count)); !s) {
        // The link cannot take work. Its QP goes to ERR: the flushed WRs come
        // back as error completions behind everything that already completed,
        // and those move the connections to a second link (this CDC's bytes
        // are re-sent by the failover, engine_links.cpp) or end the group.
        if (link.qp->setError()) return false;
        const std::shared_ptr<LinkGroup> group = conn.lgr;
        linkLostLocked(group, link);
        return false;
    }
    ++link.sendSlotsUsed;
    watchdogOnPostLocked(link.sendSlotsUsed);  // engine_watchdog.cpp
    if (standby) ++m_stats.cdcSecondLink;
    ++conn.stats.cdcSent;
    if (plan != nullptr) {
        conn.stats.rdmaWrites += plan->writeCount;
        conn.stats.txBytes += plan->bytes;
    }
    return true;
}

void EngineImpl::flushLocked(Connection& conn) {
    if (conn.released || !conn.core || !conn.lgr || conn.lgr->terminated || conn.queuedForSlot) return;
    // A connection balanced onto the added link switches once it may (engine_links.cpp).
    if (conn.assignment.switchPending()) switchToStandbyLocked(conn);
    // The connection core decides what goes (data, window update, close
    // flags, TCP_CORK's hold: ConnectionCore::nextCdc); the link says
    // whether it can go now.
    for (;;) {
        Link& link = sendLinkOf(conn);
        const Link::CdcWait wait = link.cdcWait();
        const CdcStep step = conn.core->nextCdc({.linkCanPost = wait == Link::CdcWait::none});
        switch (step.kind) {
            case CdcStepKind::none:
                return;
            case CdcStepKind::blocked:
                queueForSendLocked(conn, link, wait);
                return;
            case CdcStepKind::control:
                (void)postCdcLocked(conn, step.cdc, nullptr);
                return;
            case CdcStepKind::data:
                if (!postCdcLocked(conn, step.cdc, &step.plan)) return;
                break;  // more may fit in the peer's window
        }
    }
}

void EngineImpl::queueForSendLocked(Connection& conn, Link& link, Link::CdcWait wait) {
    // The kernel waits for a free WR slot; here the connection queues and
    // the next send completion pushes it. Without an RQ credit it queues the
    // same way until the peer's credits arrive.
    conn.queuedForSlot = true;
    auto it = conn.lgr->conns.find(conn.localToken);
    link.slotWaiters.push_back(it != conn.lgr->conns.end() ? std::weak_ptr<Connection>(it->second)
                                                           : std::weak_ptr<Connection>());
    ++(wait == Link::CdcWait::credit ? m_stats.creditWaits : m_stats.sendSlotWaits);
}

void EngineImpl::applyCloseLocked(Connection& conn, const CloseActions& actions) {
    if (actions.sendDoneWriting || actions.sendConnClosed || actions.sendAbnormalClose) {
        conn.core->addCloseFlags(actions);  // owes the CDC that carries them
        flushLocked(conn);
    }
    if (actions.error != Errc::invalid) conn.error = actions.error;
    maybeReleaseLocked(conn);
    wakeSleepersLocked();
}

bool EngineImpl::closedConnectionsFlushedLocked() const {
    for (const std::shared_ptr<Connection>& conn : m_closingConns) {
        // A failed connection or a lost group owes nothing that can still go.
        if (conn->released || !conn->core || conn->error != Errc::invalid) continue;
        if (!conn->lgr || conn->lgr->terminated) continue;
        const auto& tx = conn->core->tx();
        if (tx.unsentBytes() > 0 || conn->core->cdcOwed() || conn->queuedForSlot || tx.pendingCdcCount() > 0) {
            return false;
        }
    }
    return true;
}

bool EngineImpl::flushClosedLocked(std::unique_lock<std::mutex>& lock, uint64_t deadlineNs) {
    // close() returns once the last bytes are written, like the kernel's;
    // the closing CDC may still wait for a send slot or an RQ credit, and
    // the sim runs a posted WR only inside its owner's calls. The kernel
    // sends all of it after the process is gone; a user-space engine goes
    // with the process, and the peer would see its TCP hang-up without the
    // close and reset the connection (kHangupGraceMs later).
    return waitUntil(
               lock, [&] { return closedConnectionsFlushedLocked(); }, deadlineNs)
        .ready;
}

void EngineImpl::maybeReleaseLocked(Connection& conn) {
    if (conn.released || !conn.appClosed || conn.copying) return;  // a sender still copies into the sndbuf
    const bool lgrGone = !conn.lgr || conn.lgr->terminated;
    if (!lgrGone) {
        if (!conn.core) return;
        if (!conn.core->closer().finished()) return;
        if (conn.core->cdcOwed() || conn.queuedForSlot || conn.core->tx().pendingCdcCount() > 0) return;
    }
    dropConnectionLocked(conn);
}

}  // namespace smcr::core
