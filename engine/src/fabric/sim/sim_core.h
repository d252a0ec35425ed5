// State of one simulated device instance shared by all its objects. One
// mutex serialises the instance's own work; other instances (in this or
// other processes) touch its shared files only through atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <smcr/fabric_sim.h>

#include "capture.h"
#include "layout.h"
#include "peer_map.h"
#include "shm.h"

namespace smcr::fabric::sim {

class SimQp;
class SimCq;
class SimChannel;

// A region this process can use as a local SGE (lkey lookup).
struct LocalRegion {
    uint8_t* base = nullptr;
    uint64_t length = 0;
    Access access = Access::none;
    uint32_t pdId = 0;
    bool shared = false;  // file-backed (allocateRegion): usable as a receive buffer
};

struct SimCore {
    explicit SimCore(std::string directory) : dir(directory), peers(std::move(directory)) {}
    ~SimCore();

    std::mutex mu;
    std::string dir;
    SimConfig config;
    uint32_t instance = 0;
    ShmFile deviceFile;  // holds the liveness lock
    DeviceShared* shared = nullptr;
    DeviceInfo info;
    PeerMap peers;

    uint32_t nextQpn = 0x100;
    uint32_t nextCqId = 1;
    uint32_t nextMrKey = 0x1000;
    uint32_t nextChannelId = 1;
    uint32_t nextPdId = 1;
    std::map<uint32_t, SimQp*> qps;
    std::map<uint32_t, LocalRegion> regions;
    std::vector<SimChannel*> channels;
    uint64_t portBusyUntilNs[kSimPorts] = {0, 0};

    int timerFd = -1;  // RNR back-off, delayed delivery and peer timeouts
    uint64_t timerArmedNs = 0;
    uint64_t nextDueNs = 0;  // earliest timed work after the last progress pass (0 = none)
    // Device::setOwnerWakeNs: timed work due at or after it needs no timer.
    std::atomic<uint64_t> ownerWakeNs{Device::kNoWakePromise};
    std::unique_ptr<Capture> capture;
    // Device::forgetShared: another process runs this device (fork); the
    // objects' destructors leave the shared files and words alone. Under mu.
    bool detached = false;

    // Runs every QP's pending work; then arms the timer for the earliest
    // deadline when a channel may be sleeping. Caller holds mu.
    void progressLocked();
    void armTimerLocked(uint64_t deadlineNs);
    Status ensureTimerLocked();
    const LocalRegion* findRegion(uint32_t lkey) const;
};

}  // namespace smcr::fabric::sim
