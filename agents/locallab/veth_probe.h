// How much TCP this host moves through a local lab's veth, measured once
// when the wire is made.
//
// A veth between two namespaces costs the host's CPUs per packet: on a small
// VM it carries a few Gbit/s, well below a 25 Gbit/s model, so a TCP column
// over it measures the host, not the modelled wire. The probe says so in the
// wire's record instead of letting a table imply the wire was the limit.
#pragma once

#include <chrono>

#include <smcr/result.h>

#include <QString>

namespace smclab::locallab {

struct VethProbe {
    double gbps = 0;                       // bytes received over the probe's time
    std::chrono::milliseconds duration{};  // how long it sent
    int writeBytes = 0;                    // size of each write
};

// Streams writes of `writeBytes` for `duration` from this namespace to a
// listener in `serverNamespace` (a name under /run/netns) at
// `serverAddress`, and returns the rate the receiver saw.
smcr::Result<VethProbe> probeVethTcp(const QString& serverNamespace, const QString& serverAddress,
                                     std::chrono::milliseconds duration, int writeBytes);

}  // namespace smclab::locallab
