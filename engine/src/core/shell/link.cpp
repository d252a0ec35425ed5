// One link's fabric work (link.h): QP creation and bring-up with the
// kernel's attributes, receive WQEs, the SEND of a 44-byte message, LLC
// posting with slot and credit accounting, RQ credits in and out.
#include "core/shell/link.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "core/shell/wr_id.h"

namespace smcr::core {

namespace {

// Kernel QP attributes for SMC-R links (smc-protocol.md section 4).
constexpr uint8_t kMinRnrTimer = 5;  // 0.06 ms
constexpr uint8_t kAckTimeout = 15;  // ~134 ms
constexpr uint8_t kRetryCnt = 7;
constexpr uint8_t kRnrRetryInfinite = 7;

}  // namespace

Result<std::unique_ptr<Link>> Link::create(const LinkSetup& setup) {
    auto link = std::make_unique<Link>();
    link->portNum = setup.port->portNum;
    link->sendSlots = setup.sendSlots;
    link->recvWr = setup.recvWr;
    link->core = std::make_unique<LinkCore>(setup.linkId, setup.timers, setup.nowMs);
    std::random_device rd;
    const uint32_t localPsn = rd() & fabric::kPsnMask;

    fabric::QpInit init;
    init.sendCq = setup.sendCq;
    init.recvCq = setup.recvCq;
    // One CDC SEND may follow up to two RDMA WRITEs: 3 WRs per send slot.
    init.caps.maxSendWr = std::min(3 * link->sendSlots, setup.limits->maxQpWr);
    init.caps.maxRecvWr = std::min(link->recvWr, setup.limits->maxQpWr);
    init.caps.maxSendSge = 2;
    init.caps.maxRecvSge = 1;
    init.caps.maxInlineBytes = std::min<uint32_t>(kWrMessageBytes, setup.limits->maxInlineBytes);
    auto qp = setup.pd->createQp(init);
    if (!qp) return fail(qp.error());
    link->qp = std::move(qp.value());
    link->inlineSends = link->qp->caps().maxInlineBytes >= kWrMessageBytes;

    fabric::QpAttr attr;
    attr.state = fabric::QpState::init;
    attr.port = setup.port->portNum;
    attr.accessFlags = fabric::Access::localWrite | fabric::Access::remoteWrite;
    if (Status s = link->qp->modify(attr, fabric::kMaskResetToInit); !s) return fail(s.error());

    auto recv = setup.pd->allocateRegion(uint64_t{link->recvWr} * kWrBufferBytes, fabric::Access::localWrite);
    if (!recv) return fail(recv.error());
    link->recvBuffers = std::move(recv.value());
    if (!link->inlineSends) {
        auto send = setup.pd->allocateRegion(uint64_t{link->sendSlots} * kWrBufferBytes, fabric::Access::localWrite);
        if (!send) return fail(send.error());
        link->sendBuffers = std::move(send.value());
    }
    for (uint32_t slot = 0; slot < link->recvWr; ++slot) {
        if (Status s = link->postRecv(slot); !s) return fail(s.error());
    }
    link->local.mac = setup.port->mac;
    link->local.gid = setup.port->gid;
    link->local.qpn = link->qp->qpn();
    link->local.psn = localPsn;
    link->local.mtu = setup.announcedMtu;
    return link;
}

Status Link::bringUp(const LinkEndpoint& peer, fabric::PathMtu pathMtu) {
    peerMac = peer.mac;
    peerQpn = peer.qpn;
    mtu = pathMtu;
    fabric::QpAttr attr;
    attr.state = fabric::QpState::rtr;
    attr.remoteGid = peer.gid;
    attr.remoteMac = peer.mac;
    attr.hopLimit = 1;
    attr.pathMtu = pathMtu;
    attr.remoteQpn = peer.qpn;
    attr.rqPsn = peer.psn;
    attr.maxDestRdAtomic = 1;
    attr.minRnrTimer = kMinRnrTimer;
    if (Status s = qp->modify(attr, fabric::kMaskInitToRtr); !s) return s;
    attr.state = fabric::QpState::rts;
    attr.sqPsn = local.psn;
    attr.timeout = kAckTimeout;
    attr.retryCnt = kRetryCnt;
    attr.rnrRetry = kRnrRetryInfinite;
    attr.maxRdAtomic = 1;
    return qp->modify(attr, fabric::kMaskRtrToRts);
}

Status Link::postRecv(uint32_t slot) {
    fabric::RecvWr wr;
    wr.wrId = makeWrId(WrKind::recv, slot);
    wr.numSge = 1;
    wr.sg[0] = {recvBuffers->address() + uint64_t{slot} * kWrBufferBytes, kWrBufferBytes, recvBuffers->lkey()};
    return qp->postRecv(wr);
}

void Link::attachMessage(fabric::SendWr& wr, const uint8_t* bytes) {
    wr.numSge = 1;
    if (inlineSends) {
        wr.flags = wr.flags | fabric::SendFlags::inlineData;
        wr.sg[0] = {reinterpret_cast<uint64_t>(bytes), kWrMessageBytes, 0};
        return;
    }
    uint8_t* slot = sendBuffers->data() + (nextSendBuffer++ % sendSlots) * kWrBufferBytes;
    std::memcpy(slot, bytes, kWrMessageBytes);
    wr.sg[0] = {reinterpret_cast<uint64_t>(slot), kWrMessageBytes, sendBuffers->lkey()};
}

Result<bool> Link::postLlc(const wire::LlcBytes& bytes, CreditSendKind kind) {
    if (!canSend(kind)) {
        pendingLlc.push_back(bytes);
        return false;
    }
    fabric::SendWr wr;
    wr.wrId = makeWrId(WrKind::llc, 0);
    wr.opcode = fabric::WrOpcode::send;
    wr.flags = fabric::SendFlags::signaled | fabric::SendFlags::solicited;
    attachMessage(wr, bytes.data());
    if (Status s = qp->postSend(wr); !s) return fail(s.error());
    ++sendSlotsUsed;
    (void)flow.credits.take(kind);  // checked above
    return true;
}

uint8_t Link::spendCdcCredit() {
    if (!flow.credits.enabled()) return 0;
    (void)flow.credits.take(CreditSendKind::message);  // the caller checked the link's credits
    const uint8_t owed = flow.credits.takeForCdc();
    flow.announcedByCdc += owed;
    return owed;
}

bool Link::onPeerCredits(uint8_t credits) {
    if (!flow.credits.enabled()) return false;
    flow.credits.onPeerCredits(credits);
    flow.creditsReceived += credits;
    return true;
}

std::optional<wire::LlcAnnounceCredits> Link::takeCreditAnnouncement() {
    // Only when a send slot is free; a slot that frees later brings the
    // caller back.
    if (!flow.credits.announceDue() || sendSlotsUsed >= sendSlots) return std::nullopt;
    wire::LlcAnnounceCredits msg;
    msg.response = true;  // the RFC patch sends it as a response: nobody answers it
    msg.credits = flow.credits.takeForAnnounce();
    if (msg.credits == 0) return std::nullopt;
    flow.announcedByLlc += msg.credits;
    ++flow.announceLlcs;
    return msg;
}

}  // namespace smcr::core
