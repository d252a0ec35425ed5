// Factories and probes of the built-in transports, listed by registry.cpp.
#pragma once

#include <string>

#include "sysctl_settings.h"
#include "transport.h"

namespace smclab::transports {

Availability probeTcp();
Result<std::unique_ptr<Transport>> createTcp(const TransportOptions& options);

Availability probeKsmc();
Result<std::unique_ptr<Transport>> createKsmc(const TransportOptions& options);
// ksmc's live settings: every file of the kernel's SMC sysctl directory,
// by its name (e.g. "autocorking_size" = /proc/sys/net/smc/autocorking_size).
inline constexpr const char* kKsmcSysctlDirectory = "/proc/sys/net/smc";
SettingScope ksmcSettingScope(const std::string& name);
SysctlSettings ksmcSysctls(const std::string& directory);

Availability probeSmcr();
Result<std::unique_ptr<Transport>> createSmcr(const TransportOptions& options);

}  // namespace smclab::transports
