#include "peer_map.h"

#include <fcntl.h>
#include <unistd.h>

namespace smcr::fabric::sim {

PeerMap::~PeerMap() {
    for (auto& [key, fd] : m_fifos) {
        if (fd >= 0) ::close(fd);
    }
}

DeviceShared* PeerMap::device(uint32_t instance) {
    auto it = m_devices.find(instance);
    if (it == m_devices.end()) {
        auto file = ShmFile::open(devicePath(m_dir, instance), true);
        if (!file || file->size() < sizeof(DeviceShared)) return nullptr;
        auto* shared = static_cast<DeviceShared*>(file->data());
        if (shared->magic != kMagicDevice || shared->version != kLayoutVersion) return nullptr;
        it = m_devices.emplace(instance, RemoteDevice{std::move(file.value()), 0, false}).first;
    }
    return static_cast<DeviceShared*>(it->second.file.data());
}

bool PeerMap::deviceAlive(uint32_t instance, uint64_t nowNs) {
    DeviceShared* shared = device(instance);
    if (shared == nullptr) return false;
    RemoteDevice& remote = m_devices[instance];
    if (remote.dead) return false;
    if (shared->alive.load(std::memory_order_acquire) == 0) {
        remote.dead = true;
        return false;
    }
    if (nowNs - remote.lastProbeNs >= 1000000) {
        remote.lastProbeNs = nowNs;
        if (!deviceFileLocked(remote.file.fd())) remote.dead = true;
    }
    return !remote.dead;
}

template <typename T>
T* PeerMap::lookup(std::unordered_map<uint64_t, ShmFile>& cache, uint32_t instance, const char* kind, uint32_t id,
                   uint32_t magic) {
    const uint64_t key = keyOf(instance, id);
    auto it = cache.find(key);
    if (it != cache.end()) {
        auto* object = static_cast<T*>(it->second.data());
        return object;
    }
    auto file = ShmFile::open(objectPath(m_dir, instance, kind, id));
    if (!file || file->size() < sizeof(T)) return nullptr;
    auto* object = static_cast<T*>(file->data());
    if (object->magic != magic) return nullptr;
    cache.emplace(key, std::move(file.value()));
    return object;
}

QpShared* PeerMap::qp(uint32_t instance, uint32_t qpn) {
    return lookup<QpShared>(m_qps, instance, "qp", qpn, kMagicQp);
}

CqShared* PeerMap::cq(uint32_t instance, uint32_t id) {
    return lookup<CqShared>(m_cqs, instance, "cq", id, kMagicCq);
}

MrShared* PeerMap::mr(uint32_t instance, uint32_t key) {
    // A deregistered region stays mapped (callers cache the pointer); its
    // cleared `valid` flag is what fails the access.
    return lookup<MrShared>(m_mrs, instance, "mr", key, kMagicMr);
}

int PeerMap::fifo(uint32_t instance, uint32_t channelId) {
    const uint64_t key = keyOf(instance, channelId);
    auto it = m_fifos.find(key);
    if (it != m_fifos.end()) return it->second;
    // O_RDWR, not O_WRONLY: holding a read end too, a write never meets a FIFO
    // without readers (an owner that ended), so it never raises SIGPIPE and
    // the wake needs no signal-mask syscalls around it (cq_ring.cpp). A dead
    // owner's FIFO fills to the pipe's size and then answers EAGAIN.
    const int fd = ::open(objectPath(m_dir, instance, "ch", channelId).c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) m_fifos.emplace(key, fd);
    return fd;
}

ChannelWake PeerMap::wake(uint32_t instance, const CqShared* cq) {
    DeviceShared* dev = device(instance);
    ChannelWake out;
    out.counters = dev != nullptr ? &dev->counters : nullptr;
    if (cq == nullptr || cq->channelId == 0) return out;
    out.fifoFd = fifo(instance, cq->channelId);
    out.word = channelWord(dev, cq->channelId);
    return out;
}

}  // namespace smcr::fabric::sim
