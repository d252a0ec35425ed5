// Protection domains and memory regions. Regions a peer may write live in
// their own shared file (d<inst>-mr<key>): a header page, then the bytes.
#include <new>

#include <unistd.h>

#include "sim_objects.h"

namespace smcr::fabric::sim {

static Status checkAccess(Access access) {
    // IBV_ACCESS_REMOTE_WRITE requires IBV_ACCESS_LOCAL_WRITE (ibv_reg_mr(3)).
    if (hasFlag(access, Access::remoteWrite) && !hasFlag(access, Access::localWrite)) {
        return fail(Errc::invalidArgument, "remote write access requires local write access");
    }
    return {};
}

Result<std::unique_ptr<MemoryRegion>> SimPd::allocateRegion(uint64_t bytes, Access access) {
    if (auto st = checkAccess(access); !st) return fail(st.error());
    if (bytes == 0) return fail(Errc::invalidArgument, "region of 0 bytes");
    if (bytes > m_core->info.limits.maxMrSizeBytes) {
        return fail(Errc::outOfResources, "region of " + std::to_string(bytes) + " bytes exceeds max_mr_size");
    }
    std::lock_guard lock(m_core->mu);
    const uint32_t key = m_core->nextMrKey++;
    const uint64_t rounded = (bytes + 4095) & ~uint64_t{4095};
    auto file = ShmFile::create(objectPath(m_core->dir, m_core->instance, "mr", key), kMrHeaderBytes + rounded);
    if (!file) return fail(file.error());
    auto* header = new (file->data()) MrShared();
    uint8_t* data = static_cast<uint8_t*>(file->data()) + kMrHeaderBytes;
    header->magic = kMagicMr;
    header->key = key;
    header->pdId = m_id;
    header->vaddr = reinterpret_cast<uint64_t>(data);
    header->length = bytes;
    header->access.store(static_cast<uint32_t>(access), std::memory_order_relaxed);
    header->valid.store(1, std::memory_order_release);
    m_core->regions[key] = LocalRegion{data, bytes, access, m_id, true};
    return std::unique_ptr<MemoryRegion>(new SimMr(m_core, key, std::move(file.value()), data, bytes, access));
}

Result<std::unique_ptr<MemoryRegion>> SimPd::registerRegion(void* addr, uint64_t bytes, Access access) {
    if (auto st = checkAccess(access); !st) return fail(st.error());
    if (addr == nullptr || bytes == 0) return fail(Errc::invalidArgument, "empty region");
    if (hasFlag(access, Access::remoteWrite) || hasFlag(access, Access::remoteRead)) {
        return fail(Errc::notSupported,
                    "sim: caller memory cannot be reached by a peer process; use allocateRegion for remote access");
    }
    std::lock_guard lock(m_core->mu);
    const uint32_t key = m_core->nextMrKey++;
    auto* data = static_cast<uint8_t*>(addr);
    m_core->regions[key] = LocalRegion{data, bytes, access, m_id, false};
    return std::unique_ptr<MemoryRegion>(new SimMr(m_core, key, ShmFile(), data, bytes, access));
}

SimMr::SimMr(std::shared_ptr<SimCore> core, uint32_t key, ShmFile file, uint8_t* data, uint64_t length, Access access)
    : m_core(std::move(core)), m_key(key), m_file(std::move(file)), m_data(data), m_length(length), m_access(access) {}

SimMr::~SimMr() {
    std::lock_guard lock(m_core->mu);
    m_core->regions.erase(m_key);
    if (m_file.valid() && !m_core->detached) {
        // Invalidate first: peers that mapped the region check `valid` on
        // every access, so the rkey is dead from here on.
        static_cast<MrShared*>(m_file.data())->valid.store(0, std::memory_order_release);
        ::unlink(objectPath(m_core->dir, m_core->instance, "mr", m_key).c_str());
    }
}

}  // namespace smcr::fabric::sim
