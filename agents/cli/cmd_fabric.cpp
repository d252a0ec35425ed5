// smclab fabric list: the sim devices live on this host (their ports, GIDs
// and link model) and any RDMA devices, or why there are none.
#include <cstdio>
#include <string>

#include <smcr/fabric.h>
#include <smcr/fabric_sim.h>

#include "commands.h"

namespace smclab::cli {

namespace {

void printHelp() {
    std::printf(
        "usage: smclab fabric list\n"
        "\n"
        "Lists the fabric backends, the simulated RNIC instances other processes have\n"
        "open on this host (directory $SMCR_SIM_DIR or /dev/shm/smclab-sim), their ports,\n"
        "GIDs, MACs and link model, and the RDMA devices libibverbs finds.\n");
}

void printDevice(const smcr::fabric::DeviceSummary& device) {
    using namespace smcr::fabric;
    std::printf("  %-14s %s\n", device.info.name.c_str(), device.info.description.c_str());
    for (const PortInfo& port : device.info.ports) {
        std::printf("    port %u %-6s gid[%u] %s (%s)  mac %s  mtu %u%s%s\n", port.portNum,
                    port.active ? "ACTIVE" : "DOWN", port.gidIndex, formatGid(port.gid).c_str(),
                    gidTypeName(port.gidType), formatMac(port.mac).c_str(), mtuBytes(port.activeMtu),
                    port.netdev.empty() ? "" : "  netdev ", port.netdev.c_str());
    }
}

int listFabric() {
    using namespace smcr::fabric;
    for (const BackendEntry& backend : backends()) {
        const auto probe = backend.probe();
        std::printf("%s: %s\n", backend.name, backend.summary);
        if (!probe) {
            std::printf("  %s\n", probe.error().message.c_str());
            continue;
        }
        auto devices = backend.list();
        if (!devices) {
            std::printf("  cannot list devices: %s\n", devices.error().toString().c_str());
            continue;
        }
        if (std::string(backend.name) == "sim") {
            std::printf("  directory %s; link presets: ideal, cx4-25g, cx4lx-vf; 'sim' opens a new 2-port device\n",
                        sim::simDir().c_str());
            if (devices->empty()) std::printf("  no sim device open right now\n");
        }
        for (const DeviceSummary& device : devices.value()) printDevice(device);
    }
    return kExitOk;
}

}  // namespace

int runFabric(const Args& args) {
    if (args.empty()) {
        std::fprintf(stderr, "usage: smclab fabric list\n");
        return kExitUsage;
    }
    if (args[0] == "--help" || args[0] == "-h") {
        printHelp();
        return kExitOk;
    }
    if (args[0] == "list") {
        if (args.size() > 1) {
            if (args[1] == "--help" || args[1] == "-h") {
                printHelp();
                return kExitOk;
            }
            std::fprintf(stderr, "smclab fabric list: unexpected argument '%s'\n", args[1].c_str());
            return kExitUsage;
        }
        return listFabric();
    }
    std::fprintf(stderr, "smclab fabric: unknown subcommand '%s' (known: list)\n", args[0].c_str());
    return kExitUsage;
}

}  // namespace smclab::cli
