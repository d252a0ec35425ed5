// The shell's objects around the functional core: a link group (its first
// link's QP held inline, the second in a LinkPath) and the connections on
// it. They are plain holders; EngineImpl drives them under its mutex.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <smcr/fabric.h>
#include <smcr/stats.h>
#include <smcr/wire/basic_types.h>

#include "connection_core.h"
#include "cork_policy.h"
#include "handshake.h"
#include "link_core.h"
#include "link_group_core.h"
#include "link_path.h"
#include "rx_flow.h"
#include "tx_watchdog.h"

namespace smcr::core {

class LinkGroup;

// Where a peer is: its system id and the GID of its RoCE port. Link groups
// are looked up by it (kernel: peer id, GID, MAC, role, QPN).
struct PeerKey {
    wire::PeerId peerId{};
    wire::Gid gid{};
    auto operator<=>(const PeerKey&) const = default;
};

// Send buffers and RMBs allocated from the fabric, reused per size class.
struct PooledBuffer {
    std::unique_ptr<fabric::MemoryRegion> region;
    uint8_t sizeClass = 0;
};

class Connection {
public:
    Connection(std::shared_ptr<LinkGroup> group, uint32_t token) : lgr(std::move(group)), localToken(token) {}

    std::shared_ptr<LinkGroup> lgr;
    uint32_t localToken;
    uint64_t id = 0;                       // engine-wide, for the hang-up monitor
    std::unique_ptr<ConnectionCore> core;  // made once the peer's RMB is known
    uint32_t rmbId = 0;
    uint32_t sndbufId = 0;
    fabric::MemoryRegion* rmb = nullptr;
    fabric::MemoryRegion* sndbuf = nullptr;
    uint64_t peerRmbVaddr = 0;
    uint32_t peerRmbRkey = 0;
    int tcpFd = -1;
    bool appClosed = false;      // the socket was closed (or never handed out)
    bool readShutdown = false;   // shutdown(SHUT_RD)
    bool released = false;       // buffers back in the pool, token freed
    bool needCdc = false;        // a window update or close flags must go out
    bool queuedForSlot = false;  // waiting in the link group's slot queue
    // Multi-link groups (engine_links.cpp): the link the connection sends on.
    // A new connection of a two-link group is assigned to the link with the
    // fewest connections (the kernel's smcr_lgr_conn_assign_link);
    // wantStandby marks one assigned to the added link, onStandby says it
    // switched (only while none of its CDCs is outstanding, so RC ordering
    // on the old link already placed everything). standbyRmb*: the peer's RMB
    // on the added link (from ADD_LINK_CONT / CONFIRM_RKEY).
    bool wantStandby = false;
    bool onStandby = false;
    uint32_t standbyRmbRkey = 0;
    uint64_t standbyRmbVaddr = 0;
    uint64_t hangupDeadlineMs = UINT64_MAX;  // TCP peer gone: abort unless closed by then
    Errc error = Errc::invalid;              // set when aborted
    // CDCs that arrived before the handshake finished on this side (the
    // client may write right after its Confirm, before the server read it).
    std::vector<std::array<uint8_t, 44>> earlyCdcs;
    TxPushState push;  // corking, pusher gate, tx deferral (cork_policy.h)
    ConnectionStats stats;
};

class LinkGroup {
public:
    uint64_t id = 0;
    HandshakeRole role = HandshakeRole::client;
    PeerKey peer;
    wire::Mac peerMac{};
    uint32_t peerQpn = 0;
    uint32_t localPsn = 0;
    fabric::PathMtu mtu = fabric::PathMtu::mtu1024;
    std::unique_ptr<fabric::QueuePair> qp;
    std::unique_ptr<fabric::MemoryRegion> recvBuffers;  // recvWr slots of 48 bytes
    uint32_t recvWr = 0;
    uint32_t sendSlots = 0;  // CDC/LLC SENDs that may be outstanding
    uint32_t sendSlotsUsed = 0;
    bool inlineSends = true;
    std::unique_ptr<fabric::MemoryRegion> sendBuffers;  // when SENDs cannot go inline
    uint32_t nextSendBuffer = 0;
    std::unique_ptr<LinkCore> link;
    std::unique_ptr<LinkGroupCore> core;
    std::map<uint32_t, std::shared_ptr<Connection>> conns;  // by local token
    std::vector<PooledBuffer> rmbs;                         // index = pool id
    std::vector<PooledBuffer> sndbufs;
    std::deque<std::weak_ptr<Connection>> slotWaiters;
    std::deque<wire::LlcBytes> pendingLlc;  // replies waiting for a send slot
    LinkRxFlow flow;                        // RQ credits and RX backlog of the link (rx_flow.h)
    TxWatchdog txWatchdog;                  // send completions that stopped coming (tx_watchdog.h)
    MultiLink multi;                        // a second link, failover, rkey announcements (link_path.h)
    bool terminated = false;
    bool confirmLinkSeen = false;      // client: CONFIRM_LINK request arrived
    bool confirmLinkRespSeen = false;  // server: CONFIRM_LINK response arrived
    uint64_t createdMs = 0;
};

}  // namespace smcr::core
