// The SMC-Rv2 parts of the CLC handshake that libsmcr builds the way the
// Linux kernel does (smc_clc.c), so a kernel peer takes them: the UEID from
// lab.ueid, the v2.1 limits libsmcr proposes, and the v2 Confirm.
#pragma once

#include <cstdint>
#include <optional>

#include <smcr/settings.h>
#include <smcr/wire/clc.h>

namespace smcr::core {

class EngineImpl;

// v2.1 limits in the Proposal's v2 extension: the kernel's most
// connections per link group, and one link (a kernel server then sends no
// ADD_LINK; over rxe its second link fails).
inline constexpr uint8_t kV2MaxConns = 255;
inline constexpr uint8_t kV2MaxLinks = 1;

// lab.ueid as a wire EID (upper case, blank padded to 32), or none when unset.
std::optional<wire::Eid> ueidOf(const Settings& settings);

// Turns the v1 Confirm `confirm` into the v2 one answering `accept`: the
// negotiated EID, and on first contact the first-contact extension (the
// server's limits echoed, our host name) and the GID list with our GID.
void makeConfirmV2(const EngineImpl& engine, const wire::ClcAcceptConfirm& accept, wire::ClcAcceptConfirm& confirm);

// Server: the client offers SMC-R in v2 with `ueid` among its UEIDs (the
// kernel declines otherwise: NOUEID).
bool proposalMatchesV2(const wire::ClcProposal& proposal, const std::optional<wire::Eid>& ueid);

// Turns the v1 Accept `accept` into the v2 one answering `proposal`: our
// UEID as the EID, and on first contact the first-contact extension with
// the limits both sides take (the client's, at most ours).
void makeAcceptV2(const wire::ClcProposal& proposal, const wire::Eid& ueid, wire::ClcAcceptConfirm& accept);

}  // namespace smcr::core
