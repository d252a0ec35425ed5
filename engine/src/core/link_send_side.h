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

inline LinkSendSide sendSideOf(Connection& conn) {
    LinkGroup& lgr = *conn.lgr;
    LinkSendSide side;
    if (conn.onStandby && lgr.multi.standby && lgr.multi.standby->qp) {
        LinkPath& path = *lgr.multi.standby;
        side.qp = path.qp.get();
        side.inlineSends = path.inlineSends;
        side.sendBuffers = path.sendBuffers.get();
        side.nextSendBuffer = &path.nextSendBuffer;
        side.sendSlots = path.sendSlots;
        side.sendSlotsUsed = &path.sendSlotsUsed;
        side.flow = &path.flow;
        side.slotWaiters = &path.slotWaiters;
        side.peerRmbRkey = conn.standbyRmbRkey;
        side.peerRmbVaddr = conn.standbyRmbVaddr;
        side.standby = true;
        return side;
    }
    side.qp = lgr.qp.get();
    side.inlineSends = lgr.inlineSends;
    side.sendBuffers = lgr.sendBuffers.get();
    side.nextSendBuffer = &lgr.nextSendBuffer;
    side.sendSlots = lgr.sendSlots;
    side.sendSlotsUsed = &lgr.sendSlotsUsed;
    side.flow = &lgr.flow;
    side.slotWaiters = &lgr.slotWaiters;
    side.peerRmbRkey = conn.peerRmbRkey;
    side.peerRmbVaddr = conn.peerRmbVaddr;
    return side;
}

}  // namespace smcr::core
