// The shell's side of a multi-link group (engine_links.cpp): the second
// link's RC QP and buffers, the ADD_LINK flow that builds it, the peer's
// rkeys on it, and which of our RMBs the peer knows on it.
//
// The link that carries the connections lives in LinkGroup's own fields
// (qp, recvBuffers, link, ...). A second link added by ADD_LINK is a hot
// standby here: it runs LLC (CONFIRM_LINK, TEST_LINK) and takes over the
// first link's connections when that one fails; then its fields are swapped into
// LinkGroup's (swapPrimary) and the dead link is retired (MultiLink::retired).
// New connections are balanced over both links like the kernel's (Connection::wantStandby):
// a connection on the added link sends its RDMA WRITEs and CDCs there
// (link_send_side.h), and moves back with a failover validation when the
// added link is lost.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>

#include <smcr/fabric.h>
#include <smcr/wire/llc.h>

#include "add_link_flow.h"
#include "link_core.h"
#include "rkey_table.h"
#include "rx_flow.h"
#include "tx_watchdog.h"

namespace smcr::core {

class Connection;

struct LinkPath {
    uint8_t linkId = 0;
    uint8_t portNum = 0;
    LinkEndpoint local;  // what we announced in ADD_LINK
    // The same fields as LinkGroup's first link (swapPrimary trades them).
    wire::Mac peerMac{};
    uint32_t peerQpn = 0;
    uint32_t localPsn = 0;
    fabric::PathMtu mtu = fabric::PathMtu::mtu1024;
    std::unique_ptr<fabric::QueuePair> qp;
    std::unique_ptr<fabric::MemoryRegion> recvBuffers;
    uint32_t recvWr = 0;
    uint32_t sendSlots = 0;
    uint32_t sendSlotsUsed = 0;
    bool inlineSends = true;
    std::unique_ptr<fabric::MemoryRegion> sendBuffers;
    uint32_t nextSendBuffer = 0;
    std::unique_ptr<LinkCore> link;
    std::deque<wire::LlcBytes> pendingLlc;
    std::deque<std::weak_ptr<Connection>> slotWaiters;  // balanced connections waiting for a slot
    LinkRxFlow flow;                                    // RQ credits: negotiated in ADD_LINK byte 36 (add_link_flow.h)
    TxWatchdog txWatchdog;
};

struct MultiLink {
    std::unique_ptr<LinkPath> standby;  // the added link (being added or active)
    std::unique_ptr<AddLinkFlow> flow;  // the ADD_LINK flow that built it
    // The last link lost from this group, kept (QP in ERR, receive buffers)
    // so that CDCs it received before it went down are still handled when
    // their completions come after the switch (engine_retired_link.cpp).
    std::unique_ptr<LinkPath> retired;
    RkeyTable peerRkeys;                                    // the peer's RMBs on the standby link
    std::set<uint32_t> announcedRmbs;                       // our RMB pool ids the peer knows on it
    std::deque<std::weak_ptr<Connection>> validationQueue;  // failover CDCs waiting for a send slot
    uint8_t nextLinkId = 2;                                 // the server numbers links (kernel next_link_id)
    bool addLinkTried = false;                              // the server tries ADD_LINK once per group
    // The port of the link in LinkGroup's fields (0: the engine's first
    // port); a failover moves the group onto the standby's port.
    uint8_t primaryPort = 0;
    // Server: after a lost link, ADD_LINK again at this time on the port
    // that is free (UINT64_MAX: none planned). The kernel re-adds on a port
    // event; the lab retries once per loss after lab.link_readd_ms.
    uint64_t readdAtMs = UINT64_MAX;

    bool standbyActive() const { return standby && standby->link && standby->link->state() == LinkState::active; }
};

}  // namespace smcr::core
