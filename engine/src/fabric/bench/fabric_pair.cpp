#include "fabric_pair.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace smcr::fabric::bench {

FabricSide::~FabricSide() {
    // Children before parents, as verbs requires.
    qp.reset();
    rmb.reset();
    recv.reset();
    src.reset();
    sendCq.reset();
    recvCq.reset();
    channel.reset();
    pd.reset();
    dev.reset();
}

Status FabricSide::setup(const SideOptions& options) {
    opt = options;
    auto d = openDevice(opt.backend, opt.open);
    if (!d) return fail(d.error());
    dev = std::move(d.value());
    auto p = dev->allocatePd();
    if (!p) return fail(p.error());
    pd = std::move(p.value());
    auto ch = dev->createChannel();
    if (!ch) return fail(ch.error());
    channel = std::move(ch.value());
    auto scq = dev->createCq(CqInit{opt.sendCqDepth, channel.get(), 1});
    if (!scq) return fail(scq.error());
    sendCq = std::move(scq.value());
    auto rcq = dev->createCq(CqInit{opt.recvCqDepth, channel.get(), 2});
    if (!rcq) return fail(rcq.error());
    recvCq = std::move(rcq.value());
    QpInit init;
    init.sendCq = sendCq.get();
    init.recvCq = recvCq.get();
    // A device that knows its inline limit only per QP (verbs: 0 until the
    // QP exists) gets the ask as it is; the provider then grants or refuses it.
    const uint32_t inlineLimit = dev->info().limits.maxInlineBytes;
    const uint32_t inlineBytes = inlineLimit == 0 ? opt.inlineBytes : std::min(opt.inlineBytes, inlineLimit);
    init.caps = QpCaps{opt.sendWr, opt.recvWr, opt.sendSge, 1, inlineBytes};
    auto q = pd->createQp(init);
    if (!q) return fail(q.error());
    qp = std::move(q.value());
    auto r = pd->allocateRegion(opt.rmbBytes, opt.rmbAccess);
    if (!r) return fail(r.error());
    rmb = std::move(r.value());
    auto rb = pd->allocateRegion(uint64_t{opt.recvSlotBytes} * opt.recvSlots, Access::localWrite);
    if (!rb) return fail(rb.error());
    recv = std::move(rb.value());
    auto s = pd->allocateRegion(opt.srcBytes, Access::localWrite);
    if (!s) return fail(s.error());
    src = std::move(s.value());
    QpAttr attr;
    attr.state = QpState::init;
    attr.port = 1;
    attr.accessFlags = opt.qpAccess;
    psn = static_cast<uint32_t>(getpid()) * 2654435761u & kPsnMask;
    return qp->modify(attr, kMaskResetToInit);
}

Endpoint FabricSide::local() const {
    Endpoint ep;
    ep.gid = dev->info().ports[0].gid;
    ep.mac = dev->info().ports[0].mac;
    ep.qpn = qp->qpn();
    ep.psn = psn;
    ep.rkey = rmb->rkey();
    ep.vaddr = rmb->address();
    ep.rmbBytes = rmb->length();
    return ep;
}

Status FabricSide::connect(const Endpoint& peer) {
    QpAttr attr;
    attr.state = QpState::rtr;
    attr.remoteGid = peer.gid;
    attr.remoteMac = peer.mac;
    attr.remoteQpn = peer.qpn;
    attr.rqPsn = peer.psn;
    attr.pathMtu = std::min(opt.pathMtu, dev->info().ports[0].activeMtu);
    attr.minRnrTimer = opt.minRnrTimer;
    attr.maxDestRdAtomic = 1;
    if (auto st = qp->modify(attr, kMaskInitToRtr); !st) return st;
    attr.state = QpState::rts;
    attr.sqPsn = psn;
    attr.timeout = opt.timeout;
    attr.retryCnt = opt.retryCnt;
    attr.rnrRetry = opt.rnrRetry;
    attr.maxRdAtomic = 1;
    return qp->modify(attr, kMaskRtrToRts);
}

Status FabricSide::postRecvs(uint32_t count, uint64_t firstId) {
    for (uint64_t id = firstId; id < firstId + count; ++id) {
        RecvWr wr;
        wr.wrId = id;
        wr.numSge = 1;
        wr.sg[0] = Sge{recv->address() + (id % opt.recvSlots) * opt.recvSlotBytes, opt.recvSlotBytes, recv->lkey()};
        if (auto st = qp->postRecv(wr); !st) return st;
    }
    return {};
}

Status FabricSide::exchangeAndConnect(int ctl, bool first) {
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

bool recvAll(int fd, void* data, size_t len, int timeoutMs) {
    if (timeoutMs >= 0) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, timeoutMs) != 1) return false;
    }
    return ::recv(fd, data, len, MSG_WAITALL) == static_cast<ssize_t>(len);
}

PeerProcess::PeerProcess(const std::function<int(int)>& child) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        m_started = fail(makeSystemError("socketpair", errno));
        return;
    }
    std::fflush(nullptr);
    m_pid = fork();
    if (m_pid < 0) {
        m_started = fail(makeSystemError("fork", errno));
        ::close(fds[0]);
        ::close(fds[1]);
        return;
    }
    if (m_pid == 0) {
        ::close(fds[0]);
        const int code = child(fds[1]);
        std::fflush(nullptr);
        _exit(code);
    }
    ::close(fds[1]);
    m_fd = fds[0];
}

PeerProcess::~PeerProcess() {
    if (m_pid > 0) wait(2000);
    closeControl();
}

void PeerProcess::closeControl() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
}

int PeerProcess::wait(int timeoutMs) {
    if (m_pid <= 0) return -1;
    int status = 0;
    if (timeoutMs < 0) {
        waitpid(m_pid, &status, 0);
    } else {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (waitpid(m_pid, &status, WNOHANG) != m_pid) {
            if (std::chrono::steady_clock::now() > end) {
                kill(m_pid, SIGKILL);
                waitpid(m_pid, &status, 0);
                m_pid = -1;
                return -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    m_pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace smcr::fabric::bench
