// The sim backend's registry entry: probe, open with key=value options, and
// the list of live device instances found in the sim directory.
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <smcr/fabric_sim.h>

#include "../backends.h"
#include "layout.h"
#include "shm.h"

namespace smcr::fabric {

namespace {

Status probeSim() {
    const std::string dir = sim::simDir();
    if (auto st = sim::ensureDir(dir); !st) return st;
    if (::access(dir.c_str(), W_OK) != 0) return fail(makeSystemError("sim directory " + dir, errno));
    return {};
}

Result<std::unique_ptr<Device>> openSim(const std::string& deviceName, const OpenOptions& options) {
    if (!deviceName.empty()) {
        return fail(Errc::notSupported, "sim: opening an existing instance ('" + deviceName +
                                            "') is not supported; 'sim' creates a new device");
    }
    sim::SimConfig config;
    for (const auto& [key, value] : options) {
        if (key == "link") {
            auto preset = sim::linkPreset(value);
            if (!preset) return fail(preset.error());
            config.link = preset.value();
        } else if (key == "dir") {
            config.dir = value;
        } else if (key == "transport_timeout_ms") {
            char* end = nullptr;
            config.transportTimeoutMs = std::strtoull(value.c_str(), &end, 10);
            if (end == value.c_str() || *end != '\0') {
                return fail(Errc::invalidArgument, "transport_timeout_ms: not a number: " + value);
            }
        } else if (key == "capture") {
            config.capturePath = value;
        } else {
            return fail(Errc::invalidArgument,
                        "sim: unknown option '" + key + "' (known: link, dir, transport_timeout_ms, capture)");
        }
    }
    return sim::openSimDevice(config);
}

Result<std::vector<DeviceSummary>> listSim() {
    std::vector<DeviceSummary> out;
    const std::string dir = sim::simDir();
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return out;
    while (dirent* entry = readdir(d)) {
        const std::string name = entry->d_name;
        if (name.size() != 13 || name[0] != 'd' || name.compare(9, 4, ".dev") != 0) continue;
        auto file = sim::ShmFile::open(dir + "/" + name, true);
        if (!file || file->size() < sizeof(sim::DeviceShared)) continue;
        const auto* shared = static_cast<const sim::DeviceShared*>(file->data());
        if (shared->magic != sim::kMagicDevice || shared->alive.load() == 0 || !sim::deviceFileLocked(file->fd())) {
            continue;
        }
        DeviceSummary summary;
        summary.backend = "sim";
        summary.live = true;
        char devName[24];
        std::snprintf(devName, sizeof devName, "sim-%08x", shared->instance);
        summary.info.name = devName;
        summary.info.backend = "sim";
        for (uint8_t port = 1; port <= sim::kSimPorts; ++port) {
            PortInfo p;
            p.portNum = port;
            p.active = true;
            p.gid = sim::simGid(shared->instance, port);
            p.gidType = GidType::roceV1;
            p.mac = sim::simMac(shared->instance, port);
            p.activeMtu = static_cast<PathMtu>(shared->mtuEnum);
            summary.info.ports.push_back(p);
        }
        char text[160];
        std::snprintf(text, sizeof text, "pid %d, link %s: one-way %.2f us, %.1f Gbit/s, per-WR %llu ns", shared->pid,
                      shared->linkName, static_cast<double>(shared->wireLatencyNs) / 1000.0, shared->bandwidthGbps,
                      static_cast<unsigned long long>(shared->perWrNs));
        summary.info.description = text;
        out.push_back(std::move(summary));
    }
    closedir(d);
    return out;
}

}  // namespace

const BackendEntry& simBackendEntry() {
    static const BackendEntry kEntry{"sim", "simulated RNIC in shared memory between processes on this host", probeSim,
                                     openSim, listSim};
    return kEntry;
}

}  // namespace smcr::fabric
