// Opening a simulated device instance and its device-level services.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "clock.h"
#include "sim_objects.h"

namespace smcr::fabric::sim {

SimCore::~SimCore() {
    if (!detached && shared != nullptr) shared->alive.store(0, std::memory_order_release);
    if (!detached && instance != 0) ::unlink(devicePath(dir, instance).c_str());
    if (timerFd >= 0) ::close(timerFd);
}

const LocalRegion* SimCore::findRegion(uint32_t lkey) const {
    auto it = regions.find(lkey);
    return it == regions.end() ? nullptr : &it->second;
}

void SimCore::progressLocked() {
    // Busy pollers call this on every poll: the clock is read only when
    // some work request carries a time.
    LazyClock clock;
    uint64_t due = 0;
    for (auto& [qpn, qp] : qps) {
        if (qp->idleLocked()) continue;
        const uint64_t next = qp->progressLocked(clock);
        if (next != 0 && (due == 0 || next < due)) due = next;
    }
    nextDueNs = due;
    if (due != 0) armTimerLocked(due);
}

Status SimCore::ensureTimerLocked() {
    if (timerFd >= 0) return {};
    timerFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timerFd < 0) return fail(makeSystemError("timerfd_create", errno));
    return {};
}

void SimCore::armTimerLocked(uint64_t deadlineNs) {
    // Only a sleeper needs the timer, and one arms a CQ before sleeping;
    // busy pollers make progress anyway and skip the (slow, on VMs) syscall.
    if (timerFd < 0 || channels.empty()) return;
    // A sleeper of the owner wakes by then anyway (it bounded its sleep by
    // nextDueNs) and its call runs the work: no system call for it.
    if (deadlineNs >= ownerWakeNs.load(std::memory_order_acquire)) return;
    if (!std::any_of(channels.begin(), channels.end(), [](SimChannel* c) { return c->anyArmed(); })) return;
    // A thread asleep on a channel's word does not see the timer: it
    // bounded its sleep by the due times it knew, and this one is earlier
    // (another thread posted it). Woken, it sleeps again bounded by this
    // one too (the owner's wake promise then covers it, and later work
    // returns above). Before the check below: a timer that fired unread
    // would otherwise keep it asleep.
    for (SimChannel* channel : channels) channel->nudgeWordSleepers();
    // Leave an earlier arm alone, pending or already fired: the timer is
    // readable by then, and the waiter it wakes reads it (SimChannel::getEvent
    // clears timerArmedNs) and makes progress, which arms for the next due
    // time. Re-arming for every delayed work request instead cost a system
    // call per request: a fifth of a busy kv server's CPU on cx4-25g.
    if (timerArmedNs != 0 && timerArmedNs <= deadlineNs) return;
    const uint64_t now = nowNs();
    itimerspec spec{};
    const uint64_t at = deadlineNs > now ? deadlineNs : now + 1000;
    spec.it_value.tv_sec = static_cast<time_t>(at / 1000000000ull);
    spec.it_value.tv_nsec = static_cast<long>(at % 1000000000ull);
    timerfd_settime(timerFd, TFD_TIMER_ABSTIME, &spec, nullptr);
    timerArmedNs = at;
}

SimDevice::~SimDevice() = default;

void SimDevice::forgetShared() {
    std::lock_guard lock(m_core->mu);
    m_core->detached = true;
}

Result<std::unique_ptr<ProtectionDomain>> SimDevice::allocatePd() {
    std::lock_guard lock(m_core->mu);
    return std::unique_ptr<ProtectionDomain>(new SimPd(m_core, m_core->nextPdId++));
}

Result<std::unique_ptr<CompletionChannel>> SimDevice::createChannel() {
    std::unique_ptr<SimChannel> channel;
    {
        std::lock_guard lock(m_core->mu);
        if (auto st = m_core->ensureTimerLocked(); !st) return fail(st.error());
        channel = std::make_unique<SimChannel>(m_core, m_core->nextChannelId++);
    }
    if (auto st = channel->open(); !st) return fail(st.error());
    return std::unique_ptr<CompletionChannel>(std::move(channel));
}

Result<std::unique_ptr<CompletionQueue>> SimDevice::createCq(const CqInit& init) {
    if (init.depth == 0 || init.depth > m_core->info.limits.maxCqe) {
        return fail(Errc::invalidArgument, "CQ depth " + std::to_string(init.depth) + " outside 1.." +
                                               std::to_string(m_core->info.limits.maxCqe));
    }
    auto* channel = dynamic_cast<SimChannel*>(init.channel);
    if (init.channel != nullptr && channel == nullptr) {
        return fail(Errc::invalidArgument, "completion channel belongs to another backend");
    }
    std::lock_guard lock(m_core->mu);
    const uint32_t id = m_core->nextCqId++;
    auto file = ShmFile::create(objectPath(m_core->dir, m_core->instance, "cq", id), cqFileBytes(init.depth));
    if (!file) return fail(file.error());
    initCq(static_cast<CqShared*>(file->data()), init.depth, channel != nullptr ? channel->id() : 0);
    auto cq = std::make_unique<SimCq>(m_core, id, std::move(file.value()), channel, init.userData);
    if (channel != nullptr) channel->attach(cq.get());
    return std::unique_ptr<CompletionQueue>(std::move(cq));
}

SimCounters SimDevice::counters() const {
    const SharedCounters& c = m_core->shared->counters;
    SimCounters out;
    out.rdmaWrites = c.rdmaWrites.load();
    out.sends = c.sends.load();
    out.recvs = c.recvs.load();
    out.rnrNaksSent = c.rnrNaksSent.load();
    out.rnrNaksReceived = c.rnrNaksReceived.load();
    out.retryExceeded = c.retryExceeded.load();
    out.remoteAccessErrors = c.remoteAccessErrors.load();
    out.cqEvents = c.cqEvents.load();
    out.bytesWritten = c.bytesWritten.load();
    out.bytesSent = c.bytesSent.load();
    return out;
}

Result<RnrCounters> SimDevice::rnrCounters() const {
    const SharedCounters& c = m_core->shared->counters;
    return RnrCounters{c.rnrNaksSent.load(), c.rnrNaksReceived.load()};
}

Status SimDevice::injectFault(QueuePair& qp, Fault fault, uint64_t value) {
    auto* simQp = dynamic_cast<SimQp*>(&qp);
    if (simQp == nullptr) return fail(Errc::invalidArgument, "queue pair belongs to another backend");
    std::lock_guard lock(m_core->mu);
    return simQp->injectLocked(fault, value);
}

Status SimDevice::setCapture(const std::string& pcapPath) {
    std::unique_ptr<Capture> capture;
    if (!pcapPath.empty()) {
        auto opened = Capture::open(pcapPath);
        if (!opened) return fail(opened.error());
        capture = std::move(opened.value());
    }
    std::lock_guard lock(m_core->mu);
    m_core->capture = std::move(capture);
    return {};
}

void SimDevice::progress() {
    std::lock_guard lock(m_core->mu);
    m_core->progressLocked();
}

uint64_t SimDevice::nextDueNs() {
    std::lock_guard lock(m_core->mu);
    return m_core->nextDueNs;
}

static DeviceInfo makeInfo(uint32_t instance, const LinkModel& link) {
    DeviceInfo info;
    char name[24];
    std::snprintf(name, sizeof name, "sim-%08x", instance);
    info.name = name;
    info.backend = "sim";
    for (uint8_t port = 1; port <= kSimPorts; ++port) {
        PortInfo p;
        p.portNum = port;
        p.active = true;
        p.gid = simGid(instance, port);
        p.gidIndex = 0;
        p.gidType = GidType::roceV1;
        p.mac = simMac(instance, port);
        p.activeMtu = link.mtu;
        info.ports.push_back(p);
    }
    info.limits.maxQp = 4096;
    info.limits.maxQpWr = 8192;
    info.limits.maxSge = kMaxSge;
    info.limits.maxInlineBytes = kSimMaxInline;
    info.limits.maxCq = 4096;
    info.limits.maxCqe = 65536;
    info.limits.maxMr = 1u << 20;
    info.limits.maxMrSizeBytes = 1ull << 32;
    char text[160];
    std::snprintf(text, sizeof text, "link %s: one-way %.2f us, %s, mtu %u, per-WR %llu ns", link.name.c_str(),
                  static_cast<double>(link.wireLatencyNs) / 1000.0,
                  link.bandwidthGbps > 0 ? (std::to_string(link.bandwidthGbps).substr(0, 5) + " Gbit/s").c_str()
                                         : "unlimited bandwidth",
                  mtuBytes(link.mtu), static_cast<unsigned long long>(link.perWrNs));
    info.description = text;
    return info;
}

Result<std::unique_ptr<Device>> openSimDevice(const SimConfig& config) {
    const std::string dir = simDir(config.dir);
    if (auto st = ensureDir(dir); !st) return fail(st.error());
    sweepStaleDevices(dir);

    auto core = std::make_shared<SimCore>(dir);
    core->config = config;
    std::random_device entropy;
    for (int attempt = 0; attempt < 64 && core->instance == 0; ++attempt) {
        const uint32_t instance = entropy();
        if (instance == 0) continue;
        // Create under a temporary name, lock, then publish with link(): a
        // sweeper never sees an unlocked device file.
        const std::string tmp = dir + "/.new-" + std::to_string(getpid()) + "-" + std::to_string(instance);
        auto file = ShmFile::create(tmp, sizeof(DeviceShared), true);
        if (!file) return fail(file.error());
        if (flock(file->fd(), LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            ::unlink(tmp.c_str());
            return fail(makeSystemError("flock " + tmp, err));
        }
        const int linked = ::link(tmp.c_str(), devicePath(dir, instance).c_str());
        const int err = errno;
        ::unlink(tmp.c_str());
        if (linked != 0) {
            if (err == EEXIST) continue;
            return fail(makeSystemError("link " + devicePath(dir, instance), err));
        }
        core->instance = instance;
        core->deviceFile = std::move(file.value());
    }
    if (core->instance == 0) return fail(Errc::outOfResources, "no free sim device instance id");

    auto* shared = new (core->deviceFile.data()) DeviceShared();
    shared->magic = kMagicDevice;
    shared->version = kLayoutVersion;
    shared->instance = core->instance;
    shared->pid = getpid();
    shared->mtuEnum = static_cast<uint32_t>(config.link.mtu);
    shared->wireLatencyNs = config.link.wireLatencyNs;
    shared->bandwidthGbps = config.link.bandwidthGbps;
    shared->perWrNs = config.link.perWrNs;
    std::snprintf(shared->linkName, sizeof shared->linkName, "%s", config.link.name.c_str());
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    shared->openedAtUnixNs = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
    shared->alive.store(1, std::memory_order_release);
    core->shared = shared;
    core->info = makeInfo(core->instance, config.link);
    core->nextQpn = 0x100 + ((core->instance >> 4) & 0xfff) * 16;

    std::string capturePath = config.capturePath;
    if (capturePath.empty()) {
        if (const char* env = std::getenv("SMCR_CAPTURE"); env != nullptr) capturePath = env;
    }
    auto device = std::make_unique<SimDevice>(core);
    if (!capturePath.empty()) {
        if (auto st = device->setCapture(capturePath); !st) return fail(st.error());
    }
    return std::unique_ptr<Device>(std::move(device));
}

SimControl* simControl(Device& device) {
    return dynamic_cast<SimDevice*>(&device);
}

}  // namespace smcr::fabric::sim
