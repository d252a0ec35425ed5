#include "sysctl_settings.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string_view>

#include <dirent.h>

#include "kernel_socket.h"

namespace smclab::transports {

namespace {

bool readFile(const std::string& path, std::string* out) {
    std::ifstream in(path);
    if (!in) return false;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    // Triples are tab-separated in /proc; show them space-separated.
    for (char& c : text) {
        if (c == '\t') c = ' ';
    }
    *out = text;
    return true;
}

bool isIntegerList(const std::string& value) {
    bool sawDigit = false;
    for (size_t i = 0; i < value.size(); ++i) {
        const char c = value[i];
        if (c >= '0' && c <= '9') {
            sawDigit = true;
        } else if (c == '-' && (i == 0 || value[i - 1] == ' ')) {
            continue;
        } else if (c != ' ') {
            return false;
        }
    }
    return sawDigit;
}

}  // namespace

SysctlSettings SysctlSettings::fromDirectory(const std::string& directory,
                                             SettingScope (*scopeOf)(const std::string&)) {
    std::vector<SysctlSpec> specs;
    if (DIR* dir = ::opendir(directory.c_str())) {
        while (dirent* entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name == "." || name == "..") continue;
            // "/proc/sys/net/smc" + "wmem" -> "sysctl net.smc.wmem" (any other directory: its path).
            const std::string path = directory + "/" + name;
            std::string help = path;
            if (constexpr std::string_view kProcSys = "/proc/sys/"; path.rfind(kProcSys, 0) == 0) {
                help = path.substr(kProcSys.size());
                for (char& c : help) c = c == '/' ? '.' : c;
            }
            specs.push_back({name, path, scopeOf(name), "sysctl " + help});
        }
        ::closedir(dir);
    }
    return SysctlSettings(std::move(specs));
}

std::vector<SettingInfo> SysctlSettings::list() const {
    std::vector<SettingInfo> out;
    for (const SysctlSpec& spec : m_specs) {
        std::string value;
        if (!readFile(spec.path, &value)) continue;  // not on this kernel
        out.push_back({spec.name, value, spec.scope, spec.help});
    }
    return out;
}

Status SysctlSettings::apply(const std::string& transport, const std::string& name, const std::string& value) const {
    for (const SysctlSpec& spec : m_specs) {
        if (spec.name != name) continue;
        if (!isIntegerList(value)) {
            return smcr::fail(smcr::Errc::invalidArgument,
                              name + ": expects an integer (or integers separated by spaces), got '" + value + "'");
        }
        std::string current;
        if (!readFile(spec.path, &current)) {
            return smcr::fail(smcr::Errc::notSupported, name + ": " + spec.path + " does not exist on this kernel");
        }
        std::ofstream out(spec.path);
        if (!out) return smcr::fail(smcr::makeSystemError(name + ": open " + spec.path, errno));
        out << value << '\n';
        out.flush();
        if (!out) return smcr::fail(smcr::makeSystemError(name + ": write " + spec.path, errno));
        return {};
    }
    std::string known;
    for (const SysctlSpec& spec : m_specs) known += (known.empty() ? "" : ", ") + spec.name;
    return smcr::fail(smcr::Errc::notFound, name + ": not a setting of the " + transport +
                                                " transport (known: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace smclab::transports
