// The LLC flow that adds a second link to a link group, without I/O
// (smc-protocol.md sections 1.7 and 2; RFC 7609 section 4.5.2; the kernel's
// smc_llc_srv_add_link / smc_llc_cli_add_link).
//
// Server (initiator)                         Client (responder)
//   new QP on its second port
//   ADD_LINK req {mac, gid, qpn, psn} ---->   new QP on its second port, RTR/RTS
//                                     <----   ADD_LINK resp {mac, gid, qpn, psn}
//   QP RTR/RTS
//   ADD_LINK_CONT (<= 2 rkeys)        ---->   learns them
//                                     <----   ADD_LINK_CONT (<= 2 of its rkeys)
//   ... lockstep until neither side has rkeys left ...
//   CONFIRM_LINK req on the NEW link  ---->
//                                     <----   CONFIRM_LINK resp on the new link
//   link active                               link active
//
// Every ADD_LINK_CONT carries the number of rkeys its sender still has to
// announce, counting the (at most two) entries in the message; each side
// keeps sending (empty messages too) while either side has rkeys left, so
// both run the same number of rounds. Every wait is bounded by the LLC wait
// time; a timeout or a peer reject abandons the new link and the group goes
// on with one.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <smcr/wire/llc.h>

#include "core/handshake/handshake.h"

namespace smcr::core {

// What one side announces about its end of a link.
struct LinkEndpoint {
    wire::Mac mac{};
    wire::Gid gid{};
    uint32_t qpn = 0;
    uint32_t psn = 0;
    wire::IbMtu mtu = wire::IbMtu::mtu1024;
    bool operator==(const LinkEndpoint&) const = default;
};

enum class AddLinkState : uint8_t {
    idle = 0,
    awaitAddLinkResp,      // server: ADD_LINK sent
    rkeyExchange,          // ADD_LINK_CONT rounds
    awaitConfirmLink,      // client: waiting for CONFIRM_LINK on the new link
    awaitConfirmLinkResp,  // server: CONFIRM_LINK sent on the new link
    active,                // the new link carries LLC and may carry connections
    failed,                // abandoned (timeout, reject, protocol error)
};
const char* addLinkStateName(AddLinkState state);

struct AddLinkActions {
    std::vector<wire::LlcMessage> sendOnCurrent;  // over the link that already works
    std::optional<wire::LlcMessage> sendOnNew;    // over the new link (CONFIRM_LINK)
    std::optional<LinkEndpoint> bringUp;          // connect the new QP to this peer end (RTR, RTS)
    std::vector<wire::RkeyPair> learnedRkeys;     // the peer's RMBs on the new link
    bool linkActive = false;                      // the new link is up
    bool abandon = false;                         // destroy the new link
    bool rejectedByPeer = false;                  // the client answered ADD_LINK with a reject
    // EXPERIMENTAL RQ credits (seed 004) of the new link: the peer's initial
    // credits when both ends offered them in ADD_LINK byte 36 (0 = off).
    uint8_t peerInitCredits = 0;
};

class AddLinkFlow {
public:
    AddLinkFlow(Side role, uint64_t llcWaitMs) : m_role(role), m_llcWaitMs(llcWaitMs) {}

    Side role() const { return m_role; }
    AddLinkState state() const { return m_state; }
    bool running() const {
        return m_state != AddLinkState::idle && m_state != AddLinkState::active && m_state != AddLinkState::failed;
    }
    uint8_t newLinkId() const { return m_newLinkId; }
    // RQ credits for the new link (seed 004; credits.h): the receive WQEs it
    // posted, offered in ADD_LINK byte 36, which a peer without the feature
    // leaves zero (reserved). Set before start()/onRequest(); the client
    // answers with its offer only when the request carried one.
    void setCreditOffer(uint8_t initCredits) { m_creditOffer = initCredits; }
    // When poll() has a timeout to report (UINT64_MAX: nothing armed).
    uint64_t deadlineMs() const { return running() ? m_deadlineMs : UINT64_MAX; }

    // Server: the new QP exists (local end), announce it. localRkeys: our
    // RMBs {rkey on the current link, rkey on the new link, vaddr on it}.
    AddLinkActions start(const LinkEndpoint& local, uint8_t newLinkId, uint32_t linkUid,
                         std::vector<wire::RkeyPair> localRkeys, uint64_t nowMs);
    // Client: an ADD_LINK request arrived and the shell made a QP for it.
    AddLinkActions onRequest(const wire::LlcAddLink& request, const LinkEndpoint& local, uint32_t linkUid,
                             std::vector<wire::RkeyPair> localRkeys, uint64_t nowMs);
    // Server: the client's ADD_LINK response (or reject).
    AddLinkActions onResponse(const wire::LlcAddLink& response, uint64_t nowMs);
    AddLinkActions onCont(const wire::LlcAddLinkCont& cont, uint64_t nowMs);
    // A CONFIRM_LINK that arrived on the new link.
    AddLinkActions onConfirmLink(const wire::LlcConfirmLink& confirm, uint64_t nowMs);
    // Timeout duty.
    AddLinkActions poll(uint64_t nowMs);

private:
    AddLinkActions fail();
    wire::LlcAddLinkCont nextCont();
    wire::LlcAddLink addLinkMessage(bool response) const;
    wire::LlcConfirmLink confirmLinkMessage(bool response) const;
    void learn(const wire::LlcAddLinkCont& cont, AddLinkActions& out);

    Side m_role;
    uint64_t m_llcWaitMs;
    AddLinkState m_state = AddLinkState::idle;
    uint64_t m_deadlineMs = UINT64_MAX;
    uint8_t m_newLinkId = 0;
    uint32_t m_linkUid = 0;
    LinkEndpoint m_local;
    std::vector<wire::RkeyPair> m_localRkeys;
    size_t m_sendNext = 0;         // index of the next local rkey to announce
    uint32_t m_recvRemaining = 0;  // rkeys the peer still has to announce
    uint8_t m_creditOffer = 0;     // ADD_LINK byte 36 we send
};

}  // namespace smcr::core
