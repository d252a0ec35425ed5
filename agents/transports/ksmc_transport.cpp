// `ksmc`: the kernel's own SMC (net/smc). An AF_SMC socket (family 43) is a
// TCP socket to the application: same addresses (sockaddr_in/in6), same
// TCP_CORK/TCP_NODELAY options; the kernel negotiates SMC-R in the TCP
// handshake and falls back to TCP when the peer cannot. Newer kernels also
// accept socket(AF_INET, SOCK_STREAM, IPPROTO_SMC = 256).
#include <cerrno>
#include <fstream>
#include <string>

#include <sys/socket.h>
#include <unistd.h>

#include "kernel_smc_counters.h"
#include "kernel_transport.h"
#include "transport_factories.h"

namespace smclab::transports {

namespace {

constexpr int kAfSmc = 43;        // AF_SMC
constexpr int kSmcProtoV4 = 0;    // SMCPROTO_SMC
constexpr int kSmcProtoV6 = 1;    // SMCPROTO_SMC6
constexpr int kIpProtoSmc = 256;  // IPPROTO_SMC (Linux 6.14+)

}  // namespace

SettingScope ksmcSettingScope(const std::string& name) {
    // Buffer sizes are read when a connection makes its buffers; link-level
    // knobs when a link group is made; the rest act at once.
    if (name == "wmem" || name == "rmem" || name == "smcr_buf_type" || name == "limit_smc_hs") {
        return SettingScope::newConnections;
    }
    if (name.rfind("smcr_max", 0) == 0 || name == "smcr_testlink_time" || name == "smcr_max_links_per_lgr" ||
        name == "smcr_max_conns_per_lgr") {
        return SettingScope::newLinkGroups;
    }
    return SettingScope::immediate;
}

SysctlSettings ksmcSysctls(const std::string& directory) {
    return SysctlSettings::fromDirectory(directory, ksmcSettingScope);
}

namespace {

// A seccomp filter (systemd's RestrictAddressFamilies= is one) makes
// socket(AF_SMC) fail with EAFNOSUPPORT, exactly like a kernel without SMC;
// the hello must say when the agent's own sandbox, not the host, is the cause.
bool underSeccompFilter() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("Seccomp:", 0) == 0) return line.find('2') != std::string::npos;  // 2 = filter mode
    }
    return false;
}

std::string sandboxNote(int err) {
    if (err != EAFNOSUPPORT || !underSeccompFilter()) return {};
    const bool kernelHasSmc = ::access("/proc/sys/net/smc", F_OK) == 0 || ::access("/sys/module/smc", F_OK) == 0;
    if (kernelHasSmc) {
        return "; the host kernel has SMC, so this agent's own sandbox refuses it (a seccomp filter is active: "
               "a systemd unit's RestrictAddressFamilies= without AF_SMC does this)";
    }
    return "; this agent runs under a seccomp filter, so its sandbox may be the cause (RestrictAddressFamilies= "
           "without AF_SMC, or ProtectKernelModules= keeping the smc module from loading: load it at boot)";
}

}  // namespace

Availability probeKsmc() {
    int fd = ::socket(kAfSmc, SOCK_STREAM | SOCK_CLOEXEC, kSmcProtoV4);
    if (fd >= 0) {
        ::close(fd);
        return {true, {}};
    }
    const int afSmcErr = errno;
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, kIpProtoSmc);
    if (fd >= 0) {
        ::close(fd);
        return {true, {}};
    }
    return {false, "kernel SMC not available: " + errnoText(afSmcErr) + sandboxNote(afSmcErr)};
}

Result<std::unique_ptr<Transport>> createKsmc(const TransportOptions& options) {
    if (!options.empty()) {
        return smcr::fail(smcr::Errc::invalidArgument,
                          options.begin()->first + ": the ksmc transport takes no options");
    }
    SocketKind kind{kAfSmc, kSmcProtoV4, kAfSmc, kSmcProtoV6};
    const int fd = ::socket(kAfSmc, SOCK_STREAM | SOCK_CLOEXEC, kSmcProtoV4);
    if (fd >= 0) {
        ::close(fd);
    } else {
        kind = SocketKind{AF_INET, kIpProtoSmc, AF_INET6, kIpProtoSmc};
    }
    return std::unique_ptr<Transport>(
        new KernelTransport("ksmc", kind, ksmcSysctls(kKsmcSysctlDirectory), kernelSmcCounters()));
}

}  // namespace smclab::transports
