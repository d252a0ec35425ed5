// Which rkey and address the peer's RMBs have on the other link of a
// multi-link group (smc-protocol.md section 2; the kernel's rtoken table).
// The peer announces them in ADD_LINK_CONT while a link is added, and for
// RMBs made later in CONFIRM_RKEY; DELETE_RKEY withdraws them. Connections
// keep using the rkey they learned in CLC on the first link; on failover the
// shell looks up the same RMB on the surviving link here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include <smcr/stats.h>
#include <smcr/wire/llc.h>

namespace smcr::core {

struct RmbOnLink {
    uint32_t rkey = 0;
    uint64_t vaddr = 0;
    bool operator==(const RmbOnLink&) const = default;
};

class RkeyTable {
public:
    // The peer's RMB known as pair.rkeyCurrent on the current link is
    // {rkeyNew, vaddrNew} on the other one.
    void learn(const wire::RkeyPair& pair);
    std::optional<RmbOnLink> onOtherLink(uint32_t rkeyCurrent) const;
    void forget(uint32_t rkeyCurrent) { m_byCurrent.erase(rkeyCurrent); }
    void clear() { m_byCurrent.clear(); }
    size_t size() const { return m_byCurrent.size(); }

    // A CONFIRM_RKEY request from the peer: learns the entry for
    // otherLinkId and returns the response (negative when the message names
    // no such link).
    wire::LlcConfirmRkey onConfirmRkey(const wire::LlcConfirmRkey& request, uint8_t otherLinkId);
    // A DELETE_RKEY request: forgets the rkeys; the response marks unknown
    // ones in its error mask (bit 7-i = entry i).
    wire::LlcDeleteRkey onDeleteRkey(const wire::LlcDeleteRkey& request);

private:
    std::map<uint32_t, RmbOnLink> m_byCurrent;
};

// Our CONFIRM_RKEY for a new RMB: entry 0 = the carrying link (its linkId
// byte holds the number of further entries), entry 1 = the other link.
wire::LlcConfirmRkey makeConfirmRkey(const RmbOnLink& current, uint8_t otherLinkId, const RmbOnLink& other);
// DELETE_RKEY requests for these rkeys, at most 8 per message.
std::vector<wire::LlcDeleteRkey> makeDeleteRkeys(std::span<const uint32_t> rkeys);
// Entries of a DELETE_RKEY response that the peer confirmed.
uint32_t deletedRkeyCount(const wire::LlcDeleteRkey& response);
// The peer's CONFIRM_RKEY or DELETE_RKEY request (`message` as it came;
// anything else is not counted) in `stats`, and whether our response went
// out (`answered`): smcr.confirm_rkey_rcvd / _answered, smcr.delete_rkey_rcvd /
// _answered.
void countPeerRkeyRequest(const wire::LlcMessage& message, bool answered, EngineStats& stats);

}  // namespace smcr::core
