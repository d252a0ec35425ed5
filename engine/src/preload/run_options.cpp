#include "run_options.h"

#include <cstdlib>

#include <smcr/fabric.h>
#include <smcr/settings.h>

namespace smcr::preload {

std::string runUsage() {
    return "usage: smcr_run [options] PROGRAM [ARGS...]\n"
           "Runs PROGRAM with its TCP connections over libsmcr (SMC-R), falling back to\n"
           "TCP, byte for byte, wherever the peer is not libsmcr.\n"
           "  --fabric sim|verbs[:DEV]  fabric (default sim)\n"
           "  --link NAME               sim link model (ideal, cx4-25g, ...)\n"
           "  --set NAME=VALUE          any libsmcr setting, kernel sysctl names (repeatable)\n"
           "  --stats DIR               each process writes DIR/smcr-<pid>.json at exit\n"
           "  --syn-option PORT[,PORT]  the SMC TCP option on SYN and SYN-ACK of these ports (smc_synopt, a\n"
           "                            BPF program: root), so kernel SMC-R peers take part; without the\n"
           "                            privileges it says so once and detection stays first-bytes\n"
           "  -v, --verbose             one stderr line per connection: SMC-R or TCP, and why\n"
           "  --list-settings           the settings, their values and when a change applies\n"
           "  -h, --help                this text\n";
}

std::string settingsListing() {
    Settings defaults;
    std::string out;
    for (const SettingInfo& info : allSettings()) {
        auto value = defaults.get(info.name);
        out += std::string(info.name) + " = " + (value ? value.value() : std::string("?")) + "  (" +
               settingValuesText(info) + "; " + settingScopeName(info.scope) + ")\n    " + info.help + "\n";
    }
    return out;
}

Result<RunOptions> parseRunOptions(const std::vector<std::string>& args) {
    RunOptions o;
    Settings check;  // every --set is applied to a scratch copy: the table validates it
    auto addSetting = [&](const std::string& name, const std::string& value) -> Status {
        if (Status s = check.set(name, value); !s) return fail(Errc::invalidArgument, s.error().message);
        if (name == "lab.fabric") {
            // The settings table takes any text; the backend must exist here.
            const std::string backend = value.substr(0, value.find(':'));
            if (fabric::findBackend(backend) == nullptr) {
                return fail(Errc::invalidArgument, "lab.fabric " + value + ": no such fabric (sim, verbs[:DEVICE])");
            }
        }
        o.settings.emplace_back(name, value);
        return {};
    };
    size_t i = 0;
    auto needValue = [&](const std::string& opt) -> Result<std::string> {
        if (i + 1 >= args.size()) return fail(Errc::invalidArgument, opt + " needs a value");
        return args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a.empty() || a[0] != '-') break;
        if (a == "-h" || a == "--help") {
            o.help = true;
            return o;
        }
        if (a == "--list-settings") {
            o.listSettings = true;
            return o;
        }
        if (a == "-v" || a == "--verbose") {
            o.verbose = true;
            continue;
        }
        if (a == "--fabric" || a == "--link") {
            auto v = needValue(a);
            if (!v) return fail(v.error());
            if (Status s = addSetting(a == "--fabric" ? "lab.fabric" : "lab.link", v.value()); !s)
                return fail(s.error());
            continue;
        }
        if (a == "--set") {
            auto v = needValue(a);
            if (!v) return fail(v.error());
            const size_t eq = v.value().find('=');
            if (eq == std::string::npos || eq == 0) {
                return fail(Errc::invalidArgument, "--set " + v.value() + ": expected NAME=VALUE");
            }
            const std::string value = v.value().substr(eq + 1);
            if (value.find(',') != std::string::npos) {
                return fail(Errc::invalidArgument, "--set " + v.value() + ": a value cannot contain ','");
            }
            if (Status s = addSetting(v.value().substr(0, eq), value); !s) return fail(s.error());
            continue;
        }
        if (a == "--syn-option") {
            auto v = needValue(a);
            if (!v) return fail(v.error());
            for (size_t at = 0; at <= v.value().size();) {
                size_t comma = v.value().find(',', at);
                if (comma == std::string::npos) comma = v.value().size();
                const std::string port = v.value().substr(at, comma - at);
                char* end = nullptr;
                const long n = std::strtol(port.c_str(), &end, 10);
                if (port.empty() || *end != '\0' || n <= 0 || n > 65535)
                    return fail(Errc::invalidArgument, "--syn-option " + v.value() + ": '" + port + "' is not a port");
                o.synOptionPorts.push_back(port);
                at = comma + 1;
            }
            continue;
        }
        if (a == "--stats") {
            auto v = needValue(a);
            if (!v) return fail(v.error());
            o.statsDir = v.value();
            continue;
        }
        return fail(Errc::invalidArgument, "unknown option " + a);
    }
    o.command.assign(args.begin() + static_cast<std::ptrdiff_t>(std::min(i, args.size())), args.end());
    if (o.command.empty()) return fail(Errc::invalidArgument, "no PROGRAM given");
    return o;
}

std::vector<std::pair<std::string, std::string>> runEnvironment(const RunOptions& o) {
    std::vector<std::pair<std::string, std::string>> env;
    std::string settings;
    for (const auto& [name, value] : o.settings) {
        if (!settings.empty()) settings += ",";
        settings += name + "=" + value;
    }
    if (!settings.empty()) env.emplace_back("SMCR_SETTINGS", settings);
    if (!o.statsDir.empty()) env.emplace_back("SMCR_STATS_DIR", o.statsDir);
    if (o.verbose) env.emplace_back("SMCR_VERBOSE", "1");
    return env;
}

}  // namespace smcr::preload
