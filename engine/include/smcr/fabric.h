// The fabric: one verbs-shaped interface for RDMA devices, with backends
// found by name ("sim": a simulated RNIC in shared memory between processes
// on one host; "verbs": rdma-core's libibverbs). No SMC knowledge here.
//
// Connecting two processes uses only what SMC-R's CLC messages carry
// (RFC 7609 3.3.2; see smc-protocol.md): GID (16 B), MAC (6 B), QPN (24 bit),
// PSN (24 bit), path MTU, and for memory an rkey (32 bit) plus a virtual
// address (64 bit).
//
//   side A                                   side B
//   dev = openDevice("sim")                  dev = openDevice("sim")
//   pd, cqs, qp = pd->createQp(...)          (same)
//   qp->modify(INIT: port, access)           (same)
//   pre-post receives (allowed from INIT)
//   rmb = pd->allocateRegion(64K, localWrite|remoteWrite)
//   CLC: send {ports[p].gid, ports[p].mac, qp->qpn(), sqPsn, mtu,
//              rmb->rkey(), rmb->address()}  <------>  the same from B
//   qp->modify(RTR: remoteGid/Mac, remoteQpn, rqPsn = B's sqPsn, mtu, minRnrTimer)
//   qp->modify(RTS: sqPsn, timeout, retryCnt, rnrRetry)
//   RDMA WRITE: remoteAddr = B's rmb address + offset, rkey = B's rkey
//
// How a peer's identifiers resolve:
// - verbs: the RNIC routes by GID/MAC/QPN and checks rkey + vaddr in hardware.
// - sim: a GID names one simulated device instance and port (the MAC is
//   02:<instance 4 bytes>:<port>, the GID its EUI-64 link-local form); every
//   object of an instance lives in files under the sim directory
//   (/dev/shm/smclab-sim or $SMCR_SIM_DIR): the QPN names the peer's QP file
//   (its receive ring and state), the rkey names one region file whose
//   header holds {valid, vaddr, length, access}, and the remote address is
//   the owner's virtual address of that region, so offset = addr - vaddr.
//   Deregistration clears `valid`, so a stale rkey gets REM_ACCESS_ERR.
//
// Memory: memory a peer may write (RMBs, receive buffers) must come from
// ProtectionDomain::allocateRegion, because sim needs it in a shared arena;
// registerRegion(ptr, len) over ordinary memory is fine for local-only use
// (send buffers, SGE sources) and returns notSupported on sim when remote
// access or use as a receive buffer is requested.
//
// Waiting: CompletionChannel::fd() is readable when an armed CQ of the
// channel got a matching completion (or a backend timer needs progress; a
// spurious wake-up is legal). Canonical loop (ibv_get_cq_event(3)):
//   for (;;) {
//     drain cq->poll(...);
//     if (cq->requestNotify(solicitedOnly) == missedEvents) continue;
//     epoll_wait(... channel->fd() ...);
//     auto ev = channel->getEvent(0);    // wouldBlock: spurious, loop again
//     if (ev) ev.value()->ackEvents(1);
//   }
// A backend whose work runs only inside the owner's calls (progressModel()
// ownerCalls: the sim) needs a caller in it to move timed work, such as a
// delivery after the link model's wire latency: a thread that sleeps on
// fd() itself (poll/epoll, not getEvent) bounds its sleep by nextDueNs() and
// then calls in (fabric/README.md, "Sleeping on the channel fd").
//
// Threads: every object is safe to use from several threads. Progress is
// manual: the sim executes work in postSend/poll/requestNotify/getEvent;
// no thread spins. Destroy QPs, regions and CQs before their PD, device and
// channel (verbs requires it; sim tolerates any order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <smcr/fabric_types.h>
#include <smcr/result.h>

namespace smcr::fabric {

class CompletionQueue;

// A registered memory region (ibv_mr).
class MemoryRegion {
public:
    virtual ~MemoryRegion() = default;
    virtual uint8_t* data() const = 0;     // local pointer to the first byte
    virtual uint64_t address() const = 0;  // the vaddr a peer uses in RDMA WRITE (= data() here)
    virtual uint64_t length() const = 0;
    virtual uint32_t lkey() const = 0;
    virtual uint32_t rkey() const = 0;  // 0 when no remote access was granted
    virtual Access access() const = 0;
};

// Fires getEvent() for CQs armed with requestNotify (ibv_comp_channel).
class CompletionChannel {
public:
    virtual ~CompletionChannel() = default;
    // Pollable fd (POLLIN) for poll/epoll; owned by the channel.
    virtual int fd() const = 0;
    // The fds behind fd(), for a thread that sleeps on them with poll(2):
    // fills out (room for kMaxSleepFds) and returns the count. A wake-up
    // through them skips fd()'s own epoll, one hop less at every event.
    static constexpr size_t kMaxSleepFds = 2;
    virtual size_t sleepFds(std::span<int, kMaxSleepFds> out) const {
        out[0] = fd();
        return 1;
    }
    // The CQ that fired (its arm is consumed). timeoutMs: 0 = do not block
    // (wouldBlock when nothing fired), -1 = wait forever; timedOut on expiry.
    virtual Result<CompletionQueue*> getEvent(int timeoutMs) = 0;
    // False when a getEvent(0) now would certainly find nothing, so a caller
    // draining the channel can stop without the call that says wouldBlock (a
    // syscall on most backends). True when the backend cannot tell.
    virtual bool mayHaveEvents() const { return true; }

    // A sleep without file descriptors, for a thread whose only wake sources
    // are this channel's armed CQs and wakeWordSleepers() from its own
    // process: a futex word where the backend has one (the sim), which a
    // fired CQ wakes instead of the fds. It costs what a blocking read
    // costs, where a poll over the fds costs the poll's table and the read
    // that drains them. Take the ticket under the lock that orders the
    // wakeWordSleepers() calls, sleep after letting go: a wake in between
    // ends the sleep at once.
    enum class WordSleep { woken, timedOut, eventPending };
    virtual bool canSleepOnWord() const { return false; }
    virtual uint32_t wordTicket() const { return 0; }
    // deadlineNs: CLOCK_MONOTONIC, 0 = none. eventPending: a fired CQ's
    // event waits already (nothing slept).
    virtual WordSleep sleepOnWord(uint32_t /*ticket*/, uint64_t /*deadlineNs*/) { return WordSleep::eventPending; }
    // Ends every word sleep of this channel, and one that is about to begin.
    virtual void wakeWordSleepers() {}
};

struct CqInit {
    uint32_t depth = 0;                    // minimum number of CQEs
    CompletionChannel* channel = nullptr;  // optional
    uint64_t userData = 0;                 // returned by CompletionQueue::userData()
};

class CompletionQueue {
public:
    virtual ~CompletionQueue() = default;
    virtual uint32_t depth() const = 0;
    virtual uint64_t userData() const = 0;
    // Fills up to out.size() completions, oldest first; returns the count
    // (0 = empty). After an overrun the CQ is unusable and poll fails with
    // outOfResources (IBV_EVENT_CQ_ERR).
    virtual Result<size_t> poll(std::span<WorkCompletion> out) = 0;
    // One-shot arm. solicitedOnly: fire only for receive completions that
    // carry the SE bit, or error completions; otherwise for the next one. A
    // NEXT arm is not downgraded by a later solicited arm.
    virtual Result<NotifyResult> requestNotify(bool solicitedOnly) = 0;
    // Acknowledges events returned by CompletionChannel::getEvent.
    virtual void ackEvents(uint32_t count) = 0;
};

struct QpInit {
    CompletionQueue* sendCq = nullptr;
    CompletionQueue* recvCq = nullptr;
    QpCaps caps;          // requested; QueuePair::caps() has the actual values
    bool sigAll = false;  // every send WR generates a completion
};

// A reliable-connected queue pair (ibv_qp, IBV_QPT_RC).
class QueuePair {
public:
    virtual ~QueuePair() = default;
    virtual uint32_t qpn() const = 0;  // 24 bit
    virtual QpCaps caps() const = 0;
    virtual QpState state() const = 0;
    virtual Result<QpAttr> query() const = 0;
    // A transition with the exact masks kMaskResetToInit/kMaskInitToRtr/
    // kMaskRtrToRts, any state -> error, error/any -> reset. Anything else
    // is invalidArgument (EINVAL) and nothing changes.
    virtual Status modify(const QpAttr& attr, QpAttrMask mask) = 0;
    // Posts in order; on failure *posted (if given) counts the WRs accepted
    // before the bad one (ibv_post_send bad_wr). outOfResources when the
    // send queue is full (slots free only when a covering CQE is polled),
    // invalidArgument for bad WRs, invalidState before RTS.
    virtual Status postSend(std::span<const SendWr> wrs, size_t* posted = nullptr) = 0;
    // Allowed from INIT on (IBA C10-97.2.1); invalidState in RESET.
    virtual Status postRecv(std::span<const RecvWr> wrs, size_t* posted = nullptr) = 0;
    // Moves the QP to ERR: every outstanding and later WR completes WR_FLUSH_ERR.
    virtual Status setError() = 0;

    Status postSend(const SendWr& wr) { return postSend(std::span<const SendWr>(&wr, 1)); }
    Status postRecv(const RecvWr& wr) { return postRecv(std::span<const RecvWr>(&wr, 1)); }
};

class ProtectionDomain {
public:
    virtual ~ProtectionDomain() = default;
    // Fabric-owned registered memory, zero-filled; the only kind a peer may
    // write on every backend. rkey() != 0 when remote access was asked for.
    virtual Result<std::unique_ptr<MemoryRegion>> allocateRegion(uint64_t bytes, Access access) = 0;
    // Registers caller memory (must outlive the region). sim: local access
    // only (notSupported for remote access).
    virtual Result<std::unique_ptr<MemoryRegion>> registerRegion(void* addr, uint64_t bytes, Access access) = 0;
    virtual Result<std::unique_ptr<QueuePair>> createQp(const QpInit& init) = 0;
};

class Device {
public:
    virtual ~Device() = default;
    virtual const DeviceInfo& info() const = 0;
    virtual Result<std::unique_ptr<ProtectionDomain>> allocatePd() = 0;
    virtual Result<std::unique_ptr<CompletionChannel>> createChannel() = 0;
    virtual Result<std::unique_ptr<CompletionQueue>> createCq(const CqInit& init) = 0;

    // Who runs this device's work: the RNIC (hardware) or the owner's calls
    // (ownerCalls; the "Waiting" notes above). Fixed for the device's life.
    virtual ProgressModel progressModel() const = 0;
    // ownerCalls: when this device's earliest timed work comes due (a
    // delayed delivery or ACK, an RNR retry, a peer re-check), as the last
    // progress pass left it; CLOCK_MONOTONIC ns, 0 = none. Always 0 on
    // hardware. An ACK counts only while its send CQ is armed for the next
    // completion (fabric/README.md, "The wake rule").
    virtual uint64_t nextDueNs() = 0;
    // ownerCalls: when the owner's earliest thread asleep on the channel
    // wakes and calls in by itself (CLOCK_MONOTONIC ns; it bounded its sleep
    // by nextDueNs()). The device's own timer then wakes the channel only
    // for timed work due before that time: 0 = nobody sleeps on it, so no
    // timer at all; kNoWakePromise (the default) = the timer covers all
    // timed work. Thread-safe; no effect on hardware.
    static constexpr uint64_t kNoWakePromise = UINT64_MAX;
    virtual void setOwnerWakeNs(uint64_t ns) = 0;
    // The RNR NAKs of this device's QPs; notSupported where the backend does
    // not count them (verbs).
    virtual Result<RnrCounters> rnrCounters() const = 0;

    // fork() (engine/README.md "fork"). survivesFork: a forked child may run
    // this device on from its copy of the owner's state, because its queues
    // and memory are shared memory (sim); an RNIC's QPs and registrations
    // belong to the process that made them (verbs: no). forgetShared, in a
    // process that will never run the device again while another one does:
    // the objects it destroys from then on release only this process's
    // handles (mappings, fds) and change nothing the other process sees.
    // holdForFork/releaseAfterFork: the device's own locks, held across
    // fork() (in both processes after it), so the child's copy has none
    // held by a thread that does not exist there.
    virtual bool survivesFork() const { return false; }
    virtual void forgetShared() {}
    virtual void holdForFork() {}
    virtual void releaseAfterFork() {}
};

// ---- Registry ----------------------------------------------------------------

// Backend parameters as key=value text, so callers need no backend header:
//   sim:   link=ideal|cx4-25g|cx4lx-vf, dir=PATH, transport_timeout_ms=N, capture=FILE
//   verbs: port=N, gid_index=N
using OpenOptions = std::map<std::string, std::string>;

struct DeviceSummary {
    std::string backend;
    DeviceInfo info;
    bool live = false;  // sim: a device instance another process has open
};

struct BackendEntry {
    const char* name;
    const char* summary;
    // ok when the backend can open devices here; else why not (e.g.
    // "libibverbs not found at build time", "no RDMA device on this host").
    Status (*probe)();
    // deviceName: "" for the default device (sim: a new instance).
    Result<std::unique_ptr<Device>> (*open)(const std::string& deviceName, const OpenOptions& options);
    Result<std::vector<DeviceSummary>> (*list)();
};

std::span<const BackendEntry> backends();
const BackendEntry* findBackend(const std::string& name);

// name is "backend" or "backend:device" ("sim", "verbs", "verbs:mlx5_0").
Result<std::unique_ptr<Device>> openDevice(const std::string& name, const OpenOptions& options = {});
// Devices of every backend whose probe succeeds.
Result<std::vector<DeviceSummary>> listDevices();

}  // namespace smcr::fabric
