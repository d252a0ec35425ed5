#include "cq_ring.h"

#include <cerrno>
#include <climits>
#include <new>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace smcr::fabric::sim {

void initCq(CqShared* cq, uint32_t depth, uint32_t channelId) {
    new (cq) CqShared();
    cq->magic = kMagicCq;
    cq->depth = depth;
    cq->channelId = channelId;
    CqeSlot* slots = cqSlots(cq);
    for (uint32_t i = 0; i < depth; ++i) new (&slots[i]) CqeSlot();
    cq->alive.store(1, std::memory_order_release);
}

void wakeWord(ChannelWord* word) {
    word->seq.fetch_add(1, std::memory_order_seq_cst);
    // Not FUTEX_PRIVATE: the word is in a file that other processes map.
    ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word->seq), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

static void wakeChannel(CqShared* cq, const ChannelWake& wake) {
    cq->eventsPending.fetch_add(1, std::memory_order_seq_cst);
    if (wake.counters != nullptr) wake.counters->cqEvents.fetch_add(1, std::memory_order_relaxed);
    // The pending count above, then the sleepers: the sleeper registers,
    // then looks at the pending counts (SimChannel::sleepOnWord), so one of
    // the two sees the other and no event is slept through.
    if (wake.word != nullptr && wake.word->sleepers.load(std::memory_order_seq_cst) != 0) {
        wakeWord(wake.word);
        return;
    }
    if (wake.fifoFd >= 0) {
        // One syscall per wake, as an RNIC's interrupt costs one: every FIFO
        // fd is opened read-write (peer_map.cpp, sim_channel.cpp), so the
        // write cannot fail with EPIPE or raise SIGPIPE. EAGAIN means the
        // FIFO is full and therefore readable already.
        if (wake.word != nullptr) wake.word->fifoBytes.fetch_add(1, std::memory_order_seq_cst);
        const char byte = 1;
        if (::write(wake.fifoFd, &byte, 1) != 1 && wake.word != nullptr) {
            wake.word->fifoBytes.fetch_sub(1, std::memory_order_seq_cst);
        }
    }
}

bool publishCqe(CqShared* cq, const ChannelWake& wake, const Cqe& cqe, uint64_t* consumerSeen) {
    uint64_t index = 0;
    if (!claimCqe(cq, wake, consumerSeen, &index)) return false;
    completeCqe(cq, index, wake, cqe);
    return true;
}

bool claimCqe(CqShared* cq, const ChannelWake& wake, uint64_t* consumerSeen, uint64_t* claimed) {
    if (cq->overrun.load(std::memory_order_acquire) != 0) return false;
    const uint64_t index = cq->reserve.fetch_add(1, std::memory_order_seq_cst);
    uint64_t consumer = consumerSeen != nullptr ? *consumerSeen : 0;
    if (consumerSeen == nullptr || index - consumer >= cq->depth) {
        consumer = cq->consumer.load(std::memory_order_acquire);
        if (consumerSeen != nullptr) *consumerSeen = consumer;
    }
    if (index - consumer >= cq->depth) {
        // CQ overrun: the verbs contract makes the CQ unusable (IBV_EVENT_CQ_ERR);
        // wake the owner so it learns at once.
        cq->overrun.store(1, std::memory_order_release);
        wakeChannel(cq, wake);
        return false;
    }
    *claimed = index;
    return true;
}

void completeCqe(CqShared* cq, uint64_t index, const ChannelWake& wake, const Cqe& cqe) {
    CqeSlot& slot = cqSlots(cq)[index % cq->depth];
    slot.wrId = cqe.wrId;
    slot.sqSeq = cqe.sqSeq;
    slot.qpNum = cqe.qpNum;
    slot.srcQp = cqe.srcQp;
    slot.byteLen = cqe.byteLen;
    slot.immData = cqe.immData;
    slot.flags = cqe.flags;
    slot.status = static_cast<uint8_t>(cqe.status);
    slot.opcode = static_cast<uint8_t>(cqe.opcode);
    slot.seq.store(index + 1, std::memory_order_release);

    // One-shot arm (ibv_req_notify_cq): NEXT fires on anything; SOLICITED only
    // on receive completions with the SE bit, or on errors.
    uint32_t arm = cq->arm.load(std::memory_order_seq_cst);
    const bool solicited =
        (cqe.flags & static_cast<uint32_t>(WcFlags::solicited)) != 0 || cqe.status != WcStatus::success;
    while (arm == kArmNext || (arm == kArmSolicited && solicited)) {
        if (cq->arm.compare_exchange_weak(arm, kArmNone, std::memory_order_seq_cst)) {
            wakeChannel(cq, wake);
            break;
        }
    }
}

bool takeCqe(CqShared* cq, Cqe* out) {
    const uint64_t index = cq->consumer.load(std::memory_order_relaxed);
    CqeSlot& slot = cqSlots(cq)[index % cq->depth];
    if (slot.seq.load(std::memory_order_acquire) != index + 1) return false;
    out->wrId = slot.wrId;
    out->sqSeq = slot.sqSeq;
    out->qpNum = slot.qpNum;
    out->srcQp = slot.srcQp;
    out->byteLen = slot.byteLen;
    out->immData = slot.immData;
    out->flags = slot.flags;
    out->status = static_cast<WcStatus>(slot.status);
    out->opcode = static_cast<WcOpcode>(slot.opcode);
    cq->consumer.store(index + 1, std::memory_order_release);
    return true;
}

bool cqMayHaveEntries(const CqShared* cq) {
    return cq->reserve.load(std::memory_order_seq_cst) != cq->consumer.load(std::memory_order_acquire);
}

}  // namespace smcr::fabric::sim
