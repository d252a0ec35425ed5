// The verbs backend: thin wrappers over libibverbs objects. SMC-R exchanges
// GID/MAC/QPN in its own CLC over TCP, so librdmacm is not used (research:
// fabric-anchors.md section 7).
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include <infiniband/verbs.h>

#include <smcr/fabric.h>

namespace smcr::fabric::verbs {

// Owns the device context; every object keeps it alive.
struct VerbsContext {
    ibv_context* ctx = nullptr;
    DeviceInfo info;
    ~VerbsContext();
};

Error errnoError(const std::string& what, int err);
// IBV_ACCESS_* bits of an Access set (MR registration, QP access flags).
int ibvAccess(Access access);

class VerbsDevice final : public Device {
public:
    explicit VerbsDevice(std::shared_ptr<VerbsContext> context) : m_ctx(std::move(context)) {}
    const DeviceInfo& info() const override { return m_ctx->info; }
    Result<std::unique_ptr<ProtectionDomain>> allocatePd() override;
    Result<std::unique_ptr<CompletionChannel>> createChannel() override;
    Result<std::unique_ptr<CompletionQueue>> createCq(const CqInit& init) override;
    // The RNIC runs the WRs: no timed work waits for our calls.
    ProgressModel progressModel() const override { return ProgressModel::hardware; }
    uint64_t nextDueNs() override { return 0; }
    void setOwnerWakeNs(uint64_t) override {}
    // The port's hw_counters (sysfs) are not read.
    Result<RnrCounters> rnrCounters() const override {
        return fail(Errc::notSupported, "verbs: RNR NAKs are not counted");
    }

private:
    std::shared_ptr<VerbsContext> m_ctx;
};

class VerbsPd final : public ProtectionDomain {
public:
    VerbsPd(std::shared_ptr<VerbsContext> context, ibv_pd* pd) : m_ctx(std::move(context)), m_pd(pd) {}
    ~VerbsPd() override;
    Result<std::unique_ptr<MemoryRegion>> allocateRegion(uint64_t bytes, Access access) override;
    Result<std::unique_ptr<MemoryRegion>> registerRegion(void* addr, uint64_t bytes, Access access) override;
    Result<std::unique_ptr<QueuePair>> createQp(const QpInit& init) override;

private:
    std::shared_ptr<VerbsContext> m_ctx;
    ibv_pd* m_pd;
};

class VerbsMr final : public MemoryRegion {
public:
    VerbsMr(ibv_mr* mr, void* owned, Access access) : m_mr(mr), m_owned(owned), m_access(access) {}
    ~VerbsMr() override;
    uint8_t* data() const override { return static_cast<uint8_t*>(m_mr->addr); }
    uint64_t address() const override { return reinterpret_cast<uint64_t>(m_mr->addr); }
    uint64_t length() const override { return m_mr->length; }
    uint32_t lkey() const override { return m_mr->lkey; }
    uint32_t rkey() const override {
        return hasFlag(m_access, Access::remoteWrite) || hasFlag(m_access, Access::remoteRead) ? m_mr->rkey : 0;
    }
    Access access() const override { return m_access; }

private:
    ibv_mr* m_mr;
    void* m_owned;  // allocateRegion's buffer, freed after deregistration
    Access m_access;
};

class VerbsChannel final : public CompletionChannel {
public:
    VerbsChannel(std::shared_ptr<VerbsContext> context, ibv_comp_channel* channel)
        : m_ctx(std::move(context)), m_channel(channel) {}
    ~VerbsChannel() override;
    int fd() const override { return m_channel->fd; }
    Result<CompletionQueue*> getEvent(int timeoutMs) override;
    ibv_comp_channel* raw() const { return m_channel; }

private:
    std::shared_ptr<VerbsContext> m_ctx;
    ibv_comp_channel* m_channel;
};

class VerbsCq final : public CompletionQueue {
public:
    VerbsCq(std::shared_ptr<VerbsContext> context, uint64_t userData)
        : m_ctx(std::move(context)), m_userData(userData) {}
    ~VerbsCq() override;
    void attach(ibv_cq* cq) { m_cq = cq; }
    uint32_t depth() const override { return static_cast<uint32_t>(m_cq->cqe); }
    uint64_t userData() const override { return m_userData; }
    Result<size_t> poll(std::span<WorkCompletion> out) override;
    Result<NotifyResult> requestNotify(bool solicitedOnly) override;
    void ackEvents(uint32_t count) override;
    ibv_cq* raw() const { return m_cq; }

private:
    std::shared_ptr<VerbsContext> m_ctx;
    ibv_cq* m_cq = nullptr;
    uint64_t m_userData;
    std::mutex m_mu;
    // User-space verbs has no IB_CQ_REPORT_MISSED_EVENTS: requestNotify arms,
    // then polls once; what it finds is kept here and returned first by poll.
    std::deque<WorkCompletion> m_stash;
};

class VerbsQp final : public QueuePair {
public:
    // `caps`: what the device granted (it may round up); `asked`: what the
    // caller asked for, which posts are held to, as the sim holds them.
    VerbsQp(std::shared_ptr<VerbsContext> context, ibv_qp* qp, QpCaps caps, QpCaps asked)
        : m_ctx(std::move(context)), m_qp(qp), m_caps(caps), m_asked(asked) {}
    ~VerbsQp() override;
    uint32_t qpn() const override { return m_qp->qp_num; }
    QpCaps caps() const override { return m_caps; }
    QpState state() const override;
    Result<QpAttr> query() const override;
    Status modify(const QpAttr& attr, QpAttrMask mask) override;
    Status postSend(std::span<const SendWr> wrs, size_t* posted) override;
    Status postRecv(std::span<const RecvWr> wrs, size_t* posted) override;
    Status setError() override;
    using QueuePair::postRecv;
    using QueuePair::postSend;

private:
    std::shared_ptr<VerbsContext> m_ctx;
    ibv_qp* m_qp;
    QpCaps m_caps;
    QpCaps m_asked;
    uint8_t m_port = 1;
    // The state modify() last set: the post rules' view (a device that moves
    // the QP to error on its own still lets posts through, to be flushed).
    std::atomic<QpState> m_state{QpState::reset};
};

// Work requests a post builds on the stack at once (longer lists go in turns).
inline constexpr size_t kPostBatch = 16;

WorkCompletion fromIbv(const ibv_wc& wc);

}  // namespace smcr::fabric::verbs
