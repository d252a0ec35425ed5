// The sim backend's implementations of the fabric interface classes.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <vector>

#include <smcr/fabric.h>
#include <smcr/fabric_sim.h>

#include "clock.h"
#include "cq_ring.h"
#include "sim_core.h"

namespace smcr::fabric::sim {

class SimDevice final : public Device, public SimControl {
public:
    explicit SimDevice(std::shared_ptr<SimCore> core) : m_core(std::move(core)) {}
    ~SimDevice() override;
    const DeviceInfo& info() const override { return m_core->info; }
    Result<std::unique_ptr<ProtectionDomain>> allocatePd() override;
    Result<std::unique_ptr<CompletionChannel>> createChannel() override;
    Result<std::unique_ptr<CompletionQueue>> createCq(const CqInit& init) override;
    // WRs run inside the owner's calls (sim_exec.cpp); timed ones once due.
    ProgressModel progressModel() const override { return ProgressModel::ownerCalls; }
    uint64_t nextDueNs() override;
    void setOwnerWakeNs(uint64_t ns) override { m_core->ownerWakeNs.store(ns, std::memory_order_release); }
    Result<RnrCounters> rnrCounters() const override;
    bool survivesFork() const override { return true; }  // everything shared is in files
    void forgetShared() override;
    void holdForFork() override { m_core->mu.lock(); }
    void releaseAfterFork() override { m_core->mu.unlock(); }

    SimCounters counters() const override;
    const LinkModel& link() const override { return m_core->config.link; }
    Status injectFault(QueuePair& qp, Fault fault, uint64_t value) override;
    Status setCapture(const std::string& pcapPath) override;
    void progress() override;

private:
    std::shared_ptr<SimCore> m_core;
};

class SimPd final : public ProtectionDomain {
public:
    SimPd(std::shared_ptr<SimCore> core, uint32_t id) : m_core(std::move(core)), m_id(id) {}
    Result<std::unique_ptr<MemoryRegion>> allocateRegion(uint64_t bytes, Access access) override;
    Result<std::unique_ptr<MemoryRegion>> registerRegion(void* addr, uint64_t bytes, Access access) override;
    Result<std::unique_ptr<QueuePair>> createQp(const QpInit& init) override;

private:
    std::shared_ptr<SimCore> m_core;
    uint32_t m_id;
};

class SimMr final : public MemoryRegion {
public:
    SimMr(std::shared_ptr<SimCore> core, uint32_t key, ShmFile file, uint8_t* data, uint64_t length, Access access);
    ~SimMr() override;
    uint8_t* data() const override { return m_data; }
    uint64_t address() const override { return reinterpret_cast<uint64_t>(m_data); }
    uint64_t length() const override { return m_length; }
    uint32_t lkey() const override { return m_key; }
    uint32_t rkey() const override { return m_file.valid() && hasRemote() ? m_key : 0; }
    Access access() const override { return m_access; }

private:
    bool hasRemote() const { return hasFlag(m_access, Access::remoteWrite) || hasFlag(m_access, Access::remoteRead); }
    std::shared_ptr<SimCore> m_core;
    uint32_t m_key;
    ShmFile m_file;  // empty for registerRegion
    uint8_t* m_data;
    uint64_t m_length;
    Access m_access;
};

class SimChannel final : public CompletionChannel {
public:
    SimChannel(std::shared_ptr<SimCore> core, uint32_t id) : m_core(std::move(core)), m_id(id) {}
    ~SimChannel() override;
    Status open();
    int fd() const override { return m_epollFd; }
    // The FIFO and the device's timer: what the epoll fd holds.
    size_t sleepFds(std::span<int, kMaxSleepFds> out) const override;
    Result<CompletionQueue*> getEvent(int timeoutMs) override;
    bool mayHaveEvents() const override;

    uint32_t id() const { return m_id; }
    // How producers wake this channel (cq_ring.h).
    ChannelWake wake() const { return {m_fifoFd, m_word, &m_core->shared->counters}; }
    bool canSleepOnWord() const override { return m_word != nullptr; }
    uint32_t wordTicket() const override;
    WordSleep sleepOnWord(uint32_t ticket, uint64_t deadlineNs) override;
    void wakeWordSleepers() override;
    // Wakes word sleepers only if there are any: they recompute their timeout.
    void nudgeWordSleepers();
    void attach(SimCq* cq);
    void detach(SimCq* cq);
    // Some CQ of this channel is armed: its owner may be about to sleep.
    bool anyArmed() const;

private:
    SimCq* takeEventLocked();
    bool anyPending() const;
    void drainFifo();
    std::shared_ptr<SimCore> m_core;
    uint32_t m_id;
    int m_fifoFd = -1;
    ChannelWord* m_word = nullptr;  // in the device file; null above kChannelWords
    int m_epollFd = -1;
    std::vector<SimCq*> m_cqs;
};

class SimCq final : public CompletionQueue {
public:
    SimCq(std::shared_ptr<SimCore> core, uint32_t id, ShmFile file, SimChannel* channel, uint64_t userData);
    ~SimCq() override;
    uint32_t depth() const override { return m_shared->depth; }
    uint64_t userData() const override { return m_userData; }
    Result<size_t> poll(std::span<WorkCompletion> out) override;
    Result<NotifyResult> requestNotify(bool solicitedOnly) override;
    void ackEvents(uint32_t count) override;

    uint32_t id() const { return m_id; }
    CqShared* shared() const { return m_shared; }
    ChannelWake wake() const {
        return m_channel != nullptr ? m_channel->wake() : ChannelWake{-1, nullptr, &m_core->shared->counters};
    }
    void noteEvent() { ++m_unackedEvents; }
    // Publishes a completion produced by this device (caller holds the core lock).
    bool publish(const Cqe& cqe);

private:
    std::shared_ptr<SimCore> m_core;
    uint32_t m_id;
    ShmFile m_file;
    CqShared* m_shared;
    SimChannel* m_channel;
    uint64_t m_userData;
    uint64_t m_unackedEvents = 0;
};

inline constexpr uint32_t kSimMaxInline = 256;

// A send WR between postSend and its completion.
struct PendingWr {
    SendWr wr;
    uint64_t seq = 0;  // position in the send queue
    uint32_t bytes = 0;
    std::array<uint8_t, kSimMaxInline> inlineData;  // copied at post time
    bool inlined = false;
    bool signaled = false;
    uint64_t deliverAtNs = 0;   // link model: first byte may land
    uint64_t ackAtNs = 0;       // link model: requester's completion
    uint64_t retryAtNs = 0;     // RNR back-off
    uint64_t stallSinceNs = 0;  // peer unreachable since
    uint32_t rnrLeft = 0;
};

class SimQp final : public QueuePair {
public:
    SimQp(std::shared_ptr<SimCore> core, uint32_t pdId, uint32_t qpn, ShmFile file, SimCq* sendCq, SimCq* recvCq,
          QpCaps caps, bool sigAll);
    ~SimQp() override;
    uint32_t qpn() const override { return m_qpn; }
    QpCaps caps() const override { return m_caps; }
    QpState state() const override;
    Result<QpAttr> query() const override;
    Status modify(const QpAttr& attr, QpAttrMask mask) override;
    Status postSend(std::span<const SendWr> wrs, size_t* posted) override;
    Status postRecv(std::span<const RecvWr> wrs, size_t* posted) override;
    Status setError() override;
    using QueuePair::postRecv;
    using QueuePair::postSend;

    // Engine (sim_exec.cpp); caller holds the core lock.
    // Returns the earliest time more work is due (0 = none).
    uint64_t progressLocked(LazyClock& clock);
    // Nothing queued and no error to process: progress would do nothing
    // (lets a poll skip reading the clock).
    bool idleLocked() const {
        return m_head == m_tail && (m_errorHandled || m_shared->state.load(std::memory_order_acquire) !=
                                                          static_cast<uint32_t>(QpState::error));
    }
    void sendSlotsFreedUpTo(uint64_t seq) {
        if (seq + 1 > m_freedSeq) m_freedSeq = seq + 1;
    }
    Status injectLocked(Fault fault, uint64_t value);

private:
    enum class Outcome { done, stall, error };
    Status checkModify(const QpAttr& attr, QpAttrMask mask, QpState current) const;
    Status validateSend(const SendWr& wr) const;
    Outcome execute(PendingWr& w, LazyClock& clock, uint64_t* dueNs, WcStatus* status);
    Outcome executeWrite(PendingWr& w, QpShared* peerQp, uint32_t peerInstance, WcStatus* status);
    Outcome executeSend(PendingWr& w, QpShared* peerQp, uint32_t peerInstance, LazyClock& clock, uint64_t* dueNs,
                        WcStatus* status);
    // Local SGEs are checked when the "NIC" reads them (LOC_PROT_ERR).
    bool checkLocal(const PendingWr& w, WcStatus* status) const;
    // Copies the payload to dst (inline bytes or the SGEs).
    static void copyPayload(const PendingWr& w, uint8_t* dst);
    // Copies the payload into a list of destination pieces (a receive WQE's
    // SGEs) without an intermediate buffer.
    static void scatterPayload(const PendingWr& w, std::span<const std::span<uint8_t>> pieces);
    void prefetchNextSend(QpShared* peerQp, uint64_t head);
    // The connected peer, resolved once per connection and cached.
    bool resolvePeer();
    MrShared* peerRegion(uint32_t rkey);
    void completeLocked(const PendingWr& w, WcStatus status);
    void enterErrorLocked();
    void flushRqLocked();
    void remoteErrorLocked(QpShared* peerQp, uint32_t peerInstance);
    void captureLocked(const PendingWr& w, uint32_t peerInstance, std::span<const uint8_t> payload);
    uint64_t transportTimeoutNs() const;
    QpState currentStateLocked() const;

    std::shared_ptr<SimCore> m_core;
    uint32_t m_pdId;
    uint32_t m_qpn;
    ShmFile m_file;
    QpShared* m_shared;
    SimCq* m_sendCq;
    SimCq* m_recvCq;
    QpCaps m_caps;
    bool m_sigAll;
    QpAttr m_attr;
    // Peer cache (valid while m_peerQp != nullptr).
    uint32_t m_peerInstance = 0;
    DeviceShared* m_peerDev = nullptr;
    QpShared* m_peerQp = nullptr;
    uint64_t m_peerProbeNs = 0;
    bool m_peerDead = false;
    uint32_t m_lastRkey = 0;
    MrShared* m_lastRegion = nullptr;
    // The peer's receive side, resolved with the peer: its CQ, that CQ's
    // channel FIFO, and private lower bounds of indices the peer advances
    // (read from shared memory only when they say "full" / "empty").
    CqShared* m_peerRecvCq = nullptr;
    ChannelWake m_peerWake;  // the peer's receive CQ's channel
    uint64_t m_peerCqConsumerSeen = 0;
    uint64_t m_peerRqTailSeen = 0;
    std::vector<uint8_t> m_scratch;  // capture only: the payload in one piece
    // The send queue as a ring of maxSendWr entries (it can never hold more,
    // since slots free only on polled completions): [m_head, m_exec) are
    // executed and wait for the modelled ACK, [m_exec, m_tail) wait to run.
    std::vector<PendingWr> m_ring;
    uint64_t m_head = 0;
    uint64_t m_exec = 0;
    uint64_t m_tail = 0;
    PendingWr& at(uint64_t index) { return m_ring[index % m_ring.size()]; }
    uint64_t m_rqHeadSeen = 0;  // lower bound of our receive ring's head
    uint64_t m_nextSeq = 0;
    uint64_t m_freedSeq = 0;
    uint32_t m_sendPsn = 0;
    bool m_errorHandled = false;
    // Fault injection.
    bool m_failNextPost = false;
    bool m_dropNextCompletion = false;
    bool m_deadPeer = false;
    uint64_t m_delayNextNs = 0;
};

}  // namespace smcr::fabric::sim
