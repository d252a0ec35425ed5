// The agent serves workloads with thousands of connections (the soak runs
// 1000 at once, each a TCP socket plus the engine's descriptors on both
// sides), while a service manager starts daemons with a soft limit of 1024
// open files. Like other servers that need many descriptors, the agent
// raises its soft limit to the hard limit at start; it never calls select(),
// so descriptors above 1023 are safe.
#pragma once

#include <sys/resource.h>

namespace smclab::daemon {

struct FdLimit {
    rlim_t before = 0;  // soft limit found at start
    rlim_t now = 0;     // soft limit in force afterwards
    bool raised = false;
};

// Raises RLIMIT_NOFILE's soft limit to its hard limit (best effort).
FdLimit raiseFdLimit();

}  // namespace smclab::daemon
