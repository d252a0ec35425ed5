// Completion queues: the owner's side of the shared completion ring.
#include <algorithm>

#include <unistd.h>

#include "sim_objects.h"

namespace smcr::fabric::sim {

SimCq::SimCq(std::shared_ptr<SimCore> core, uint32_t id, ShmFile file, SimChannel* channel, uint64_t userData)
    : m_core(std::move(core)),
      m_id(id),
      m_file(std::move(file)),
      m_shared(static_cast<CqShared*>(m_file.data())),
      m_channel(channel),
      m_userData(userData) {}

SimCq::~SimCq() {
    std::lock_guard lock(m_core->mu);
    if (m_channel != nullptr) m_channel->detach(this);
    if (m_core->detached) return;
    m_shared->alive.store(0, std::memory_order_release);
    ::unlink(objectPath(m_core->dir, m_core->instance, "cq", m_id).c_str());
}

bool SimCq::publish(const Cqe& cqe) {
    return publishCqe(m_shared, wake(), cqe);
}

Result<size_t> SimCq::poll(std::span<WorkCompletion> out) {
    std::lock_guard lock(m_core->mu);
    m_core->progressLocked();
    if (m_shared->overrun.load(std::memory_order_acquire) != 0) {
        return fail(Errc::outOfResources, "completion queue overrun (CQ error): more than " +
                                              std::to_string(m_shared->depth) + " completions outstanding");
    }
    size_t count = 0;
    Cqe cqe;
    while (count < out.size() && takeCqe(m_shared, &cqe)) {
        if ((cqe.flags & kCqeFromSq) != 0) {
            // mlx5 behaviour: polling a send CQE frees every SQ slot up to it.
            auto it = m_core->qps.find(cqe.qpNum);
            if (it != m_core->qps.end()) it->second->sendSlotsFreedUpTo(cqe.sqSeq);
        }
        WorkCompletion& wc = out[count++];
        wc.wrId = cqe.wrId;
        wc.status = cqe.status;
        wc.opcode = cqe.opcode;
        wc.byteLen = cqe.byteLen;
        wc.qpNum = cqe.qpNum;
        wc.srcQp = cqe.srcQp;
        wc.immData = cqe.immData;
        wc.flags = static_cast<WcFlags>(cqe.flags & ~kCqeFromSq);
        wc.vendorErr = 0;
    }
    return count;
}

Result<NotifyResult> SimCq::requestNotify(bool solicitedOnly) {
    std::lock_guard lock(m_core->mu);
    if (m_shared->overrun.load(std::memory_order_acquire) != 0) {
        return fail(Errc::outOfResources, "completion queue overrun (CQ error)");
    }
    const uint32_t want = solicitedOnly ? kArmSolicited : kArmNext;
    uint32_t current = m_shared->arm.load(std::memory_order_seq_cst);
    // A NEXT arm is not downgraded by a later solicited arm (rxe_req_notify_cq).
    while (current < want && !m_shared->arm.compare_exchange_weak(current, want, std::memory_order_seq_cst)) {
    }
    // Progress after arming, so the timer covers pending work while the
    // caller sleeps.
    m_core->progressLocked();
    // IB_CQ_REPORT_MISSED_EVENTS as rxe answers it: anything queued means
    // the caller must poll again before sleeping.
    return cqMayHaveEntries(m_shared) ? NotifyResult::missedEvents : NotifyResult::armed;
}

void SimCq::ackEvents(uint32_t count) {
    std::lock_guard lock(m_core->mu);
    m_unackedEvents -= std::min<uint64_t>(m_unackedEvents, count);
}

}  // namespace smcr::fabric::sim
