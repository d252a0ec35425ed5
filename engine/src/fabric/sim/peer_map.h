// Mappings of other device instances' shared files, opened lazily by name
// and cached. Object ids (QPN, CQ id, region key) are never reused by an
// instance, so a cached mapping can only become dead, never wrong; the
// objects' alive/valid flags say which.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "cq_ring.h"
#include "layout.h"
#include "shm.h"

namespace smcr::fabric::sim {

class PeerMap {
public:
    explicit PeerMap(std::string dir) : m_dir(std::move(dir)) {}
    ~PeerMap();
    PeerMap(const PeerMap&) = delete;
    PeerMap& operator=(const PeerMap&) = delete;

    DeviceShared* device(uint32_t instance);
    // The owner still runs and has the device open. The lock probe is a
    // syscall, so it runs at most once per millisecond per peer.
    bool deviceAlive(uint32_t instance, uint64_t nowNs);
    QpShared* qp(uint32_t instance, uint32_t qpn);
    CqShared* cq(uint32_t instance, uint32_t id);
    MrShared* mr(uint32_t instance, uint32_t key);
    // Write end of a channel FIFO, -1 when it cannot be opened.
    int fifo(uint32_t instance, uint32_t channelId);
    // How to wake the channel of a peer's CQ (its FIFO and futex word; none
    // for a CQ without a channel) and the peer device's counters.
    ChannelWake wake(uint32_t instance, const CqShared* cq);

private:
    struct RemoteDevice {
        ShmFile file;
        uint64_t lastProbeNs = 0;
        bool dead = false;
    };
    static uint64_t keyOf(uint32_t instance, uint32_t id) { return (uint64_t{instance} << 32) | id; }
    template <typename T>
    T* lookup(std::unordered_map<uint64_t, ShmFile>& cache, uint32_t instance, const char* kind, uint32_t id,
              uint32_t magic);

    std::string m_dir;
    std::unordered_map<uint32_t, RemoteDevice> m_devices;
    std::unordered_map<uint64_t, ShmFile> m_qps;
    std::unordered_map<uint64_t, ShmFile> m_cqs;
    std::unordered_map<uint64_t, ShmFile> m_mrs;
    std::unordered_map<uint64_t, int> m_fifos;
};

}  // namespace smcr::fabric::sim
