// Lab hooks: sim faults armed on an engine's links, for the tests of the
// failure paths (tests/engine/test_engine_failover,
// tests/integration/test_link_robustness). The one file of the shell that
// knows the sim backend: the engine itself speaks only the fabric interface
// (fabric.h), the sim's features are its own header's (fabric_sim.h).
#pragma once

#include <cstdint>

#include <smcr/fabric_sim.h>
#include <smcr/result.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

// Applies `fault` to the QP of the link that carries the connections
// (primary) or of the added one (standby) in every link group, and lets it
// surface now rather than at the next poll. notSupported on other fabrics,
// notFound when no group has such a link.
Status injectLinkFault(EngineImpl& engine, EngineImpl::LinkSelect which, fabric::sim::Fault fault, uint64_t value = 0);

}  // namespace smcr::core
