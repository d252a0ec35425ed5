// Registry entry used when libibverbs was not found at build time.
#include "../backends.h"

namespace smcr::fabric {

namespace {

Status probeMissing() {
    return fail(Errc::notSupported, "verbs backend not built: libibverbs was not found at build time");
}

Result<std::unique_ptr<Device>> openMissing(const std::string&, const OpenOptions&) {
    return fail(probeMissing().error());
}

Result<std::vector<DeviceSummary>> listMissing() {
    return std::vector<DeviceSummary>{};
}

}  // namespace

const BackendEntry& verbsBackendEntry() {
    static const BackendEntry kEntry{"verbs", "rdma-core libibverbs (RoCE NICs, rxe, siw)", probeMissing, openMissing,
                                     listMissing};
    return kEntry;
}

}  // namespace smcr::fabric
