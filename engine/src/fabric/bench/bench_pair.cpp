#include "bench_pair.h"

#include <sched.h>

namespace smcr::fabric::bench {

SideOptions benchSideOptions(const Options& options, uint32_t maxBytes) {
    SideOptions o;
    o.backend = options.backend;
    o.open = options.open;
    o.sendWr = kTxDepth;
    o.recvWr = kRecvSlots;
    o.sendCqDepth = kTxDepth * 2;
    o.recvCqDepth = kRecvSlots * 2;
    o.sendSge = 1;
    o.inlineBytes = 220;
    o.rmbBytes = maxBytes;
    o.recvSlots = kRecvSlots;
    o.recvSlotBytes = maxBytes;
    o.srcBytes = maxBytes;
    o.pathMtu = PathMtu::mtu4096;
    return o;
}

void pinToCpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

Status runPair(bool pin, const std::function<int(int)>& server, const std::function<Status(int)>& client) {
    cpu_set_t saved;
    sched_getaffinity(0, sizeof saved, &saved);
    const bool canPin = pin && CPU_COUNT(&saved) >= 2;
    PeerProcess peer([&](int ctl) {
        if (canPin) pinToCpu(1);
        return server(ctl);
    });
    if (!peer.started()) return peer.started();
    if (canPin) pinToCpu(0);
    Status result = client(peer.fd());
    peer.closeControl();
    const int code = peer.wait(-1);
    if (canPin) sched_setaffinity(0, sizeof saved, &saved);
    if (result.ok() && code != 0) return fail(Errc::connectionAborted, "benchmark server process failed");
    return result;
}

}  // namespace smcr::fabric::bench
