#include "transport.h"
#include "transport_factories.h"

namespace smclab::transports {

namespace {

const TransportEntry kTransports[] = {
    {"tcp", "kernel TCP", probeTcp, createTcp},
    {"smcr", "SMC-R in user space (libsmcr; sim or verbs fabric)", probeSmcr, createSmcr},
    {"ksmc", "kernel SMC (AF_SMC), where the host kernel has it", probeKsmc, createKsmc},
};

}  // namespace

std::span<const TransportEntry> transportRegistry() {
    return kTransports;
}

const TransportEntry* findTransport(std::string_view name) {
    for (const TransportEntry& entry : kTransports) {
        if (name == entry.name) return &entry;
    }
    return nullptr;
}

Result<std::shared_ptr<Transport>> createTransport(std::string_view name, const TransportOptions& options) {
    const TransportEntry* entry = findTransport(name);
    if (entry == nullptr) {
        std::string known;
        for (const TransportEntry& e : kTransports) known += (known.empty() ? "" : ", ") + std::string(e.name);
        return smcr::fail(smcr::Errc::notFound, "unknown transport '" + std::string(name) + "' (known: " + known + ")");
    }
    const Availability availability = entry->probe();
    if (!availability.available) {
        return smcr::fail(smcr::Errc::notSupported, std::string(entry->name) + ": " + availability.reason);
    }
    auto made = entry->create(options);
    if (!made) return smcr::fail(made.error());
    return std::shared_ptr<Transport>(std::move(made).value());
}

}  // namespace smclab::transports
