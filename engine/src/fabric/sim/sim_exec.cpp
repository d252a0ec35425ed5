// The requester's engine: executes a QP's send queue in order, driven from
// post and poll calls (manual progress). RDMA WRITE is a copy into the
// peer's mapped region; SEND takes the peer's oldest receive WQE, copies
// and publishes the receive completion. Both publish with release order
// after the data, so a SEND is never visible before an earlier WRITE.
#include <algorithm>
#include <cstring>

#include "dma_copy.h"
#include "sim_objects.h"

namespace smcr::fabric::sim {

namespace {

// Moves a QP's receive ring to flushed completions (exactly once per entry:
// owner and peer may race, the CAS on the head decides).
void flushRing(QpShared* qp, CqShared* cq, const ChannelWake& wake) {
    for (;;) {
        uint64_t head = qp->rqHead.load(std::memory_order_acquire);
        if (head == qp->rqTail.load(std::memory_order_acquire)) return;
        const RqEntry entry = rqEntries(qp)[head % qp->recvDepth];
        if (!qp->rqHead.compare_exchange_strong(head, head + 1, std::memory_order_acq_rel)) continue;
        if (cq == nullptr || cq->alive.load(std::memory_order_acquire) == 0) continue;
        Cqe cqe;
        cqe.wrId = entry.wrId;
        cqe.qpNum = qp->qpn;
        cqe.status = WcStatus::wrFlushErr;
        cqe.opcode = WcOpcode::recv;
        publishCqe(cq, wake, cqe);
    }
}

CaptureEndpoint endpoint(uint32_t instance, uint8_t port, uint32_t qpn) {
    CaptureEndpoint ep;
    ep.mac = simMac(instance, port);
    ep.ipv4 = 0x0a000000u | ((instance & 0xffffu) << 8) | port;
    ep.qpn = qpn;
    return ep;
}

}  // namespace

uint64_t SimQp::transportTimeoutNs() const {
    if (m_core->config.transportTimeoutMs != 0) return m_core->config.transportTimeoutMs * 1000000ull;
    if (m_attr.timeout == 0) return 0;  // wait forever
    return static_cast<uint64_t>((m_attr.retryCnt + 1) * ackTimeoutUs(m_attr.timeout) * 1000.0);
}

void SimQp::completeLocked(const PendingWr& w, WcStatus status) {
    if (status == WcStatus::success && !w.signaled) return;  // holds its slot until a later CQE is polled
    if (m_dropNextCompletion) {
        m_dropNextCompletion = false;
        return;
    }
    Cqe cqe;
    cqe.wrId = w.wr.wrId;
    cqe.sqSeq = w.seq;
    cqe.qpNum = m_qpn;
    cqe.byteLen = status == WcStatus::success ? w.bytes : 0;
    cqe.status = status;
    cqe.opcode = w.wr.opcode == WrOpcode::rdmaWrite ? WcOpcode::rdmaWrite : WcOpcode::send;
    cqe.flags = kCqeFromSq;
    m_sendCq->publish(cqe);
}

void SimQp::flushRqLocked() {
    flushRing(m_shared, m_recvCq->shared(), m_recvCq->wake());
}

void SimQp::enterErrorLocked() {
    m_shared->state.store(static_cast<uint32_t>(QpState::error), std::memory_order_release);
    m_attr.state = QpState::error;
    m_errorHandled = true;
    // Every outstanding WR completes, in order, with WR_FLUSH_ERR.
    for (uint64_t i = m_head; i < m_tail; ++i) completeLocked(at(i), WcStatus::wrFlushErr);
    m_head = m_exec = m_tail;
    flushRqLocked();
}

void SimQp::remoteErrorLocked(QpShared* peerQp, uint32_t peerInstance) {
    // The responder raises an async access error and goes to ERR; flushing
    // its receive queue here wakes a peer that sleeps on its channel.
    peerQp->state.store(static_cast<uint32_t>(QpState::error), std::memory_order_release);
    CqShared* cq = m_core->peers.cq(peerInstance, peerQp->recvCqId);
    flushRing(peerQp, cq, m_core->peers.wake(peerInstance, cq));
}

bool SimQp::checkLocal(const PendingWr& w, WcStatus* status) const {
    if (w.inlined) return true;
    for (uint32_t i = 0; i < w.wr.numSge; ++i) {
        const Sge& sge = w.wr.sg[i];
        const LocalRegion* region = m_core->findRegion(sge.lkey);
        const auto base = region != nullptr ? reinterpret_cast<uint64_t>(region->base) : 0;
        if (region == nullptr || region->pdId != m_pdId || sge.addr < base ||
            sge.addr - base + sge.length > region->length) {
            *status = WcStatus::locProtErr;
            return false;
        }
    }
    return true;
}

void SimQp::copyPayload(const PendingWr& w, uint8_t* dst) {
    if (w.inlined) {
        std::memcpy(dst, w.inlineData.data(), w.bytes);
        return;
    }
    for (uint32_t i = 0; i < w.wr.numSge; ++i) {
        dmaCopy(dst, reinterpret_cast<const uint8_t*>(w.wr.sg[i].addr), w.wr.sg[i].length);  // dma_copy.h
        dst += w.wr.sg[i].length;
    }
}

void SimQp::scatterPayload(const PendingWr& w, std::span<const std::span<uint8_t>> pieces) {
    // Source pieces: the inline copy, or the local SGEs.
    const uint8_t* src = w.inlined ? w.inlineData.data() : nullptr;
    uint64_t srcLeft = w.inlined ? w.bytes : 0;
    uint32_t srcIndex = 0;
    for (std::span<uint8_t> piece : pieces) {
        size_t done = 0;
        while (done < piece.size()) {
            while (srcLeft == 0) {
                if (w.inlined || srcIndex >= w.wr.numSge) return;
                src = reinterpret_cast<const uint8_t*>(w.wr.sg[srcIndex].addr);
                srcLeft = w.wr.sg[srcIndex].length;
                ++srcIndex;
            }
            const size_t n = std::min<uint64_t>(srcLeft, piece.size() - done);
            std::memcpy(piece.data() + done, src, n);
            done += n;
            src += n;
            srcLeft -= n;
        }
    }
}

namespace {

// Asks for a line in exclusive state, ready to be written (AMD since K8,
// Intel since Broadwell; a no-op hint elsewhere). GCC emits it for
// __builtin_prefetch(p, 1) only with -mprfchw, which the generic x86-64
// target lacks, and a read prefetch would leave the store its own miss.
inline void prefetchForWrite(const void* line) {
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*static_cast<const char*>(line)));
#else
    __builtin_prefetch(line, 1);
#endif
}

}  // namespace

void SimQp::prefetchNextSend(QpShared* peerQp, uint64_t head) {
    // A SEND reads the receive WQE and writes the receive buffer, lines the
    // responder wrote or read last; fetched when the SEND runs they cost a
    // cross-CPU transfer each on its critical path. The responder leaves
    // the next posted WQE and its buffer alone until a SEND consumes them,
    // so fetching them now, while the peer is busy with this message, takes
    // them off the next one's path. Hints only: a prefetch never faults and
    // the SEND validates everything when it runs.
    if (head >= m_peerRqTailSeen) return;  // nothing posted yet that we know of
    const RqEntry& next = rqEntries(peerQp)[head % peerQp->recvDepth];
    __builtin_prefetch(&next, 0);
    if (next.numSge == 0 || next.sg[0].mrKey == 0) return;
    MrShared* region = peerRegion(next.sg[0].mrKey);
    if (region == nullptr || next.sg[0].offset >= region->length) return;
    const uint8_t* dst = reinterpret_cast<const uint8_t*>(region) + kMrHeaderBytes + next.sg[0].offset;
    const uint64_t span = std::min<uint64_t>({next.sg[0].length, region->length - next.sg[0].offset, 256});
    for (uint64_t at = 0; at < span; at += 64) prefetchForWrite(dst + at);
}

bool SimQp::resolvePeer() {
    if (m_peerQp == nullptr) {
        const auto address = decodeSimGid(m_attr.remoteGid);
        if (!address || m_attr.remoteMac != simMac(address->instance, address->port)) return false;
        m_peerInstance = address->instance;
        m_peerDev = m_core->peers.device(m_peerInstance);
        if (m_peerDev == nullptr) return false;
        m_peerQp = m_core->peers.qp(m_peerInstance, m_attr.remoteQpn);
        if (m_peerQp == nullptr) return false;
        m_peerProbeNs = 0;
        m_peerRecvCq = m_core->peers.cq(m_peerInstance, m_peerQp->recvCqId);
        m_peerWake = m_core->peers.wake(m_peerInstance, m_peerRecvCq);
        m_peerCqConsumerSeen = 0;
        m_peerRqTailSeen = 0;
    }
    // The liveness lock is probed at most once per millisecond (a syscall);
    // an orderly close is seen at once through the alive flag.
    if (!m_peerDead) {
        const uint64_t coarseNs = coarseNowNs();
        if (coarseNs - m_peerProbeNs >= 1000000) {
            m_peerProbeNs = coarseNs;
            m_peerDead = !m_core->peers.deviceAlive(m_peerInstance, coarseNs);
        }
    }
    return !m_deadPeer && !m_peerDead && m_peerDev->alive.load(std::memory_order_acquire) != 0;
}

MrShared* SimQp::peerRegion(uint32_t rkey) {
    if (rkey != m_lastRkey || m_lastRegion == nullptr) {
        m_lastRegion = m_core->peers.mr(m_peerInstance, rkey);
        m_lastRkey = rkey;
    }
    return m_lastRegion;
}

void SimQp::captureLocked(const PendingWr& w, uint32_t peerInstance, std::span<const uint8_t> payload) {
    const uint32_t mtu = std::min(mtuBytes(m_attr.pathMtu), mtuBytes(m_core->config.link.mtu));
    const uint32_t packets = packetCount(w.bytes, mtu);
    if (m_core->capture) {
        const auto peerPort = decodeSimGid(m_attr.remoteGid);
        const CaptureEndpoint src = endpoint(m_core->instance, m_attr.port, m_qpn);
        const CaptureEndpoint dst = endpoint(peerInstance, peerPort ? peerPort->port : 1, m_attr.remoteQpn);
        if (w.wr.opcode == WrOpcode::send) {
            m_core->capture->writeSend(src, dst, m_sendPsn, hasFlag(w.wr.flags, SendFlags::solicited), payload, mtu);
        } else {
            m_core->capture->writeRdmaWrite(src, dst, m_sendPsn, w.wr.remoteAddr, w.wr.rkey, payload, mtu);
        }
    }
    m_sendPsn = (m_sendPsn + packets) & kPsnMask;
}

SimQp::Outcome SimQp::executeWrite(PendingWr& w, QpShared* peerQp, uint32_t peerInstance, WcStatus* status) {
    auto& counters = m_core->shared->counters;
    if (!checkLocal(w, status)) return Outcome::error;
    uint8_t* dst = nullptr;
    if (w.bytes > 0) {
        // A zero-length write touches no memory and checks no rkey (IBA 9.4.3).
        MrShared* region = peerRegion(w.wr.rkey);
        const bool ok = region != nullptr && region->valid.load(std::memory_order_acquire) != 0 &&
                        (region->access.load() & static_cast<uint32_t>(Access::remoteWrite)) != 0 &&
                        (peerQp->accessFlags.load() & static_cast<uint32_t>(Access::remoteWrite)) != 0 &&
                        region->pdId == peerQp->pdId && w.wr.remoteAddr >= region->vaddr &&
                        w.wr.remoteAddr - region->vaddr + w.bytes <= region->length;
        if (!ok) {
            *status = WcStatus::remAccessErr;
            counters.remoteAccessErrors.fetch_add(1, std::memory_order_relaxed);
            remoteErrorLocked(peerQp, peerInstance);
            return Outcome::error;
        }
        dst = reinterpret_cast<uint8_t*>(region) + kMrHeaderBytes + (w.wr.remoteAddr - region->vaddr);
        // Everything this QP publishes later (a receive completion, the SEND
        // behind this WRITE) is a release store, which orders these bytes first.
        copyPayload(w, dst);
    }
    bumpOwned(counters.rdmaWrites);
    bumpOwned(counters.bytesWritten, w.bytes);
    captureLocked(w, peerInstance, std::span<const uint8_t>(dst, dst != nullptr ? w.bytes : 0));
    return Outcome::done;
}

SimQp::Outcome SimQp::executeSend(PendingWr& w, QpShared* peerQp, uint32_t peerInstance, LazyClock& clock,
                                  uint64_t* dueNs, WcStatus* status) {
    auto& counters = m_core->shared->counters;
    DeviceShared* peerDev = m_peerDev;
    if (!checkLocal(w, status)) return Outcome::error;

    RqEntry entry;  // the header and the SGEs in use, copied out of the peer's ring
    uint64_t consumedHead = 0;
    for (;;) {
        uint64_t head = peerQp->rqHead.load(std::memory_order_acquire);
        // The tail only grows: below the last one seen there is an entry
        // without reading the line the responder writes on every post.
        if (head >= m_peerRqTailSeen) m_peerRqTailSeen = peerQp->rqTail.load(std::memory_order_acquire);
        if (head == m_peerRqTailSeen) {
            // RNR NAK: the responder advertises its min_rnr_timer; retry after
            // it, rnr_retry times (7 = forever), then RNR_RETRY_EXC_ERR.
            if (peerDev != nullptr) peerDev->counters.rnrNaksSent.fetch_add(1, std::memory_order_relaxed);
            counters.rnrNaksReceived.fetch_add(1, std::memory_order_relaxed);
            if (m_attr.rnrRetry != 7) {
                if (w.rnrLeft == 0) {
                    *status = WcStatus::rnrRetryExcErr;
                    return Outcome::error;
                }
                --w.rnrLeft;
            }
            // The SEND runs here, at its arrival. The timer value travels in
            // the NAK's AETH, so the requester starts it only once the NAK
            // is back (rxe arms rnr_nak_timer in its completer, on the NAK
            // packet), and the retransmission travels out again: an RNR costs
            // min_rnr_timer plus one round trip before the responder sees the
            // SEND again, and the whole send queue behind it waits as long (RC
            // is in order; the responder drops what follows the NAKed PSN).
            // The table's value as such, as an RNIC honours it (the seed's
            // CX4); rxe rounds it up to a jiffy.
            const auto waitNs =
                static_cast<uint64_t>(rnrTimerMs(static_cast<uint8_t>(peerQp->minRnrTimer.load())) * 1e6);
            w.retryAtNs = clock.now() + waitNs + 2 * m_core->config.link.wireLatencyNs;
            *dueNs = w.retryAtNs;
            return Outcome::stall;
        }
        const RqEntry& posted = rqEntries(peerQp)[head % peerQp->recvDepth];
        entry.wrId = posted.wrId;
        entry.numSge = std::min(posted.numSge, kMaxSge);
        for (uint32_t i = 0; i < entry.numSge; ++i) entry.sg[i] = posted.sg[i];
        if (peerQp->rqHead.compare_exchange_strong(head, head + 1, std::memory_order_acq_rel)) {
            consumedHead = head + 1;
            break;
        }
    }
    CqShared* recvCq = m_peerRecvCq;
    SharedCounters* peerCounters = peerDev != nullptr ? &peerDev->counters : nullptr;
    // Claim the receive CQE before writing anything (see claimCqe); every
    // path below completes the claimed slot.
    uint64_t cqIndex = 0;
    const bool claimed = recvCq != nullptr && recvCq->alive.load(std::memory_order_acquire) != 0 &&
                         claimCqe(recvCq, m_peerWake, &m_peerCqConsumerSeen, &cqIndex);
    auto responderError = [&](WcStatus responderStatus) {
        if (claimed) {
            Cqe cqe;
            cqe.wrId = entry.wrId;
            cqe.qpNum = peerQp->qpn;
            cqe.status = responderStatus;
            cqe.opcode = WcOpcode::recv;
            completeCqe(recvCq, cqIndex, m_peerWake, cqe);
        }
        remoteErrorLocked(peerQp, peerInstance);
    };
    uint64_t capacity = 0;
    for (uint32_t i = 0; i < entry.numSge; ++i) capacity += entry.sg[i].length;
    if (w.bytes > capacity) {
        // Receive buffer too small: LOC_LEN_ERR at the responder, REM_INV_REQ at the requester.
        responderError(WcStatus::locLenErr);
        *status = WcStatus::remInvReqErr;
        return Outcome::error;
    }
    // Resolve the receive SGEs the message reaches, then copy straight from
    // the inline bytes or local SGEs into them (no bounce buffer).
    std::array<std::span<uint8_t>, kMaxSge> pieces;
    size_t pieceCount = 0;
    uint64_t left = w.bytes;
    for (uint32_t i = 0; i < entry.numSge && left > 0; ++i) {
        const RqSge& sge = entry.sg[i];
        MrShared* region = sge.mrKey != 0 ? peerRegion(sge.mrKey) : nullptr;
        if (region == nullptr || region->valid.load(std::memory_order_acquire) == 0 ||
            sge.offset + sge.length > region->length) {
            responderError(WcStatus::locProtErr);
            *status = WcStatus::remOpErr;
            return Outcome::error;
        }
        const size_t n = std::min<uint64_t>(sge.length, left);
        pieces[pieceCount++] = std::span<uint8_t>(reinterpret_cast<uint8_t*>(region) + kMrHeaderBytes + sge.offset, n);
        left -= n;
    }
    scatterPayload(w, std::span<const std::span<uint8_t>>(pieces.data(), pieceCount));
    // The frame goes into the capture before the receive completion is
    // published: once the responder sees it, its answer may be captured, and
    // on the wire the request comes first.
    if (m_core->capture) {
        m_scratch.resize(w.bytes);
        copyPayload(w, m_scratch.data());
        captureLocked(w, peerInstance, m_scratch);
    } else {
        captureLocked(w, peerInstance, {});
    }
    if (claimed) {
        Cqe cqe;
        cqe.wrId = entry.wrId;
        cqe.qpNum = peerQp->qpn;
        cqe.srcQp = m_qpn;
        cqe.byteLen = w.bytes;
        cqe.status = WcStatus::success;
        cqe.opcode = WcOpcode::recv;
        cqe.flags = hasFlag(w.wr.flags, SendFlags::solicited) ? static_cast<uint32_t>(WcFlags::solicited) : 0;
        completeCqe(recvCq, cqIndex, m_peerWake, cqe);
    }
    prefetchNextSend(peerQp, consumedHead);
    if (peerCounters != nullptr) peerCounters->recvs.fetch_add(1, std::memory_order_relaxed);
    bumpOwned(counters.sends);
    bumpOwned(counters.bytesSent, w.bytes);
    return Outcome::done;
}

SimQp::Outcome SimQp::execute(PendingWr& w, LazyClock& clock, uint64_t* dueNs, WcStatus* status) {
    // Reachability: the peer device runs, its QP exists, is connected back to
    // us and can receive (RTR or RTS). Otherwise no ACK ever comes: the
    // requester retransmits until the transport timer gives up (RETRY_EXC_ERR).
    QpShared* peerQp = resolvePeer() ? m_peerQp : nullptr;
    const uint32_t peerInstance = m_peerInstance;
    bool reachable = peerQp != nullptr && peerQp->alive.load(std::memory_order_acquire) != 0;
    if (reachable) {
        const auto peerState = static_cast<QpState>(peerQp->state.load(std::memory_order_acquire));
        reachable = (peerState == QpState::rtr || peerState == QpState::rts) &&
                    peerQp->remoteQpn.load(std::memory_order_relaxed) == m_qpn &&
                    peerQp->remoteInstance.load(std::memory_order_relaxed) == m_core->instance;
    }
    if (!reachable) {
        const uint64_t nowNs = clock.now();
        if (w.stallSinceNs == 0) w.stallSinceNs = nowNs;
        const uint64_t timeout = transportTimeoutNs();
        if (timeout != 0 && nowNs - w.stallSinceNs >= timeout) {
            m_core->shared->counters.retryExceeded.fetch_add(1, std::memory_order_relaxed);
            *status = WcStatus::retryExcErr;
            return Outcome::error;
        }
        uint64_t recheck = nowNs + 1000000;  // look again in 1 ms
        if (timeout != 0) recheck = std::min(recheck, w.stallSinceNs + timeout);
        *dueNs = recheck;
        return Outcome::stall;
    }
    w.stallSinceNs = 0;
    if (w.wr.opcode == WrOpcode::rdmaWrite) return executeWrite(w, peerQp, peerInstance, status);
    return executeSend(w, peerQp, peerInstance, clock, dueNs, status);
}

uint64_t SimQp::progressLocked(LazyClock& clock) {
    const QpState state = currentStateLocked();
    if (state == QpState::error) {
        if (!m_errorHandled) {
            enterErrorLocked();  // a peer (or an async error) moved us to ERR
        } else {
            for (uint64_t i = m_head; i < m_tail; ++i) completeLocked(at(i), WcStatus::wrFlushErr);
            m_head = m_exec = m_tail;
        }
        return 0;
    }
    if (state != QpState::rts) return 0;
    uint64_t due = 0;
    auto noteDue = [&due](uint64_t t) {
        if (t != 0 && (due == 0 || t < due)) due = t;
    };
    const uint64_t latencyNs = m_core->config.link.wireLatencyNs;
    for (;;) {
        // A time of 0 (ideal link, no back-off) is always due: no clock read.
        while (m_head < m_exec && (at(m_head).ackAtNs == 0 || at(m_head).ackAtNs <= clock.now())) {
            completeLocked(at(m_head), WcStatus::success);
            ++m_head;
        }
        if (m_exec == m_tail) break;
        PendingWr& w = at(m_exec);
        const uint64_t readyAt = std::max(w.deliverAtNs, w.retryAtNs);
        if (readyAt != 0 && readyAt > clock.now()) {
            noteDue(readyAt);
            break;
        }
        uint64_t stallDue = 0;
        WcStatus status = WcStatus::success;
        const Outcome outcome = execute(w, clock, &stallDue, &status);
        if (outcome == Outcome::stall) {
            noteDue(stallDue);
            break;
        }
        if (outcome == Outcome::error) {
            // Earlier WRs were acknowledged before this one failed.
            for (uint64_t i = m_head; i < m_exec; ++i) completeLocked(at(i), WcStatus::success);
            completeLocked(w, status);
            m_head = m_exec = m_exec + 1;
            enterErrorLocked();
            return 0;
        }
        if (w.retryAtNs != 0 || (latencyNs != 0 && w.deliverAtNs + latencyNs < clock.now())) {
            // Executed late (RNR back-off): the ACK is one wire latency away.
            w.ackAtNs = std::max(w.ackAtNs, clock.now() + latencyNs);
        }
        ++m_exec;
    }
    // An ACK reaches a sleeper only as a send completion, and that fires the
    // channel only while the send CQ is armed for the next completion (a
    // solicited arm fires on errors alone). Unarmed, a real RNIC queues the
    // CQE and interrupts nobody; so does the sim: the ACK runs at the owner's
    // next call, and no timer wakes a thread that waits for something else
    // (a receiver woken by its own ACK before the answer: one extra wake-up
    // per message). The first signaled WR's ACK is the one that shows.
    if (m_head < m_exec && m_sendCq->shared()->arm.load(std::memory_order_relaxed) == kArmNext) {
        for (uint64_t i = m_head; i < m_exec; ++i) {
            if (at(i).signaled) {
                noteDue(at(i).ackAtNs);
                break;
            }
        }
    }
    return due;
}

}  // namespace smcr::fabric::sim
