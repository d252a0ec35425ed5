// What this host can do, for hello.capabilities: CPU, kernel (uname), NICs,
// RDMA devices (sysfs), the engine's fabrics, the transports' probes and the
// workload registry. Probed once at start-up (cheap: sysfs and /proc reads).
#pragma once

#include "protocol/hello.h"

namespace smclab::daemon {

protocol::Capabilities probeCapabilities(const protocol::AgentLimits& limits);

// RDMA devices under `sysfsRoot` (normally /sys/class/infiniband); empty when
// the directory does not exist.
QList<protocol::RdmaDevice> probeRdmaDevices(const QString& sysfsRoot = "/sys/class/infiniband");

}  // namespace smclab::daemon
