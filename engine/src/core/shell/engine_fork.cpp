// fork() and a running engine. The sim fabric's QPs, CQs, RMBs and send
// buffers live in shared memory (fabric/sim), so a forked child that holds
// a copy of the engine's state (taken under its lock) can run the engine on
// where the parent left it: the peer sees the same device, link group and
// connection and never learns that another process serves them. What must
// not happen is two processes running one engine (both would poll its CQs
// and post on its QPs), so before fork() an engine with open connections is
// parked (its background thread ends), and the first process that claims it
// afterwards runs it; the others' copies stay parked for good. The claim
// is one compare-and-swap on a word every process of the family maps
// (MAP_SHARED anonymous memory survives fork()), tagged with the park's
// generation so that a copy parked at an earlier fork cannot take it back.
#include <cerrno>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

namespace {

uint64_t ownerWord(uint32_t generation, int pid) {
    return (uint64_t{generation} << 32) | static_cast<uint32_t>(pid);
}

}  // namespace

Status EngineImpl::initForkOwner() {
    static std::once_flag atfork;
    std::call_once(atfork, [] { ::pthread_atfork(nullptr, nullptr, renewThreadWakeLineAfterFork); });
    void* page =
        ::mmap(nullptr, sizeof(std::atomic<uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return fail(makeSystemError("mmap fork owner", errno));
    m_forkOwner = new (page) std::atomic<uint64_t>(ownerWord(0, ::getpid()));
    m_runPid.store(::getpid(), std::memory_order_release);
    return {};
}

void EngineImpl::releaseForkOwner() {
    if (m_forkOwner != nullptr) ::munmap(m_forkOwner, sizeof(std::atomic<uint64_t>));
    m_forkOwner = nullptr;
}

bool EngineImpl::parkForFork() {
    std::unique_lock lock(m_mutex);
    bool open = false;
    for (const auto& lgr : m_linkGroups) {
        for (const auto& [token, conn] : lgr->conns) open = open || !conn->appClosed;
    }
    const int runner = m_runPid.load(std::memory_order_acquire);
    if (!open || runner <= 0 || !m_device->survivesFork()) {
        lock.release();  // held across fork(), until afterFork()
        return false;
    }
    // The background thread ends between two rounds (it holds no state of
    // its own); every other thread of the program waits at the lock.
    m_parking = true;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_bgEventFd, &one, sizeof one);
    lock.unlock();
    if (m_background.joinable()) m_background.join();
    lock.lock();
    m_parkGen = static_cast<uint32_t>(m_forkOwner->load(std::memory_order_acquire) >> 32) + 1;
    m_forkOwner->store(ownerWord(m_parkGen, 0), std::memory_order_release);
    m_parkerPid = runner;
    m_runPid.store(0, std::memory_order_release);
    // A thread of the program may be inside the device (a poller's wait
    // takes its lock without ours): the child's copy must not inherit it held.
    m_device->holdForFork();
    m_deviceHeldForFork = true;
    lock.release();
    return true;
}

void EngineImpl::afterFork() {
    // In the child too: the thread that forked holds both there.
    if (m_deviceHeldForFork) m_device->releaseAfterFork();
    m_deviceHeldForFork = false;
    m_mutex.unlock();
}

bool EngineImpl::claim(int pid) {
    if (runsIn(pid)) return true;
    std::lock_guard lock(m_mutex);
    const int runner = m_runPid.load(std::memory_order_acquire);
    if (runner != 0) return runner == pid;  // not parked: its process runs it (or discarded: -1)
    uint64_t expected = ownerWord(m_parkGen, 0);
    if (!m_forkOwner->compare_exchange_strong(expected, ownerWord(m_parkGen, pid), std::memory_order_acq_rel))
        return false;  // another process of the family has it
    // A child counts from here: what the engine did before the fork is in
    // its parent's counters already.
    if (pid != m_parkerPid) m_stats = EngineStats{};
    m_runPid.store(pid, std::memory_order_release);
    startBackgroundLocked();
    return true;
}

void EngineImpl::discard() {
    std::lock_guard lock(m_mutex);
    if (m_runPid.load(std::memory_order_acquire) != 0) return;  // only a parked copy
    m_runPid.store(-1, std::memory_order_release);              // never claimed here
    // Everything below is this process's: its fds (the TCP carriers: the
    // process that runs the engine holds its own), its mappings of the
    // device's files. The device forgets what it shares first, so the
    // destructors leave the files, the queues' states and the peers alone;
    // no epoll_ctl either (the epoll sets are the other process's too).
    m_device->forgetShared();
    for (auto& lgr : m_linkGroups) {
        for (auto& [token, conn] : lgr->conns) {
            if (conn->tcpFd >= 0) ::close(conn->tcpFd);
            conn->tcpFd = -1;
            conn->rmb = nullptr;
            conn->sndbuf = nullptr;
            conn->lgr.reset();
        }
        lgr->conns.clear();
        for (auto& link : lgr->links) link.reset();
        lgr->multi.retired.reset();
        lgr->rmbs.clear();
        lgr->sndbufs.clear();
    }
    m_linkGroups.clear();
    m_closingConns.clear();
    m_connById.clear();
    m_lgrByQpn.clear();
    m_sendCq.reset();
    m_recvCq.reset();
    m_channel.reset();
    m_pd.reset();
    m_device.reset();
    for (int* fd : {&m_bgEpollFd, &m_bgEventFd}) {
        if (*fd >= 0) ::close(*fd);
        *fd = -1;
    }
}

}  // namespace smcr::core
