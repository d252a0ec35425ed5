// The backend registry: {name, summary, probe, open, list} per backend, the
// way rdma-core lists its providers; callers choose by name.
#include "backends.h"

namespace smcr::fabric {

std::span<const BackendEntry> backends() {
    static const BackendEntry kList[] = {simBackendEntry(), verbsBackendEntry()};
    return kList;
}

const BackendEntry* findBackend(const std::string& name) {
    for (const BackendEntry& entry : backends()) {
        if (name == entry.name) return &entry;
    }
    return nullptr;
}

Result<std::unique_ptr<Device>> openDevice(const std::string& name, const OpenOptions& options) {
    const auto colon = name.find(':');
    const std::string backendName = name.substr(0, colon);
    const std::string deviceName = colon == std::string::npos ? std::string() : name.substr(colon + 1);
    const BackendEntry* entry = findBackend(backendName);
    if (entry == nullptr) {
        return fail(Errc::notFound, "no fabric backend named '" + backendName + "' (known: sim, verbs)");
    }
    if (auto st = entry->probe(); !st) return fail(st.error());
    return entry->open(deviceName, options);
}

Result<std::vector<DeviceSummary>> listDevices() {
    std::vector<DeviceSummary> all;
    for (const BackendEntry& entry : backends()) {
        if (!entry.probe()) continue;
        auto list = entry.list();
        if (!list) return fail(list.error());
        all.insert(all.end(), list->begin(), list->end());
    }
    return all;
}

}  // namespace smcr::fabric
