// Live settings backed by /proc/sys files: the kernel transports' knobs
// (net.ipv4.tcp_autocorking for tcp, /proc/sys/net/smc/* for ksmc).
// Writing them changes the whole host, as `sysctl -w` would.
#pragma once

#include <string>
#include <vector>

#include "transport.h"

namespace smclab::transports {

struct SysctlSpec {
    std::string name;  // the setting name users give (the sysctl's last component)
    std::string path;  // its file under /proc/sys
    SettingScope scope = SettingScope::invalid;
    std::string help;
};

class SysctlSettings {
public:
    explicit SysctlSettings(std::vector<SysctlSpec> specs) : m_specs(std::move(specs)) {}
    // Every readable file of `directory` (e.g. /proc/sys/net/smc) with scopes
    // from `scopeOf` (by name).
    static SysctlSettings fromDirectory(const std::string& directory, SettingScope (*scopeOf)(const std::string&));

    std::vector<SettingInfo> list() const;
    // value: the text the sysctl file takes (integers, or space-separated
    // integers for triples like tcp_wmem). Errors name the setting.
    Status apply(const std::string& transport, const std::string& name, const std::string& value) const;

private:
    std::vector<SysctlSpec> m_specs;
};

}  // namespace smclab::transports
