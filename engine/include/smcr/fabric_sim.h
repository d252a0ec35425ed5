// Features of the simulated RNIC that the common fabric interface does not
// have: the link model, counters, fault injection and packet capture.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <smcr/fabric.h>

namespace smcr::fabric::sim {

// Per-device link model (all zero = as fast as memory).
struct LinkModel {
    std::string name = "ideal";
    uint64_t wireLatencyNs = 0;  // one way; added to delivery and again to the ACK
    double bandwidthGbps = 0;    // 0 = unlimited; bytes serialise per port
    PathMtu mtu = PathMtu::mtu4096;
    uint64_t perWrNs = 0;  // WQE processing per work request
};

// "ideal" (none), "cx4-25g" (two hosts over ConnectX-4 Lx 25 GbE: ~1.5 us one way,
// 25 Gbit/s) and "cx4lx-vf" (two VFs of one ConnectX-4 Lx, the datapath series'
// environment: no wire, ~0.8 us one way, 50 Gbit/s of PCIe).
Result<LinkModel> linkPreset(const std::string& name);

struct SimConfig {
    LinkModel link;
    std::string dir;  // "" = $SMCR_SIM_DIR or /dev/shm/smclab-sim
    // Time after which WRs to a dead or vanished peer complete RETRY_EXC_ERR;
    // 0 = derive from the QP's timeout and retryCnt ((retryCnt+1) * 4.096 us * 2^timeout).
    uint64_t transportTimeoutMs = 0;
    std::string capturePath;  // "" = $SMCR_CAPTURE or none
};

Result<std::unique_ptr<Device>> openSimDevice(const SimConfig& config);

// The directory that holds the sim's shared files.
std::string simDir(const std::string& configured = {});

struct SimCounters {
    uint64_t rdmaWrites = 0;
    uint64_t sends = 0;
    uint64_t recvs = 0;            // SENDs this device's QPs received
    uint64_t rnrNaksSent = 0;      // as responder: SENDs that found no receive WQE
    uint64_t rnrNaksReceived = 0;  // as requester: RNR NAKs taken (retries + final)
    uint64_t retryExceeded = 0;
    uint64_t remoteAccessErrors = 0;
    uint64_t cqEvents = 0;  // channel wake-ups produced for this device's CQs
    uint64_t bytesWritten = 0;
    uint64_t bytesSent = 0;
};

// Fault injection: each arms a one-shot (or persistent, for deadPeer) fault.
enum class Fault : uint8_t {
    invalid = 0,
    failNextPost,    // the next postSend/postRecv on the QP fails with systemError (EIO)
    dropCompletion,  // the next completion this QP would produce is lost
    qpError,         // move the QP to ERR now (async fatal error)
    delayDelivery,   // add `value` ns to the next WR's delivery time
    deadPeer,        // treat the remote side as dead from now on
};

// The sim-specific surface of a sim Device; nullptr for other backends.
class SimControl {
public:
    virtual ~SimControl() = default;
    virtual SimCounters counters() const = 0;
    virtual const LinkModel& link() const = 0;
    virtual Status injectFault(QueuePair& qp, Fault fault, uint64_t value = 0) = 0;
    // Starts (or, with "", stops) writing every SEND and RDMA WRITE as
    // RoCEv2 frames to a pcap file.
    virtual Status setCapture(const std::string& pcapPath) = 0;
    // Runs pending work (RNR retries, delayed delivery, peer timeouts) now.
    // When it next comes due: Device::nextDueNs (the sim's progress model
    // is ownerCalls, fabric.h).
    virtual void progress() = 0;
};

SimControl* simControl(Device& device);

// Parsing helpers for the sim's GID/MAC scheme (see fabric.h).
struct SimAddress {
    uint32_t instance = 0;
    uint8_t port = 0;
};
Result<SimAddress> decodeSimGid(const Gid& gid);
Gid simGid(uint32_t instance, uint8_t port);
Mac simMac(uint32_t instance, uint8_t port);

}  // namespace smcr::fabric::sim
