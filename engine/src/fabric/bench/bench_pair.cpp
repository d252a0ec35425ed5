#include "bench_pair.h"

#include <cerrno>
#include <cstdio>

#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace smcr::fabric::bench {

BenchSide::~BenchSide() {
    qp.reset();
    buf.reset();
    recv.reset();
    src.reset();
    sendCq.reset();
    recvCq.reset();
    channel.reset();
    pd.reset();
    dev.reset();
}

Status BenchSide::open(const Options& options, uint32_t maxBytes) {
    auto d = openDevice(options.backend, options.open);
    if (!d) return fail(d.error());
    dev = std::move(d.value());
    auto p = dev->allocatePd();
    if (!p) return fail(p.error());
    pd = std::move(p.value());
    auto ch = dev->createChannel();
    if (!ch) return fail(ch.error());
    channel = std::move(ch.value());
    auto scq = dev->createCq(CqInit{kTxDepth * 2, channel.get(), 1});
    if (!scq) return fail(scq.error());
    sendCq = std::move(scq.value());
    auto rcq = dev->createCq(CqInit{kRecvSlots * 2, channel.get(), 2});
    if (!rcq) return fail(rcq.error());
    recvCq = std::move(rcq.value());
    QpInit init;
    init.sendCq = sendCq.get();
    init.recvCq = recvCq.get();
    init.caps = QpCaps{kTxDepth, kRecvSlots, 1, 1, std::min<uint32_t>(220, dev->info().limits.maxInlineBytes)};
    auto q = pd->createQp(init);
    if (!q) return fail(q.error());
    qp = std::move(q.value());
    slotBytes = maxBytes;
    auto b = pd->allocateRegion(maxBytes, Access::localWrite | Access::remoteWrite);
    if (!b) return fail(b.error());
    buf = std::move(b.value());
    auto r = pd->allocateRegion(uint64_t{maxBytes} * kRecvSlots, Access::localWrite);
    if (!r) return fail(r.error());
    recv = std::move(r.value());
    auto s = pd->allocateRegion(maxBytes, Access::localWrite);
    if (!s) return fail(s.error());
    src = std::move(s.value());
    QpAttr attr;
    attr.state = QpState::init;
    attr.port = 1;
    attr.accessFlags = Access::localWrite | Access::remoteWrite;
    psn = static_cast<uint32_t>(getpid()) * 2654435761u & kPsnMask;
    return qp->modify(attr, kMaskResetToInit);
}

Endpoint BenchSide::local() const {
    Endpoint ep;
    ep.gid = dev->info().ports[0].gid;
    ep.mac = dev->info().ports[0].mac;
    ep.qpn = qp->qpn();
    ep.psn = psn;
    ep.rkey = buf->rkey();
    ep.vaddr = buf->address();
    return ep;
}

Status BenchSide::connect(const Endpoint& peer) {
    // The attributes Linux SMC-R uses (smc_ib.c): timeout 15, retry 7,
    // rnr_retry 7, min_rnr_timer 5.
    QpAttr attr;
    attr.state = QpState::rtr;
    attr.remoteGid = peer.gid;
    attr.remoteMac = peer.mac;
    attr.remoteQpn = peer.qpn;
    attr.rqPsn = peer.psn;
    attr.pathMtu = std::min(PathMtu::mtu4096, dev->info().ports[0].activeMtu);
    attr.minRnrTimer = 5;
    attr.maxDestRdAtomic = 1;
    if (auto st = qp->modify(attr, kMaskInitToRtr); !st) return st;
    attr.state = QpState::rts;
    attr.sqPsn = psn;
    attr.timeout = 15;
    attr.retryCnt = 7;
    attr.rnrRetry = 7;
    attr.maxRdAtomic = 1;
    return qp->modify(attr, kMaskRtrToRts);
}

Status BenchSide::postRecvSlot(uint64_t id) {
    RecvWr wr;
    wr.wrId = id;
    wr.numSge = 1;
    wr.sg[0] = Sge{recv->address() + (id % kRecvSlots) * slotBytes, slotBytes, recv->lkey()};
    return qp->postRecv(wr);
}

Status BenchSide::exchangeAndConnect(int ctl, bool first) {
    const Endpoint mine = local();
    Endpoint peer;
    const bool ok = first ? sendAll(ctl, &mine, sizeof mine) && recvAll(ctl, &peer, sizeof peer)
                          : recvAll(ctl, &peer, sizeof peer) && sendAll(ctl, &mine, sizeof mine);
    if (!ok) return fail(Errc::connectionAborted, "benchmark peer went away during setup");
    return connect(peer);
}

bool sendAll(int fd, const void* data, size_t len) {
    return ::send(fd, data, len, MSG_NOSIGNAL) == static_cast<ssize_t>(len);
}

bool recvAll(int fd, void* data, size_t len) {
    return ::recv(fd, data, len, MSG_WAITALL) == static_cast<ssize_t>(len);
}

void pinToCpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

Status runPair(bool pin, const std::function<int(int)>& server, const std::function<Status(int)>& client) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        return fail(makeSystemError("socketpair", errno));
    }
    cpu_set_t saved;
    sched_getaffinity(0, sizeof saved, &saved);
    const bool canPin = pin && CPU_COUNT(&saved) >= 2;
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return fail(makeSystemError("fork", errno));
    if (pid == 0) {
        ::close(fds[0]);
        if (canPin) pinToCpu(1);
        const int code = server(fds[1]);
        std::fflush(nullptr);
        _exit(code);
    }
    ::close(fds[1]);
    if (canPin) pinToCpu(0);
    Status result = client(fds[0]);
    ::close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (canPin) sched_setaffinity(0, sizeof saved, &saved);
    if (result.ok() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        return fail(Errc::connectionAborted, "benchmark server process failed");
    }
    return result;
}

}  // namespace smcr::fabric::bench
