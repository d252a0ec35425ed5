// RC queue pairs over libibverbs with the attributes SMC-R uses (timeout 15,
// retry_cnt 7, rnr_retry 7, min_rnr_timer 5 are the caller's choice here).
#include <array>
#include <cerrno>
#include <cstring>
#include <string>

#include "../qp_rules.h"
#include "verbs_objects.h"

namespace smcr::fabric::verbs {

Result<std::unique_ptr<QueuePair>> VerbsPd::createQp(const QpInit& init) {
    auto* sendCq = dynamic_cast<VerbsCq*>(init.sendCq);
    auto* recvCq = dynamic_cast<VerbsCq*>(init.recvCq);
    if (sendCq == nullptr || recvCq == nullptr) {
        return fail(Errc::invalidArgument, "createQp needs a send and a receive CQ of the verbs backend");
    }
    ibv_qp_init_attr attr{};
    attr.send_cq = sendCq->raw();
    attr.recv_cq = recvCq->raw();
    attr.qp_type = IBV_QPT_RC;
    attr.sq_sig_all = init.sigAll ? 1 : 0;
    attr.cap.max_send_wr = init.caps.maxSendWr;
    attr.cap.max_recv_wr = init.caps.maxRecvWr;
    attr.cap.max_send_sge = init.caps.maxSendSge == 0 ? 1 : init.caps.maxSendSge;
    attr.cap.max_recv_sge = init.caps.maxRecvSge == 0 ? 1 : init.caps.maxRecvSge;
    attr.cap.max_inline_data = init.caps.maxInlineBytes;
    ibv_qp* qp = ibv_create_qp(m_pd, &attr);
    if (qp == nullptr) return fail(errnoError("ibv_create_qp", errno));
    // The provider may round the caps up; report what we got.
    QpCaps caps{attr.cap.max_send_wr, attr.cap.max_recv_wr, attr.cap.max_send_sge, attr.cap.max_recv_sge,
                attr.cap.max_inline_data};
    QpCaps asked = init.caps;
    asked.maxSendSge = init.caps.maxSendSge == 0 ? 1 : init.caps.maxSendSge;
    asked.maxRecvSge = init.caps.maxRecvSge == 0 ? 1 : init.caps.maxRecvSge;
    return std::unique_ptr<QueuePair>(new VerbsQp(m_ctx, qp, caps, asked));
}

VerbsQp::~VerbsQp() {
    ibv_destroy_qp(m_qp);
}

static QpState fromIbvState(ibv_qp_state state) {
    switch (state) {
        case IBV_QPS_RESET:
            return QpState::reset;
        case IBV_QPS_INIT:
            return QpState::init;
        case IBV_QPS_RTR:
            return QpState::rtr;
        case IBV_QPS_RTS:
            return QpState::rts;
        default:
            return QpState::error;
    }
}

static ibv_qp_state toIbvState(QpState state) {
    switch (state) {
        case QpState::reset:
            return IBV_QPS_RESET;
        case QpState::init:
            return IBV_QPS_INIT;
        case QpState::rtr:
            return IBV_QPS_RTR;
        case QpState::rts:
            return IBV_QPS_RTS;
        case QpState::error:
            return IBV_QPS_ERR;
    }
    return IBV_QPS_ERR;
}

QpState VerbsQp::state() const {
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (ibv_query_qp(m_qp, &attr, IBV_QP_STATE, &init) != 0) return QpState::error;
    return fromIbvState(attr.qp_state);
}

Result<QpAttr> VerbsQp::query() const {
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    const int mask = IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MTU | IBV_QP_AV | IBV_QP_DEST_QPN |
                     IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC;
    if (ibv_query_qp(m_qp, &attr, mask, &init) != 0) return fail(errnoError("ibv_query_qp", errno));
    QpAttr out;
    out.state = fromIbvState(attr.qp_state);
    out.port = attr.port_num;
    Access access = Access::none;
    if ((attr.qp_access_flags & IBV_ACCESS_LOCAL_WRITE) != 0) access = access | Access::localWrite;
    if ((attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE) != 0) access = access | Access::remoteWrite;
    if ((attr.qp_access_flags & IBV_ACCESS_REMOTE_READ) != 0) access = access | Access::remoteRead;
    out.accessFlags = access;
    out.pathMtu = static_cast<PathMtu>(attr.path_mtu);
    std::memcpy(out.remoteGid.data(), attr.ah_attr.grh.dgid.raw, 16);
    out.hopLimit = attr.ah_attr.grh.hop_limit;
    out.remoteQpn = attr.dest_qp_num;
    out.rqPsn = attr.rq_psn;
    out.sqPsn = attr.sq_psn;
    out.minRnrTimer = attr.min_rnr_timer;
    out.timeout = attr.timeout;
    out.retryCnt = attr.retry_cnt;
    out.rnrRetry = attr.rnr_retry;
    out.maxRdAtomic = attr.max_rd_atomic;
    out.maxDestRdAtomic = attr.max_dest_rd_atomic;
    return out;
}

namespace {

// Where a rule needs more than the attribute: the port the QP is bound to
// (RoCE routes by GID, so the address vector names the source GID index).
struct RuleContext {
    uint8_t portNum = 1;
    const PortInfo* port = nullptr;
};

// One QpAttrMask bit as ibv_modify_qp(3) spells it: its IBV_QP_* bits and
// the ibv_qp_attr fields it fills.
struct AttrRule {
    QpAttrMask bit;
    int ibvMask;
    void (*apply)(ibv_qp_attr& out, const QpAttr& in, const RuleContext& ctx);
};

constexpr AttrRule kAttrRules[] = {
    {QpAttrMask::port, IBV_QP_PORT | IBV_QP_PKEY_INDEX,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) {
         o.port_num = i.port;
         o.pkey_index = 0;
     }},
    {QpAttrMask::accessFlags, IBV_QP_ACCESS_FLAGS,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) {
         o.qp_access_flags = static_cast<unsigned>(ibvAccess(i.accessFlags));
     }},
    {QpAttrMask::pathMtu, IBV_QP_PATH_MTU,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.path_mtu = static_cast<ibv_mtu>(i.pathMtu); }},
    {QpAttrMask::address, IBV_QP_AV,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext& ctx) {
         // RoCE: routed by GID (GRH mandatory); the kernel resolves the MAC.
         o.ah_attr.is_global = 1;
         std::memcpy(o.ah_attr.grh.dgid.raw, i.remoteGid.data(), 16);
         o.ah_attr.grh.sgid_index = ctx.port->gidIndex;
         o.ah_attr.grh.hop_limit = i.hopLimit;
         o.ah_attr.port_num = ctx.portNum;
     }},
    {QpAttrMask::remoteQpn, IBV_QP_DEST_QPN,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.dest_qp_num = i.remoteQpn; }},
    {QpAttrMask::rqPsn, IBV_QP_RQ_PSN, [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.rq_psn = i.rqPsn; }},
    {QpAttrMask::sqPsn, IBV_QP_SQ_PSN, [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.sq_psn = i.sqPsn; }},
    {QpAttrMask::minRnrTimer, IBV_QP_MIN_RNR_TIMER,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.min_rnr_timer = i.minRnrTimer; }},
    {QpAttrMask::timeout, IBV_QP_TIMEOUT,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.timeout = i.timeout; }},
    {QpAttrMask::retryCnt, IBV_QP_RETRY_CNT,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.retry_cnt = i.retryCnt; }},
    {QpAttrMask::rnrRetry, IBV_QP_RNR_RETRY,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.rnr_retry = i.rnrRetry; }},
    {QpAttrMask::maxRdAtomic, IBV_QP_MAX_QP_RD_ATOMIC,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.max_rd_atomic = i.maxRdAtomic; }},
    {QpAttrMask::maxDestRdAtomic, IBV_QP_MAX_DEST_RD_ATOMIC,
     [](ibv_qp_attr& o, const QpAttr& i, const RuleContext&) { o.max_dest_rd_atomic = i.maxDestRdAtomic; }},
};

}  // namespace

Status VerbsQp::modify(const QpAttr& in, QpAttrMask mask) {
    const QpState current = state();
    if (auto st = checkQpTransition(current, in, mask, static_cast<uint32_t>(m_ctx->info.ports.size())); !st) {
        return st;
    }
    RuleContext ctx;
    ctx.portNum = hasFlag(mask, QpAttrMask::port) ? in.port : m_port;
    ctx.port = &m_ctx->info.ports.at(ctx.portNum - 1);
    ibv_qp_attr attr{};
    int ibvMask = IBV_QP_STATE;
    attr.qp_state = toIbvState(in.state);
    for (const AttrRule& rule : kAttrRules) {
        if (!hasFlag(mask, rule.bit)) continue;
        rule.apply(attr, in, ctx);
        ibvMask |= rule.ibvMask;
    }
    if (const int rc = ibv_modify_qp(m_qp, &attr, ibvMask); rc != 0) return fail(errnoError("ibv_modify_qp", rc));
    m_port = ctx.portNum;
    m_state.store(in.state, std::memory_order_relaxed);
    return {};
}

Status VerbsQp::setError() {
    QpAttr attr;
    attr.state = QpState::error;
    return modify(attr, QpAttrMask::state);
}

namespace {

// A post's work requests, built on the stack kPostBatch at a time (no
// allocation on the data path) and handed to the provider as chains.
// `build(i, in, wr)` fills the kind-specific fields; the common ones (id,
// chain, SGEs, checked against what the caller asked for) are filled here.
template <typename IbvWr, typename Wr, typename Build, typename Post>
Status postInBatches(std::span<const Wr> wrs, size_t* posted, uint32_t maxSge, const char* what, Build build,
                     Post post) {
    std::array<IbvWr, kPostBatch> chain{};
    std::array<ibv_sge, kPostBatch * kMaxSge> sges{};
    size_t done = 0;
    while (done < wrs.size()) {
        const size_t count = std::min(kPostBatch, wrs.size() - done);
        for (size_t i = 0; i < count; ++i) {
            const Wr& in = wrs[done + i];
            if (in.numSge > maxSge || in.numSge > kMaxSge) {
                return fail(Errc::invalidArgument, std::string(what) + ": " + std::to_string(in.numSge) +
                                                       " SGEs, the QP takes " + std::to_string(maxSge));
            }
            IbvWr& wr = chain[i];
            wr = IbvWr{};
            wr.wr_id = in.wrId;
            wr.next = i + 1 < count ? &chain[i + 1] : nullptr;
            wr.sg_list = &sges[i * kMaxSge];
            wr.num_sge = static_cast<int>(in.numSge);
            for (uint32_t k = 0; k < in.numSge; ++k)
                sges[i * kMaxSge + k] = ibv_sge{in.sg[k].addr, in.sg[k].length, in.sg[k].lkey};
            if (Status st = build(in, wr); !st) return st;
        }
        IbvWr* bad = nullptr;
        const int rc = post(chain.data(), &bad);
        done += bad == nullptr ? count : static_cast<size_t>(bad - chain.data());
        if (posted != nullptr) *posted = done;
        if (rc != 0) return fail(errnoError(std::string("ibv_") + what, rc));
    }
    return {};
}

}  // namespace

Status VerbsQp::postSend(std::span<const SendWr> wrs, size_t* posted) {
    if (posted != nullptr) *posted = 0;
    if (wrs.empty()) return {};
    // The states the sim enforces, checked here from the state this QP was
    // last moved to (providers differ: rxe takes a post in RTR and fails it
    // later). A QP the device moved to error still posts (to be flushed).
    const QpState state = m_state.load(std::memory_order_relaxed);
    if (state != QpState::rts && state != QpState::error)
        return fail(Errc::invalidState, std::string("postSend in state ") + qpStateName(state) + " (needs RTS)");
    return postInBatches<ibv_send_wr>(
        wrs, posted, m_asked.maxSendSge, "post_send",
        [](const SendWr& in, ibv_send_wr& wr) -> Status {
            if (in.opcode == WrOpcode::rdmaWrite) {
                wr.opcode = IBV_WR_RDMA_WRITE;
                wr.wr.rdma.remote_addr = in.remoteAddr;
                wr.wr.rdma.rkey = in.rkey;
            } else if (in.opcode == WrOpcode::send) {
                wr.opcode = IBV_WR_SEND;
            } else {
                return fail(Errc::invalidArgument, "unknown send opcode");
            }
            unsigned flags = 0;
            if (hasFlag(in.flags, SendFlags::signaled)) flags |= IBV_SEND_SIGNALED;
            if (hasFlag(in.flags, SendFlags::solicited)) flags |= IBV_SEND_SOLICITED;
            if (hasFlag(in.flags, SendFlags::inlineData)) flags |= IBV_SEND_INLINE;
            if (hasFlag(in.flags, SendFlags::fence)) flags |= IBV_SEND_FENCE;
            wr.send_flags = flags;
            return {};
        },
        [this](ibv_send_wr* chain, ibv_send_wr** bad) { return ibv_post_send(m_qp, chain, bad); });
}

Status VerbsQp::postRecv(std::span<const RecvWr> wrs, size_t* posted) {
    if (posted != nullptr) *posted = 0;
    if (wrs.empty()) return {};
    const QpState state = m_state.load(std::memory_order_relaxed);
    if (state == QpState::reset) return fail(Errc::invalidState, "postRecv in state RESET (IBA C10-97.2.1)");
    const Status st = postInBatches<ibv_recv_wr>(
        wrs, posted, m_asked.maxRecvSge, "post_recv", [](const RecvWr&, ibv_recv_wr&) -> Status { return {}; },
        [this](ibv_recv_wr* chain, ibv_recv_wr** bad) { return ibv_post_recv(m_qp, chain, bad); });
    if (!st || state != QpState::error) return st;
    // A receive posted to a QP in error must complete with a flush error
    // (IBA C10-97.2.1), after the ones before it. rxe's user-space queue
    // keeps it until the kernel next looks at the QP (a packet that may
    // never come): moving the QP to error again makes it flush the queue
    // now, in order.
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_ERR;
    if (const int rc = ibv_modify_qp(m_qp, &attr, IBV_QP_STATE); rc != 0)
        return fail(errnoError("ibv_modify_qp (flush receives)", rc));
    return {};
}

}  // namespace smcr::fabric::verbs
