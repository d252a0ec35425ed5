// The shell's objects around the functional core: a link group (its links,
// as the kernel's lgr->lnk[], link.h) and the connections on it. They are
// plain holders; EngineImpl drives them under its mutex.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <smcr/fabric.h>
#include <smcr/stats.h>
#include <smcr/wire/basic_types.h>
#include <smcr/wire/llc.h>

#include "core/connection/connection_core.h"
#include "core/connection/cork_policy.h"
#include "core/handshake/handshake.h"
#include "core/link/add_link_flow.h"
#include "core/link/link_group_core.h"
#include "core/link/rkey_table.h"
#include "core/shell/link.h"
#include "core/shell/link_assignment.h"

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
    int tcpFd = -1;
    bool appClosed = false;      // the socket was closed (or never handed out)
    bool readShutdown = false;   // shutdown(SHUT_RD)
    bool released = false;       // buffers back in the pool, token freed
    bool queuedForSlot = false;  // waiting in the slot queue of the link it sends on
    // The link it sends on and the peer's RMB on each (link_assignment.h).
    LinkAssignment assignment;
    uint64_t hangupDeadlineMs = UINT64_MAX;  // TCP peer gone: abort unless closed by then
    Errc error = Errc::invalid;              // set when aborted
    // CDCs that arrived before the handshake finished on this side (the
    // client may write right after its Confirm, before the server read it).
    std::vector<CdcInfo> earlyCdcs;
    // The send copy runs with the engine unlocked for large sends
    // (engine_push.cpp): a second sender of the socket waits for it.
    bool copying = false;
    uint32_t copyWaiters = 0;
    bool sendQueued = false;  // this send's push found no free send slot: the sender waits for one
    ConnectionStats stats;    // the shell's I/O counters; the core counts its decisions
    // Both: what the socket and the engine report.
    ConnectionStats totals() const {
        ConnectionStats all = stats;
        if (core) all += core->counters();
        return all;
    }
};

// What a group with two links keeps beside them (engine_links.cpp): the
// ADD_LINK flow that builds the added link, the peer's rkeys on it, which of
// our RMBs the peer knows on it, and the failover's validation queue.
//
// A link added by ADD_LINK runs LLC (CONFIRM_LINK, TEST_LINK) and takes the
// connections over when the link carrying them fails (LinkGroup::current
// moves to it) and the dead link is retired. New connections are balanced
// over both links like the kernel's (Connection::assignment): a connection
// on the added link sends its RDMA WRITEs and CDCs there (sendLinkOf), and
// moves back with a failover validation when the added link is lost.
struct MultiLink {
    std::unique_ptr<AddLinkFlow> flow;  // the ADD_LINK flow that built the added link
    // The last link lost from this group, kept (QP in ERR, receive buffers)
    // so that CDCs it received before it went down are still handled when
    // their completions come after the switch (engine_retired_link.cpp).
    std::unique_ptr<Link> retired;
    RkeyTable peerRkeys;                                    // the peer's RMBs on the added link
    std::set<uint32_t> announcedRmbs;                       // our RMB pool ids the peer knows on it
    std::deque<std::weak_ptr<Connection>> validationQueue;  // failover CDCs waiting for a send slot
    uint8_t nextLinkId = 2;                                 // the server numbers links (kernel next_link_id)
    bool addLinkTried = false;                              // the server tries ADD_LINK once per group
    // Server: after a lost link, ADD_LINK again at this time on the port
    // that is free (UINT64_MAX: none planned). The kernel re-adds on a port
    // event; the lab retries once per loss after lab.link_readd_ms.
    uint64_t readdAtMs = UINT64_MAX;
};

class LinkGroup {
public:
    // smcr_max_links_per_lgr is 1 or 2 (the kernel's SMC_LINKS_PER_LGR_MAX
    // is 3; its default and most, SMC_LINKS_PER_LGR_MAX_PREFER, is 2).
    static constexpr size_t kMaxLinks = 2;

    uint64_t id = 0;
    Side role = Side::client;
    PeerKey peer;
    // The kernel's lgr->lnk[]: the link the handshake made, and one added by
    // ADD_LINK (null while there is none). `current` is the one that carries
    // the connections (the primary); a failover moves it to the other.
    std::array<std::unique_ptr<Link>, kMaxLinks> links;
    uint8_t current = 0;
    std::unique_ptr<LinkGroupCore> core;
    std::map<uint32_t, std::shared_ptr<Connection>> conns;  // by local token
    std::vector<PooledBuffer> rmbs;                         // index = pool id
    std::vector<PooledBuffer> sndbufs;
    MultiLink multi;  // the added link's flow, failover, rkey announcements
    bool terminated = false;
    bool confirmLinkSeen = false;      // client: CONFIRM_LINK request arrived
    bool confirmLinkRespSeen = false;  // server: CONFIRM_LINK response arrived
    // SMC-Rv2 groups send their LLC messages in the v2 form (postLlcLocked).
    wire::LlcVersion llcVersion = wire::LlcVersion::v1;
    uint64_t createdMs = 0;

    // The link carrying the connections: always there from creation on.
    Link& primary() { return *links[current]; }
    const Link& primary() const { return *links[current]; }
    // The added link (being added or active), or null.
    Link* standby() { return links[current ^ 1u].get(); }
    const Link* standby() const { return links[current ^ 1u].get(); }
    bool standbyActive() const { return standby() != nullptr && standby()->active(); }
    bool isPrimary(const Link& link) const { return links[current].get() == &link; }
    // Whether `link` is still one of the group's (a flush may retire it).
    bool holds(const Link* link) const { return link != nullptr && (links[0].get() == link || links[1].get() == link); }
    // The retired link if its QP is qpn (engine_retired_link.cpp), or null.
    Link* retiredByQpn(uint32_t qpn) {
        Link* retired = multi.retired.get();
        return retired != nullptr && retired->qp && retired->qp->qpn() == qpn ? retired : nullptr;
    }
    // The link whose QP is qpn, or null (the retired one is not looked at).
    Link* linkByQpn(uint32_t qpn) {
        for (auto& link : links) {
            if (link && link->qp && link->qp->qpn() == qpn) return link.get();
        }
        return nullptr;
    }
};

// The link a connection sends on: the primary, or the added link once the
// connection was balanced onto it (LinkAssignment::onStandby, engine_links.cpp).
// Valid while the caller holds the engine mutex and no link is dropped.
inline Link& sendLinkOf(Connection& conn) {
    LinkGroup& lgr = *conn.lgr;
    Link* standby = lgr.standby();
    return conn.assignment.onStandby() && standby != nullptr ? *standby : lgr.primary();
}

}  // namespace smcr::core
