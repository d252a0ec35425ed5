#include "fd_limit.h"

namespace smclab::daemon {

FdLimit raiseFdLimit() {
    FdLimit out;
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return out;
    out.before = out.now = limit.rlim_cur;
    if (limit.rlim_cur == limit.rlim_max) return out;
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return out;
    out.now = limit.rlim_cur;
    out.raised = true;
    return out;
}

}  // namespace smclab::daemon
