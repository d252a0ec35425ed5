// Test support for the fabric conformance suite: one side of a connection
// (device, PD, CQs, channel, RC QP, regions) and a forked peer process with a
// control socket, so every scenario runs across two processes and connects
// with only what SMC-R's CLC carries (GID, MAC, QPN, PSN, MTU, rkey, vaddr).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <smcr/fabric.h>
#include <smcr/fabric_sim.h>

namespace fabrictest {

using namespace smcr::fabric;

inline std::string backendName() {
    const char* env = std::getenv("SMCLAB_FABRIC_BACKEND");
    return env != nullptr && *env != '\0' ? env : "sim";
}

// What one side tells the other (the CLC subset).
struct Endpoint {
    Gid gid{};
    Mac mac{};
    uint32_t qpn = 0;
    uint32_t psn = 0;
    uint32_t rkey = 0;
    uint64_t vaddr = 0;
    uint64_t rmbBytes = 0;
};

struct SideOptions {
    OpenOptions open;
    uint32_t sendWr = 16;
    uint32_t recvWr = 16;
    uint32_t cqDepth = 64;
    uint32_t inlineBytes = 64;
    uint64_t rmbBytes = 64 * 1024;
    Access rmbAccess = Access::localWrite | Access::remoteWrite;
    Access qpAccess = Access::localWrite | Access::remoteWrite;
    uint8_t minRnrTimer = 5;
    uint8_t rnrRetry = 7;
    uint8_t retryCnt = 7;
    uint8_t timeout = 15;
};

struct Side {
    std::unique_ptr<Device> dev;
    std::unique_ptr<ProtectionDomain> pd;
    std::unique_ptr<CompletionChannel> channel;
    std::unique_ptr<CompletionQueue> sendCq;
    std::unique_ptr<CompletionQueue> recvCq;
    std::unique_ptr<QueuePair> qp;
    std::unique_ptr<MemoryRegion> rmb;   // the peer writes here
    std::unique_ptr<MemoryRegion> recv;  // receive buffers (64 x 256 B)
    std::unique_ptr<MemoryRegion> src;   // local source data
    SideOptions opt;
    uint32_t psn = 0;

    ~Side() {
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

    smcr::Status setup(const SideOptions& options) {
        opt = options;
        auto d = openDevice(backendName(), opt.open);
        if (!d) return smcr::fail(d.error());
        dev = std::move(d.value());
        auto p = dev->allocatePd();
        if (!p) return smcr::fail(p.error());
        pd = std::move(p.value());
        auto ch = dev->createChannel();
        if (!ch) return smcr::fail(ch.error());
        channel = std::move(ch.value());
        auto scq = dev->createCq(CqInit{opt.cqDepth, channel.get(), 1});
        if (!scq) return smcr::fail(scq.error());
        sendCq = std::move(scq.value());
        auto rcq = dev->createCq(CqInit{opt.cqDepth, channel.get(), 2});
        if (!rcq) return smcr::fail(rcq.error());
        recvCq = std::move(rcq.value());
        QpInit init;
        init.sendCq = sendCq.get();
        init.recvCq = recvCq.get();
        init.caps = QpCaps{opt.sendWr, opt.recvWr, 2, 1, opt.inlineBytes};
        auto q = pd->createQp(init);
        if (!q) return smcr::fail(q.error());
        qp = std::move(q.value());
        auto r = pd->allocateRegion(opt.rmbBytes, opt.rmbAccess);
        if (!r) return smcr::fail(r.error());
        rmb = std::move(r.value());
        auto rb = pd->allocateRegion(64 * 256, Access::localWrite);
        if (!rb) return smcr::fail(rb.error());
        recv = std::move(rb.value());
        auto s = pd->allocateRegion(1 << 20, Access::localWrite);
        if (!s) return smcr::fail(s.error());
        src = std::move(s.value());
        QpAttr attr;
        attr.state = QpState::init;
        attr.port = 1;
        attr.accessFlags = opt.qpAccess;
        if (auto st = qp->modify(attr, kMaskResetToInit); !st) return st;
        psn = static_cast<uint32_t>(getpid() * 7919u) & kPsnMask;
        return {};
    }

    Endpoint local() const {
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

    smcr::Status connect(const Endpoint& peer) {
        QpAttr attr;
        attr.state = QpState::rtr;
        attr.remoteGid = peer.gid;
        attr.remoteMac = peer.mac;
        attr.remoteQpn = peer.qpn;
        attr.rqPsn = peer.psn;
        attr.pathMtu = std::min(PathMtu::mtu1024, dev->info().ports[0].activeMtu);
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

    smcr::Status postRecvs(uint32_t count, uint64_t firstId = 0) {
        for (uint32_t i = 0; i < count; ++i) {
            RecvWr wr;
            wr.wrId = firstId + i;
            wr.numSge = 1;
            const uint64_t slot = (firstId + i) % 64;
            wr.sg[0] = Sge{recv->address() + slot * 256, 256, recv->lkey()};
            if (auto st = qp->postRecv(wr); !st) return st;
        }
        return {};
    }

    SendWr sendWr(uint64_t id, const void* data, uint32_t len, SendFlags flags) {
        SendWr wr;
        wr.wrId = id;
        wr.opcode = WrOpcode::send;
        wr.flags = flags;
        if (len > 0) {
            if (hasFlag(flags, SendFlags::inlineData)) {
                wr.sg[0] = Sge{reinterpret_cast<uint64_t>(data), len, 0};
            } else {
                std::memcpy(src->data(), data, len);
                wr.sg[0] = Sge{src->address(), len, src->lkey()};
            }
            wr.numSge = 1;
        }
        return wr;
    }

    SendWr writeWr(uint64_t id, const Endpoint& peer, uint64_t offset, uint32_t len, SendFlags flags) {
        SendWr wr;
        wr.wrId = id;
        wr.opcode = WrOpcode::rdmaWrite;
        wr.flags = flags;
        wr.sg[0] = Sge{src->address(), len, src->lkey()};
        wr.numSge = len > 0 ? 1 : 0;
        wr.remoteAddr = peer.vaddr + offset;
        wr.rkey = peer.rkey;
        return wr;
    }

    // Polls without sleeping (latency measurements); yields so that a busy
    // host still schedules the peer.
    bool spinOne(CompletionQueue& cq, WorkCompletion* wc, int timeoutMs = 5000) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        for (;;) {
            auto n = cq.poll(std::span<WorkCompletion>(wc, 1));
            if (!n) return false;
            if (n.value() == 1) return true;
            if (std::chrono::steady_clock::now() > end) return false;
            std::this_thread::yield();
        }
    }

    // Polls until one completion arrives or timeoutMs passes.
    bool pollOne(CompletionQueue& cq, WorkCompletion* wc, int timeoutMs = 5000) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (std::chrono::steady_clock::now() < end) {
            auto n = cq.poll(std::span<WorkCompletion>(wc, 1));
            if (!n) return false;
            if (n.value() == 1) return true;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        return false;
    }
};

// ---- control socket between the two processes ----

inline bool sendBytes(int fd, const void* data, size_t len) {
    return ::send(fd, data, len, MSG_NOSIGNAL) == static_cast<ssize_t>(len);
}
inline bool recvBytes(int fd, void* data, size_t len, int timeoutMs = 10000) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeoutMs) != 1) return false;
    return ::recv(fd, data, len, MSG_WAITALL) == static_cast<ssize_t>(len);
}
template <typename T>
bool sendValue(int fd, const T& value) {
    return sendBytes(fd, &value, sizeof value);
}
template <typename T>
bool recvValue(int fd, T* value, int timeoutMs = 10000) {
    return recvBytes(fd, value, sizeof *value, timeoutMs);
}
inline bool signal(int fd, uint32_t code = 1) {
    return sendValue(fd, code);
}
inline bool waitSignal(int fd, uint32_t* code = nullptr, int timeoutMs = 10000) {
    uint32_t value = 0;
    if (!recvValue(fd, &value, timeoutMs)) return false;
    if (code != nullptr) *code = value;
    return true;
}

// The child reports a failed check on stderr and exits non-zero.
#define PEER_CHECK(cond)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::fprintf(stderr, "peer %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            std::fflush(stderr);                                                               \
            _exit(3);                                                                          \
        }                                                                                      \
    } while (0)

// Forks a peer that runs `child(ctl)` and exits with its return value; the
// caller runs the parent half with its own control fd, then collects the
// peer's status (-1 when it had to be killed).
class PeerProcess {
public:
    explicit PeerProcess(const std::function<int(int)>& child) {
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return;
        std::fflush(nullptr);
        m_pid = fork();
        if (m_pid == 0) {
            ::close(fds[0]);
            const int code = child(fds[1]);
            std::fflush(nullptr);
            _exit(code);
        }
        ::close(fds[1]);
        m_fd = fds[0];
    }
    ~PeerProcess() {
        if (m_pid > 0) wait(2000);
        if (m_fd >= 0) ::close(m_fd);
    }
    int fd() const { return m_fd; }
    pid_t pid() const { return m_pid; }
    // The child's exit code, or -1 when it did not end in time (then killed).
    int wait(int timeoutMs = 10000) {
        if (m_pid <= 0) return -1;
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        int status = 0;
        for (;;) {
            const pid_t r = waitpid(m_pid, &status, WNOHANG);
            if (r == m_pid) break;
            if (std::chrono::steady_clock::now() > end) {
                kill(m_pid, SIGKILL);
                waitpid(m_pid, &status, 0);
                m_pid = -1;
                return -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        m_pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

private:
    pid_t m_pid = -1;
    int m_fd = -1;
};

}  // namespace fabrictest
