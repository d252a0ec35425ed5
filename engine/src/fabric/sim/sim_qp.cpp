// RC queue pairs: creation, the state machine with ibv_modify_qp(3)'s
// attribute rules, and posting. Execution lives in sim_exec.cpp.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <unistd.h>

#include "../qp_rules.h"
#include "clock.h"
#include "sim_objects.h"

namespace smcr::fabric::sim {

Result<std::unique_ptr<QueuePair>> SimPd::createQp(const QpInit& init) {
    auto* sendCq = dynamic_cast<SimCq*>(init.sendCq);
    auto* recvCq = dynamic_cast<SimCq*>(init.recvCq);
    if (sendCq == nullptr || recvCq == nullptr) {
        return fail(Errc::invalidArgument, "createQp needs a send and a receive CQ of the sim backend");
    }
    const DeviceLimits& limits = m_core->info.limits;
    QpCaps caps = init.caps;
    if (caps.maxSendWr == 0 || caps.maxSendWr > limits.maxQpWr || caps.maxRecvWr == 0 ||
        caps.maxRecvWr > limits.maxQpWr) {
        return fail(Errc::invalidArgument, "max_send_wr/max_recv_wr must be 1.." + std::to_string(limits.maxQpWr));
    }
    if (caps.maxSendSge > limits.maxSge || caps.maxRecvSge > limits.maxSge) {
        return fail(Errc::invalidArgument, "max SGEs above " + std::to_string(limits.maxSge));
    }
    if (caps.maxInlineBytes > limits.maxInlineBytes) {
        return fail(Errc::invalidArgument, "max_inline_data above " + std::to_string(limits.maxInlineBytes));
    }
    if (caps.maxSendSge == 0) caps.maxSendSge = 1;
    if (caps.maxRecvSge == 0) caps.maxRecvSge = 1;

    std::lock_guard lock(m_core->mu);
    if (m_core->qps.size() >= limits.maxQp) return fail(Errc::outOfResources, "too many QPs");
    const uint32_t qpn = m_core->nextQpn++ & kQpnMask;
    auto file = ShmFile::create(objectPath(m_core->dir, m_core->instance, "qp", qpn), qpFileBytes(caps.maxRecvWr));
    if (!file) return fail(file.error());
    auto* shared = new (file->data()) QpShared();
    shared->magic = kMagicQp;
    shared->qpn = qpn;
    shared->recvDepth = caps.maxRecvWr;
    shared->recvCqId = recvCq->id();
    shared->pdId = m_id;
    shared->state.store(static_cast<uint32_t>(QpState::reset));
    shared->alive.store(1, std::memory_order_release);
    auto qp = std::make_unique<SimQp>(m_core, m_id, qpn, std::move(file.value()), sendCq, recvCq, caps, init.sigAll);
    m_core->qps[qpn] = qp.get();
    return std::unique_ptr<QueuePair>(std::move(qp));
}

SimQp::SimQp(std::shared_ptr<SimCore> core, uint32_t pdId, uint32_t qpn, ShmFile file, SimCq* sendCq, SimCq* recvCq,
             QpCaps caps, bool sigAll)
    : m_core(std::move(core)),
      m_pdId(pdId),
      m_qpn(qpn),
      m_file(std::move(file)),
      m_shared(static_cast<QpShared*>(m_file.data())),
      m_sendCq(sendCq),
      m_recvCq(recvCq),
      m_caps(caps),
      m_sigAll(sigAll),
      m_ring(caps.maxSendWr) {}

SimQp::~SimQp() {
    std::lock_guard lock(m_core->mu);
    m_core->qps.erase(m_qpn);
    if (m_core->detached) return;
    m_shared->state.store(static_cast<uint32_t>(QpState::error), std::memory_order_release);
    m_shared->alive.store(0, std::memory_order_release);
    ::unlink(objectPath(m_core->dir, m_core->instance, "qp", m_qpn).c_str());
}

QpState SimQp::currentStateLocked() const {
    return static_cast<QpState>(m_shared->state.load(std::memory_order_acquire));
}

QpState SimQp::state() const {
    std::lock_guard lock(m_core->mu);
    return currentStateLocked();
}

Result<QpAttr> SimQp::query() const {
    std::lock_guard lock(m_core->mu);
    QpAttr attr = m_attr;
    attr.state = currentStateLocked();
    return attr;
}

static Status invalid(const std::string& what) {
    return fail(Errc::invalidArgument, what);
}

Status SimQp::checkModify(const QpAttr& attr, QpAttrMask mask, QpState current) const {
    if (auto st = checkQpTransition(current, attr, mask, static_cast<uint32_t>(m_core->info.ports.size())); !st) {
        return st;
    }
    if (current == QpState::init && attr.state == QpState::rtr) {
        // The sim adds what a real port would refuse or could not route.
        if (attr.pathMtu > m_core->info.ports[m_attr.port - 1].activeMtu) {
            return invalid("path MTU above the port's active MTU");
        }
        if (auto address = decodeSimGid(attr.remoteGid); !address) return fail(address.error());
    }
    return {};
}

Status SimQp::modify(const QpAttr& attr, QpAttrMask mask) {
    std::lock_guard lock(m_core->mu);
    const QpState current = currentStateLocked();
    if (auto st = checkModify(attr, mask, current); !st) return st;
    switch (attr.state) {
        case QpState::reset: {
            // Back to a clean QP: queues emptied without completions.
            m_head = m_exec = m_tail;
            m_freedSeq = m_nextSeq;
            m_shared->rqHead.store(m_shared->rqTail.load());
            m_attr = QpAttr{};
            m_errorHandled = false;
            m_peerQp = nullptr;
            m_peerDev = nullptr;
            m_peerDead = false;
            m_lastRkey = 0;
            m_lastRegion = nullptr;
            m_shared->remoteQpn.store(0);
            m_shared->remoteInstance.store(0);
            m_shared->state.store(static_cast<uint32_t>(QpState::reset), std::memory_order_release);
            return {};
        }
        case QpState::error:
            enterErrorLocked();
            return {};
        case QpState::init:
            m_attr.port = attr.port;
            m_attr.accessFlags = attr.accessFlags;
            m_shared->accessFlags.store(static_cast<uint32_t>(attr.accessFlags));
            break;
        case QpState::rtr: {
            m_attr.pathMtu = attr.pathMtu;
            m_attr.remoteGid = attr.remoteGid;
            m_attr.remoteMac = attr.remoteMac;
            m_attr.hopLimit = attr.hopLimit;
            m_attr.remoteQpn = attr.remoteQpn;
            m_attr.rqPsn = attr.rqPsn;
            m_attr.maxDestRdAtomic = attr.maxDestRdAtomic;
            m_attr.minRnrTimer = attr.minRnrTimer;
            m_shared->minRnrTimer.store(attr.minRnrTimer);
            m_shared->remoteQpn.store(attr.remoteQpn);
            m_shared->remoteInstance.store(decodeSimGid(attr.remoteGid)->instance);
            m_shared->expectedPsn.store(attr.rqPsn);
            break;
        }
        case QpState::rts:
            m_attr.sqPsn = attr.sqPsn;
            m_attr.timeout = attr.timeout;
            m_attr.retryCnt = attr.retryCnt;
            m_attr.rnrRetry = attr.rnrRetry;
            m_attr.maxRdAtomic = attr.maxRdAtomic;
            if (hasFlag(mask, QpAttrMask::minRnrTimer)) {
                m_attr.minRnrTimer = attr.minRnrTimer;
                m_shared->minRnrTimer.store(attr.minRnrTimer);
            }
            if (hasFlag(mask, QpAttrMask::accessFlags)) {
                m_attr.accessFlags = attr.accessFlags;
                m_shared->accessFlags.store(static_cast<uint32_t>(attr.accessFlags));
            }
            m_sendPsn = attr.sqPsn;
            break;
    }
    m_attr.state = attr.state;
    m_shared->state.store(static_cast<uint32_t>(attr.state), std::memory_order_release);
    return {};
}

Status SimQp::setError() {
    QpAttr attr;
    attr.state = QpState::error;
    return modify(attr, QpAttrMask::state);
}

Status SimQp::validateSend(const SendWr& wr) const {
    if (wr.opcode != WrOpcode::rdmaWrite && wr.opcode != WrOpcode::send) return invalid("unknown send opcode");
    if (wr.numSge > m_caps.maxSendSge) {
        return invalid(std::to_string(wr.numSge) + " SGEs above max_send_sge " + std::to_string(m_caps.maxSendSge));
    }
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < wr.numSge; ++i) bytes += wr.sg[i].length;
    if (bytes > (1ull << 31)) return invalid("message longer than 2 GiB");
    if (hasFlag(wr.flags, SendFlags::inlineData) && bytes > m_caps.maxInlineBytes) {
        return invalid("inline message of " + std::to_string(bytes) + " bytes above max_inline_data " +
                       std::to_string(m_caps.maxInlineBytes));
    }
    return {};
}

Status SimQp::postSend(std::span<const SendWr> wrs, size_t* posted) {
    std::lock_guard lock(m_core->mu);
    if (posted != nullptr) *posted = 0;
    if (m_failNextPost) {
        m_failNextPost = false;
        return fail(makeSystemError("postSend (injected fault)", EIO));
    }
    const QpState state = currentStateLocked();
    if (state != QpState::rts && state != QpState::error) {
        return fail(Errc::invalidState, std::string("postSend in state ") + qpStateName(state) + " (needs RTS)");
    }
    const LinkModel& link = m_core->config.link;
    const bool ideal = link.wireLatencyNs == 0 && link.bandwidthGbps <= 0 && link.perWrNs == 0;
    size_t count = 0;
    Status result;
    for (const SendWr& wr : wrs) {
        if (auto st = validateSend(wr); !st) {
            result = st;
            break;
        }
        if (m_nextSeq - m_freedSeq >= m_caps.maxSendWr) {
            result = fail(Errc::outOfResources,
                          "send queue full: " + std::to_string(m_caps.maxSendWr) +
                              " WRs outstanding (a slot frees when a completion covering it is polled)");
            break;
        }
        PendingWr& w = at(m_tail);
        w.wr = wr;
        w.seq = m_nextSeq++;
        w.signaled = m_sigAll || hasFlag(wr.flags, SendFlags::signaled);
        w.rnrLeft = m_attr.rnrRetry;
        w.bytes = 0;
        w.inlined = false;
        w.deliverAtNs = 0;
        w.ackAtNs = 0;
        w.retryAtNs = 0;
        w.stallSinceNs = 0;
        for (uint32_t i = 0; i < wr.numSge; ++i) w.bytes += wr.sg[i].length;
        if (hasFlag(wr.flags, SendFlags::inlineData)) {
            // Inline data is copied now; the caller may reuse its buffer at once.
            w.inlined = true;
            uint32_t offset = 0;
            for (uint32_t i = 0; i < wr.numSge; ++i) {
                std::memcpy(w.inlineData.data() + offset, reinterpret_cast<const void*>(wr.sg[i].addr),
                            wr.sg[i].length);
                offset += wr.sg[i].length;
            }
        }
        if (!ideal && state == QpState::rts) {
            const uint64_t now = nowNs();
            const uint32_t mtu = std::min(mtuBytes(m_attr.pathMtu), mtuBytes(link.mtu));
            const uint32_t packets = packetCount(w.bytes, mtu);
            // Per packet: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4
            // + preamble/IFG 20; RETH 16 once for a write.
            const uint64_t wireBytes = w.bytes + uint64_t{packets} * 82 + (wr.opcode == WrOpcode::rdmaWrite ? 16 : 0);
            const uint64_t serNs =
                link.bandwidthGbps > 0
                    ? static_cast<uint64_t>(static_cast<double>(wireBytes) * 8.0 / link.bandwidthGbps)
                    : 0;
            uint64_t& busy = m_core->portBusyUntilNs[(m_attr.port - 1) % kSimPorts];
            const uint64_t start = std::max(now, busy) + link.perWrNs;
            busy = start + serNs;
            w.deliverAtNs = busy + link.wireLatencyNs;
            w.ackAtNs = w.deliverAtNs + link.wireLatencyNs;
        }
        if (m_delayNextNs != 0) {
            const uint64_t base = std::max(w.deliverAtNs, nowNs());
            w.deliverAtNs = base + m_delayNextNs;
            w.ackAtNs = std::max(w.ackAtNs, w.deliverAtNs);
            m_delayNextNs = 0;
        }
        ++m_tail;
        ++count;
    }
    if (posted != nullptr) *posted = count;
    m_core->progressLocked();
    return result;
}

Status SimQp::postRecv(std::span<const RecvWr> wrs, size_t* posted) {
    std::lock_guard lock(m_core->mu);
    if (posted != nullptr) *posted = 0;
    if (m_failNextPost) {
        m_failNextPost = false;
        return fail(makeSystemError("postRecv (injected fault)", EIO));
    }
    const QpState state = currentStateLocked();
    if (state == QpState::reset) return fail(Errc::invalidState, "postRecv in state RESET (IBA C10-97.2.1)");
    size_t count = 0;
    Status result;
    for (const RecvWr& wr : wrs) {
        if (wr.numSge > m_caps.maxRecvSge) {
            result = invalid(std::to_string(wr.numSge) + " SGEs above max_recv_sge");
            break;
        }
        RqEntry entry;  // only the header and the SGEs in use are set and copied
        entry.wrId = wr.wrId;
        entry.numSge = wr.numSge;
        bool unsupported = false;
        for (uint32_t i = 0; i < wr.numSge; ++i) {
            const Sge& sge = wr.sg[i];
            const LocalRegion* region = m_core->findRegion(sge.lkey);
            if (region != nullptr && !region->shared) unsupported = true;
            const bool good = region != nullptr && region->pdId == m_pdId &&
                              hasFlag(region->access, Access::localWrite) &&
                              sge.addr >= reinterpret_cast<uint64_t>(region->base) &&
                              sge.addr - reinterpret_cast<uint64_t>(region->base) + sge.length <= region->length;
            // A bad lkey is reported when a SEND lands (LOC_PROT_ERR), as on hardware.
            entry.sg[i].mrKey = good ? sge.lkey : 0;
            entry.sg[i].offset = good ? sge.addr - reinterpret_cast<uint64_t>(region->base) : 0;
            entry.sg[i].length = sge.length;
        }
        if (unsupported) {
            result = fail(Errc::notSupported,
                          "sim: receive buffers must come from allocateRegion (a peer process writes them)");
            break;
        }
        const uint64_t tail = m_shared->rqTail.load(std::memory_order_relaxed);
        // The head only grows (peers CAS it): a stale copy errs towards
        // "full", so the shared line is read only then.
        if (tail - m_rqHeadSeen >= m_shared->recvDepth) m_rqHeadSeen = m_shared->rqHead.load(std::memory_order_acquire);
        if (tail - m_rqHeadSeen >= m_shared->recvDepth) {
            result = fail(Errc::outOfResources,
                          "receive queue full: " + std::to_string(m_shared->recvDepth) + " WRs posted");
            break;
        }
        // Only the SGEs in use: the slot is a line the peer reads next.
        RqEntry& slot = rqEntries(m_shared)[tail % m_shared->recvDepth];
        slot.wrId = entry.wrId;
        slot.numSge = entry.numSge;
        for (uint32_t i = 0; i < entry.numSge; ++i) slot.sg[i] = entry.sg[i];
        m_shared->rqTail.store(tail + 1, std::memory_order_release);
        ++count;
    }
    if (posted != nullptr) *posted = count;
    if (state == QpState::error) flushRqLocked();
    return result;
}

Status SimQp::injectLocked(Fault fault, uint64_t value) {
    switch (fault) {
        case Fault::failNextPost:
            m_failNextPost = true;
            return {};
        case Fault::dropCompletion:
            m_dropNextCompletion = true;
            return {};
        case Fault::qpError:
            enterErrorLocked();
            return {};
        case Fault::delayDelivery:
            m_delayNextNs = value;
            return {};
        case Fault::deadPeer:
            m_deadPeer = true;
            return {};
        case Fault::invalid:
            break;
    }
    return invalid("unknown fault");
}

}  // namespace smcr::fabric::sim
