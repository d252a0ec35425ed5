#include "core/shell/handshake_v2.h"

#include <algorithm>
#include <cctype>

#include <unistd.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

namespace {

constexpr uint8_t kOsLinux = 2;  // FCE os_type: 1 z/OS, 2 Linux, 3 AIX

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
    fce.hostname.fill(' ');
    char host[64] = {};
    if (::gethostname(host, sizeof host - 1) == 0) {
        for (size_t i = 0; host[i] != '\0' && i < fce.hostname.size(); ++i) {
            fce.hostname[i] = static_cast<uint8_t>(host[i]);
        }
    }
    confirm.firstContactExt = fce;
    confirm.gidList = std::vector<wire::Gid>{engine.port().gid};
}

}  // namespace smcr::core
