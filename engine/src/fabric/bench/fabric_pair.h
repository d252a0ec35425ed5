// Two sides of a fabric connection in two processes: one side's objects
// (device, PD, completion channel, CQs, RC QP, regions), a forked peer with
// a control socket, and the endpoint the two swap over it, which holds only
// what SMC-R's CLC carries (GID, MAC, QPN, PSN, rkey, vaddr, RMB size). The
// perftest-like benchmarks and the fabric conformance suite both run on it,
// so a scenario connects the way SMC-R does on every backend.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <sys/types.h>

#include <smcr/fabric.h>

namespace smcr::fabric::bench {

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
    std::string backend = "sim";
    OpenOptions open;
    uint32_t sendWr = 16;
    uint32_t recvWr = 16;
    uint32_t sendCqDepth = 64;
    uint32_t recvCqDepth = 64;
    uint32_t sendSge = 2;
    uint32_t inlineBytes = 64;  // at most the device's limit
    uint64_t rmbBytes = uint64_t{64} * 1024;
    Access rmbAccess = Access::localWrite | Access::remoteWrite;
    Access qpAccess = Access::localWrite | Access::remoteWrite;
    uint32_t recvSlots = 64;  // receive buffers, posted by postRecvs()
    uint32_t recvSlotBytes = 256;
    uint64_t srcBytes = uint64_t{1} << 20;  // local source data
    PathMtu pathMtu = PathMtu::mtu1024;
    // The QP attributes Linux SMC-R uses (smc_ib.c) by default.
    uint8_t minRnrTimer = 5;
    uint8_t rnrRetry = 7;
    uint8_t retryCnt = 7;
    uint8_t timeout = 15;
};

struct FabricSide {
    std::unique_ptr<Device> dev;
    std::unique_ptr<ProtectionDomain> pd;
    std::unique_ptr<CompletionChannel> channel;
    std::unique_ptr<CompletionQueue> sendCq;
    std::unique_ptr<CompletionQueue> recvCq;
    std::unique_ptr<QueuePair> qp;
    std::unique_ptr<MemoryRegion> rmb;   // the peer RDMA-writes here
    std::unique_ptr<MemoryRegion> recv;  // recvSlots receive buffers
    std::unique_ptr<MemoryRegion> src;   // local source data
    SideOptions opt;
    uint32_t psn = 0;

    FabricSide() = default;
    FabricSide(const FabricSide&) = delete;
    FabricSide& operator=(const FabricSide&) = delete;
    ~FabricSide();

    // Opens the device and creates everything, the QP in INIT.
    Status setup(const SideOptions& options);
    Endpoint local() const;
    // INIT -> RTR -> RTS towards the peer.
    Status connect(const Endpoint& peer);
    // Posts `count` receives with ids firstId.., each into slot id % recvSlots.
    Status postRecvs(uint32_t count, uint64_t firstId = 0);
    // Swaps endpoints over the control fd (first sends first) and connects.
    Status exchangeAndConnect(int ctl, bool first);
};

// ---- the control socket between the two processes ----

bool sendAll(int fd, const void* data, size_t len);
// timeoutMs < 0 waits as long as it takes.
bool recvAll(int fd, void* data, size_t len, int timeoutMs = -1);

// Forks a peer that runs `child(ctl)` and exits with its return value; the
// caller runs its half with fd(), then collects the peer's exit code.
class PeerProcess {
public:
    explicit PeerProcess(const std::function<int(int ctl)>& child);
    PeerProcess(const PeerProcess&) = delete;
    PeerProcess& operator=(const PeerProcess&) = delete;
    ~PeerProcess();

    // Whether the socketpair and the fork worked.
    const Status& started() const { return m_started; }
    int fd() const { return m_fd; }
    pid_t pid() const { return m_pid; }
    // Closes this end of the control socket: a peer still reading it sees
    // the end instead of waiting for a caller that gave up.
    void closeControl();
    // The child's exit code, or -1 when it did not exit normally or did not
    // end within timeoutMs (then it is killed); timeoutMs < 0 has no limit.
    int wait(int timeoutMs = 10000);

private:
    pid_t m_pid = -1;
    int m_fd = -1;
    Status m_started;
};

}  // namespace smcr::fabric::bench
