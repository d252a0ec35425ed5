#include "core/link/rkey_table.h"

#include <algorithm>

namespace smcr::core {

namespace {
constexpr size_t kDeleteRkeyMax = 8;  // DELETE_RKEY holds up to 8 rkeys
}

void RkeyTable::learn(const wire::RkeyPair& pair) {
    m_byCurrent[pair.rkeyCurrent] = RmbOnLink{pair.rkeyNew, pair.vaddrNew};
}

std::optional<RmbOnLink> RkeyTable::onOtherLink(uint32_t rkeyCurrent) const {
    auto it = m_byCurrent.find(rkeyCurrent);
    if (it == m_byCurrent.end()) return std::nullopt;
    return it->second;
}

wire::LlcConfirmRkey RkeyTable::onConfirmRkey(const wire::LlcConfirmRkey& request, uint8_t otherLinkId) {
    wire::LlcConfirmRkey reply = request;
    reply.response = true;
    reply.negative = true;
    const size_t extra = std::min<size_t>(request.entries[0].linkId, request.entries.size() - 1);
    for (size_t i = 1; i <= extra; ++i) {
        if (request.entries[i].linkId != otherLinkId) continue;
        learn(wire::RkeyPair{request.entries[0].rkey, request.entries[i].rkey, request.entries[i].vaddr});
        reply.negative = false;
    }
    return reply;
}

wire::LlcDeleteRkey RkeyTable::onDeleteRkey(const wire::LlcDeleteRkey& request) {
    wire::LlcDeleteRkey reply = request;
    reply.response = true;
    reply.errorMask = 0;
    const size_t n = std::min<size_t>(request.numRkeys, request.rkeys.size());
    for (size_t i = 0; i < n; ++i) {
        if (m_byCurrent.erase(request.rkeys[i]) == 0) reply.errorMask |= static_cast<uint8_t>(0x80u >> i);
    }
    return reply;
}

wire::LlcConfirmRkey makeConfirmRkey(const RmbOnLink& current, uint8_t otherLinkId, const RmbOnLink& other) {
    wire::LlcConfirmRkey m;
    m.entries[0] = wire::LinkRkey{1, current.rkey, current.vaddr};
    m.entries[1] = wire::LinkRkey{otherLinkId, other.rkey, other.vaddr};
    return m;
}

std::vector<wire::LlcDeleteRkey> makeDeleteRkeys(std::span<const uint32_t> rkeys) {
    std::vector<wire::LlcDeleteRkey> out;
    for (size_t start = 0; start < rkeys.size(); start += kDeleteRkeyMax) {
        wire::LlcDeleteRkey m;
        const size_t n = std::min(kDeleteRkeyMax, rkeys.size() - start);
        m.numRkeys = static_cast<uint8_t>(n);
        for (size_t i = 0; i < n; ++i) m.rkeys[i] = rkeys[start + i];
        out.push_back(m);
    }
    return out;
}

uint32_t deletedRkeyCount(const wire::LlcDeleteRkey& response) {
    uint32_t count = 0;
    const size_t n = std::min<size_t>(response.numRkeys, response.rkeys.size());
    for (size_t i = 0; i < n; ++i) {
        if ((response.errorMask & (0x80u >> i)) == 0) ++count;
    }
    return count;
}

void countPeerRkeyRequest(const wire::LlcMessage& message, bool answered, EngineStats& stats) {
    if (const auto* confirm = std::get_if<wire::LlcConfirmRkey>(&message); confirm && !confirm->response) {
        ++stats.peerConfirmRkeys;
        if (answered) ++stats.peerConfirmRkeysAnswered;
    } else if (const auto* del = std::get_if<wire::LlcDeleteRkey>(&message); del && !del->response) {
        ++stats.peerDeleteRkeys;
        if (answered) ++stats.peerDeleteRkeysAnswered;
    }
}

}  // namespace smcr::core
