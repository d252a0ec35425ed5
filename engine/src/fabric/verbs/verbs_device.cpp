// Device, PD, regions, CQs and completion channels over libibverbs.
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <poll.h>

#include "verbs_objects.h"

namespace smcr::fabric::verbs {

Error errnoError(const std::string& what, int err) {
    switch (err) {
        case ENOMEM:
            return makeError(Errc::outOfResources, what + ": " + std::strerror(err));
        case EINVAL:
            return makeError(Errc::invalidArgument, what + ": " + std::strerror(err));
        case EOPNOTSUPP:
            return makeError(Errc::notSupported, what + ": " + std::strerror(err));
        default:
            return makeSystemError(what, err);
    }
}

int ibvAccess(Access access) {
    int flags = 0;
    if (hasFlag(access, Access::localWrite)) flags |= IBV_ACCESS_LOCAL_WRITE;
    if (hasFlag(access, Access::remoteWrite)) flags |= IBV_ACCESS_REMOTE_WRITE;
    if (hasFlag(access, Access::remoteRead)) flags |= IBV_ACCESS_REMOTE_READ;
    return flags;
}

VerbsContext::~VerbsContext() {
    if (ctx != nullptr) ibv_close_device(ctx);
}

Result<std::unique_ptr<ProtectionDomain>> VerbsDevice::allocatePd() {
    ibv_pd* pd = ibv_alloc_pd(m_ctx->ctx);
    if (pd == nullptr) return fail(errnoError("ibv_alloc_pd", errno));
    return std::unique_ptr<ProtectionDomain>(new VerbsPd(m_ctx, pd));
}

Result<std::unique_ptr<CompletionChannel>> VerbsDevice::createChannel() {
    ibv_comp_channel* channel = ibv_create_comp_channel(m_ctx->ctx);
    if (channel == nullptr) return fail(errnoError("ibv_create_comp_channel", errno));
    // Non-blocking, so getEvent(0) and epoll loops never stall in the kernel.
    const int flags = fcntl(channel->fd, F_GETFL);
    fcntl(channel->fd, F_SETFL, flags | O_NONBLOCK);
    return std::unique_ptr<CompletionChannel>(new VerbsChannel(m_ctx, channel));
}

Result<std::unique_ptr<CompletionQueue>> VerbsDevice::createCq(const CqInit& init) {
    auto* channel = dynamic_cast<VerbsChannel*>(init.channel);
    if (init.channel != nullptr && channel == nullptr) {
        return fail(Errc::invalidArgument, "completion channel belongs to another backend");
    }
    auto cq = std::make_unique<VerbsCq>(m_ctx, init.userData);
    ibv_cq* raw = ibv_create_cq(m_ctx->ctx, static_cast<int>(init.depth), cq.get(),
                                channel != nullptr ? channel->raw() : nullptr, 0);
    if (raw == nullptr) return fail(errnoError("ibv_create_cq", errno));
    cq->attach(raw);
    return std::unique_ptr<CompletionQueue>(std::move(cq));
}

VerbsPd::~VerbsPd() {
    ibv_dealloc_pd(m_pd);
}

Result<std::unique_ptr<MemoryRegion>> VerbsPd::allocateRegion(uint64_t bytes, Access access) {
    if (bytes == 0) return fail(Errc::invalidArgument, "region of 0 bytes");
    const uint64_t rounded = (bytes + 4095) & ~uint64_t{4095};
    void* buffer = std::aligned_alloc(4096, rounded);
    if (buffer == nullptr) return fail(Errc::outOfResources, "no memory for a region");
    std::memset(buffer, 0, rounded);
    ibv_mr* mr = ibv_reg_mr(m_pd, buffer, bytes, ibvAccess(access));
    if (mr == nullptr) {
        const int err = errno;
        std::free(buffer);
        return fail(errnoError("ibv_reg_mr", err));
    }
    return std::unique_ptr<MemoryRegion>(new VerbsMr(mr, buffer, access));
}

Result<std::unique_ptr<MemoryRegion>> VerbsPd::registerRegion(void* addr, uint64_t bytes, Access access) {
    ibv_mr* mr = ibv_reg_mr(m_pd, addr, bytes, ibvAccess(access));
    if (mr == nullptr) return fail(errnoError("ibv_reg_mr", errno));
    return std::unique_ptr<MemoryRegion>(new VerbsMr(mr, nullptr, access));
}

VerbsMr::~VerbsMr() {
    ibv_dereg_mr(m_mr);
    std::free(m_owned);
}

VerbsChannel::~VerbsChannel() {
    ibv_destroy_comp_channel(m_channel);
}

Result<CompletionQueue*> VerbsChannel::getEvent(int timeoutMs) {
    pollfd p{m_channel->fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeoutMs);
    if (ready < 0) return fail(makeSystemError("poll completion channel", errno));
    if (ready == 0) {
        return timeoutMs == 0 ? fail(Errc::wouldBlock, "no completion event")
                              : fail(Errc::timedOut, "no completion event within timeout");
    }
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(m_channel, &cq, &context) != 0) {
        if (errno == EAGAIN) return fail(Errc::wouldBlock, "no completion event");
        return fail(makeSystemError("ibv_get_cq_event", errno));
    }
    return static_cast<CompletionQueue*>(static_cast<VerbsCq*>(context));
}

VerbsCq::~VerbsCq() {
    if (m_cq != nullptr) ibv_destroy_cq(m_cq);
}

WorkCompletion fromIbv(const ibv_wc& wc) {
    WorkCompletion out;
    out.wrId = wc.wr_id;
    out.status = static_cast<WcStatus>(wc.status);
    switch (wc.opcode) {
        case IBV_WC_SEND:
            out.opcode = WcOpcode::send;
            break;
        case IBV_WC_RDMA_WRITE:
            out.opcode = WcOpcode::rdmaWrite;
            break;
        case IBV_WC_RECV:
            out.opcode = WcOpcode::recv;
            break;
        default:
            out.opcode = WcOpcode::invalid;
            break;
    }
    out.byteLen = wc.byte_len;
    out.qpNum = wc.qp_num;
    out.srcQp = wc.src_qp;
    out.immData = wc.imm_data;
    out.flags = (wc.wc_flags & IBV_WC_WITH_IMM) != 0 ? WcFlags::withImm : WcFlags::none;
    out.vendorErr = wc.vendor_err;
    return out;
}

Result<size_t> VerbsCq::poll(std::span<WorkCompletion> out) {
    std::lock_guard lock(m_mu);
    size_t count = 0;
    while (count < out.size() && !m_stash.empty()) {
        out[count++] = m_stash.front();
        m_stash.pop_front();
    }
    ibv_wc wcs[16];
    while (count < out.size()) {
        const int want = static_cast<int>(std::min<size_t>(16, out.size() - count));
        const int n = ibv_poll_cq(m_cq, want, wcs);
        if (n < 0) return fail(Errc::outOfResources, "ibv_poll_cq failed (CQ error or overrun)");
        for (int i = 0; i < n; ++i) out[count++] = fromIbv(wcs[i]);
        if (n < want) break;
    }
    return count;
}

Result<NotifyResult> VerbsCq::requestNotify(bool solicitedOnly) {
    std::lock_guard lock(m_mu);
    if (ibv_req_notify_cq(m_cq, solicitedOnly ? 1 : 0) != 0) return fail(errnoError("ibv_req_notify_cq", errno));
    // Arm, then poll once: a completion that slipped in before the arm is
    // reported as a missed event (the kernel's REPORT_MISSED_EVENTS contract).
    ibv_wc wcs[16];
    const int n = ibv_poll_cq(m_cq, 16, wcs);
    if (n < 0) return fail(Errc::outOfResources, "ibv_poll_cq failed (CQ error or overrun)");
    for (int i = 0; i < n; ++i) m_stash.push_back(fromIbv(wcs[i]));
    return m_stash.empty() ? NotifyResult::armed : NotifyResult::missedEvents;
}

void VerbsCq::ackEvents(uint32_t count) {
    ibv_ack_cq_events(m_cq, count);
}

}  // namespace smcr::fabric::verbs
