// `smcr` until libsmcr's api layer exists: listed so users see it, probed as
// unavailable, and refused with a clear error.
#include "transport_factories.h"

namespace smclab::transports {

namespace {
constexpr const char* kNotBuilt = "libsmcr transport not built yet";
}

Availability probeSmcr() { return {false, kNotBuilt}; }

Result<std::unique_ptr<Transport>> createSmcr(const TransportOptions&) {
    return smcr::fail(smcr::Errc::notSupported, kNotBuilt);
}

}  // namespace smclab::transports
