// Factories and probes of the built-in transports, listed by registry.cpp.
#pragma once

#include "transport.h"

namespace smclab::transports {

Availability probeTcp();
Result<std::unique_ptr<Transport>> createTcp(const TransportOptions& options);

Availability probeKsmc();
Result<std::unique_ptr<Transport>> createKsmc(const TransportOptions& options);

Availability probeSmcr();
Result<std::unique_ptr<Transport>> createSmcr(const TransportOptions& options);

}  // namespace smclab::transports
