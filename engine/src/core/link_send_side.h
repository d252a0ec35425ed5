// The send side of the link a connection sends on: the link held in
// LinkGroup's own fields, or the added link (LinkPath) once the connection
// was balanced onto it (Connection::onStandby, engine_links.cpp). Plain
// pointers into those objects, valid while the caller holds the engine
// mutex and no link is dropped or swapped.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include <smcr/fabric.h>

#include "link_group.h"

namespace smcr::core {

struct LinkSendSide {
    fabric::QueuePair* qp = nullptr;
    bool inlineSends = true;
    fabric::MemoryRegion* sendBuffers = nullptr;
    uint32_t* nextSendBuffer = nullptr;
    uint32_t sendSlots = 0;
    uint32_t* sendSlotsUsed = nullptr;
    LinkRxFlow* flow = nullptr;
    std::deque<std::weak_ptr<Connection>>* slotWaiters = nullptr;
    uint32_t peerRmbRkey = 0;  // the peer's RMB as this link knows it
    uint64_t peerRmbVaddr = 0;
    bool standby = false;

    bool slotsFull() const { return *sendSlotsUsed >= sendSlots; }
};

// LinkGroup keeps its first link in fields named like LinkPath's, so one
// template reads either.
template <class Link>
LinkSendSide sendSideFrom(Link& link, uint32_t peerRmbRkey, uint64_t peerRmbVaddr, bool standby) {
    LinkSendSide side;
    side.qp = link.qp.get();
    side.inlineSends = link.inlineSends;
    side.sendBuffers = link.sendBuffers.get();
    side.nextSendBuffer = &link.nextSendBuffer;
    side.sendSlots = link.sendSlots;
    side.sendSlotsUsed = &link.sendSlotsUsed;
    side.flow = &link.flow;
    side.slotWaiters = &link.slotWaiters;
    side.peerRmbRkey = peerRmbRkey;
    side.peerRmbVaddr = peerRmbVaddr;
    side.standby = standby;
    return side;
}

inline LinkSendSide sendSideOf(Connection& conn) {
    LinkGroup& lgr = *conn.lgr;
    if (conn.onStandby && lgr.multi.standby && lgr.multi.standby->qp) {
        return sendSideFrom(*lgr.multi.standby, conn.standbyRmbRkey, conn.standbyRmbVaddr, true);
    }
    return sendSideFrom(lgr, conn.peerRmbRkey, conn.peerRmbVaddr, false);
}

}  // namespace smcr::core
