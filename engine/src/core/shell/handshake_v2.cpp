#include "core/shell/handshake_v2.h"

#include <algorithm>
#include <cctype>

#include <unistd.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

namespace {

constexpr uint8_t kOsLinux = 2;  // FCE os_type: 1 z/OS, 2 Linux, 3 AIX

wire::Hostname hostName() {
    wire::Hostname name{};
    name.fill(' ');
    char host[64] = {};
    if (::gethostname(host, sizeof host - 1) == 0) {
        for (size_t i = 0; host[i] != '\0' && i < name.size(); ++i) name[i] = static_cast<uint8_t>(host[i]);
    }
    return name;
}

}  // namespace

std::optional<wire::Eid> ueidOf(const Settings& settings) {
    const std::string text = settings.ueid();
    if (text.empty()) return std::nullopt;
    wire::Eid eid{};
    eid.fill(' ');
    for (size_t i = 0; i < text.size() && i < eid.size(); ++i) {
        eid[i] = static_cast<uint8_t>(std::toupper(static_cast<unsigned char>(text[i])));
    }
    return eid;
}

bool proposalMatchesV2(const wire::ClcProposal& proposal, const std::optional<wire::Eid>& ueid) {
    if (!ueid || proposal.version < 2 || !proposal.v2Ext) return false;
    if (proposal.typeV2 != wire::SmcType::r && proposal.typeV2 != wire::SmcType::both) return false;
    const auto& offered = proposal.v2Ext->ueids;
    return std::find(offered.begin(), offered.end(), *ueid) != offered.end();
}

void makeAcceptV2(const wire::ClcProposal& proposal, const wire::Eid& ueid, wire::ClcAcceptConfirm& accept) {
    accept.version = 2;
    accept.eid = ueid;
    if (!accept.firstContact) return;
    wire::ClcFirstContactExt fce;
    fce.v2Direct = true;  // the lab's links: one subnet, no gateway
    fce.osType = kOsLinux;
    fce.release = std::min<uint8_t>(proposal.v2Ext->release, 1);
    // v2.1 limits: the client's offer, at most ours (a v2.0 client offers none).
    fce.maxConns = std::min(proposal.v2Ext->maxConns == 0 ? kV2MaxConns : proposal.v2Ext->maxConns, kV2MaxConns);
    fce.maxLinks = std::min(proposal.v2Ext->maxLinks == 0 ? kV2MaxLinks : proposal.v2Ext->maxLinks, kV2MaxLinks);
    fce.hostname = hostName();
    accept.firstContactExt = fce;
}

void makeConfirmV2(const EngineImpl& engine, const wire::ClcAcceptConfirm& accept, wire::ClcAcceptConfirm& confirm) {
    confirm.version = 2;
    confirm.eid = accept.eid;
    if (!accept.firstContact) return;
    wire::ClcFirstContactExt fce;
    const wire::ClcFirstContactExt offered = accept.firstContactExt.value_or(wire::ClcFirstContactExt{});
    fce.v2Direct = offered.v2Direct;
    fce.osType = kOsLinux;
    fce.release = std::min<uint8_t>(offered.release, 1);
    fce.maxConns = offered.maxConns;
    fce.maxLinks = offered.maxLinks;
    fce.hostname = hostName();
    confirm.firstContactExt = fce;
    confirm.gidList = std::vector<wire::Gid>{engine.port().gid};
}

}  // namespace smcr::core
