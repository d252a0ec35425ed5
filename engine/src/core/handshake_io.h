// Helpers shared by the client and server handshake drivers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

#include "engine_impl.h"

namespace smcr::core {

Status sendDecline(int fd, const wire::PeerId& systemId, wire::DeclineReason reason, bool outOfSync);

// Waits (driving progress) until `flag` is set on lgr, a CLC Decline shows
// up on the TCP socket, or the timeout passes. Returns the flag.
enum class LlcWaitResult : uint8_t { seen = 0, timeout, tcpData };
LlcWaitResult waitForLlcFlag(EngineImpl& engine, std::unique_lock<std::mutex>& lock, const LinkGroup& lgr,
                             bool LinkGroup::*flag, int fd, uint64_t timeoutMs);

wire::LlcConfirmLink makeConfirmLink(const EngineImpl& engine, const LinkGroup& lgr, bool response);

fabric::PathMtu mtuFromWire(wire::IbMtu mtu);
wire::IbMtu mtuToWire(fabric::PathMtu mtu);

}  // namespace smcr::core
