// The kernel's own view of a ksmc run: its SMC statistics and fallback
// counters (smc_netlink.h) read when the run's transport is made and at
// every read of its counters, as differences, under the kernel's names
// (SMC_NLA_STATS_T_*, SMC_CLC_DECL_*): kernel.smcr.clnt_v2_succ_cnt,
// kernel.smcr.rx_bytes, kernel.fallback.client.PEERNOSMC, ... The
// statistics are per network namespace, so runs at once in one namespace
// see each other's connections.
#pragma once

#include <functional>

#include "transport.h"

namespace smclab::transports {

// A counter reader with the kernel's counts at this moment as its base;
// empty counters when the kernel's statistics cannot be read (no smc module).
std::function<Counters()> kernelSmcCounters();

}  // namespace smclab::transports
