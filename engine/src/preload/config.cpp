#include "config.h"

#include <cstdlib>
#include <fstream>

#include <smcr/fabric_sim.h>

namespace smcr::preload {

namespace {

Config g_config;

std::string envOr(const char* name, const char* fallback = "") {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string(fallback);
}

}  // namespace

const Config& config() {
    return g_config;
}

bool parseSettingsList(const std::string& text, std::vector<std::pair<std::string, std::string>>& out,
                       std::string& error) {
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find(',', pos);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) {
            error = "'" + item + "' is not NAME=VALUE";
            return false;
        }
        out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return true;
}

void loadConfig() {
    Config c;
    if (!parseSettingsList(envOr("SMCR_SETTINGS"), c.settings, c.settingsError)) {
        c.settings.clear();
        c.settingsError = "SMCR_SETTINGS: " + c.settingsError;
    }
    c.statsDir = envOr("SMCR_STATS_DIR");
    c.verbose = envOr("SMCR_VERBOSE") == "1";
    if (const char* ports = std::getenv("SMCR_TCP_PORTS"); ports != nullptr) {
        c.tcpPorts.clear();
        std::string text(ports);
        size_t pos = 0;
        while (pos < text.size()) {
            size_t end = text.find(',', pos);
            if (end == std::string::npos) end = text.size();
            const long port = std::strtol(text.substr(pos, end - pos).c_str(), nullptr, 10);
            if (port > 0 && port < 65536) c.tcpPorts.insert(static_cast<uint16_t>(port));
            pos = end + 1;
        }
    }
    c.registryDir = fabric::sim::simDir() + "/preload";
    for (const char* name : {"SMCR_SIM_DIR", "SMCR_CAPTURE"}) {
        if (const char* v = std::getenv(name); v != nullptr) c.engineEnv.emplace_back(name, v);
    }
    std::ifstream comm("/proc/self/comm");
    std::getline(comm, c.program);
    g_config = std::move(c);
}

}  // namespace smcr::preload
