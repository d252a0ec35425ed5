// Which link of a two-link group a connection sends on, and the peer's RMB
// as each link knows it. A new connection of a two-link group is assigned
// to the link with the fewest connections (the kernel's
// smcr_lgr_conn_assign_link); one assigned to the added link switches to it
// only while none of its CDCs is outstanding (so RC ordering on the old
// link already placed everything) and once the peer's RMB on it is known
// (ADD_LINK_CONT / CONFIRM_RKEY). EngineImpl drives it (engine_links.cpp);
// every change goes through the operations below.
#pragma once

#include <cstdint>

namespace smcr::core {

// The peer's RMBE for this connection as one link addresses it.
struct PeerRmb {
    uint64_t vaddr = 0;
    uint32_t rkey = 0;
};

class LinkAssignment {
public:
    // The peer's RMB on the link that carries the group's connections (the
    // primary): from the CLC Accept/Confirm, re-mapped by a failover.
    PeerRmb primaryRmb;

    // The peer's RMB on the added link, once the connection switched to it.
    const PeerRmb& standbyRmb() const { return m_standbyRmb; }
    // It was assigned to the added link / it sends there now.
    bool wantsStandby() const { return m_wantStandby; }
    bool onStandby() const { return m_onStandby; }
    // Assigned to the added link but still sending on the primary.
    bool switchPending() const { return m_wantStandby && !m_onStandby; }

    // A new connection's link: the added one (true) or the primary.
    void assign(bool toStandby) { m_wantStandby = toStandby; }
    // It sends on the added link from now on, where the peer's RMB is rmb.
    void switchToStandby(const PeerRmb& rmb) {
        m_standbyRmb = rmb;
        m_onStandby = true;
    }
    // The added link became the primary (the old one was lost): true when
    // the connection already sent there, its RMB there now the primary's.
    bool onFailover() {
        m_wantStandby = false;
        if (!m_onStandby) return false;
        m_onStandby = false;
        primaryRmb = m_standbyRmb;
        return true;
    }
    // The added link was lost: back to the primary; true when the
    // connection sent on it.
    bool leaveStandby() {
        m_wantStandby = false;
        const bool was = m_onStandby;
        m_onStandby = false;
        return was;
    }

private:
    PeerRmb m_standbyRmb;
    bool m_wantStandby = false;
    bool m_onStandby = false;
};

}  // namespace smcr::core
