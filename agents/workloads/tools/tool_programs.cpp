#include "tool_programs.h"

#include <cstdlib>
#include <mutex>

#include <sys/stat.h>
#include <unistd.h>

#include "tool_process.h"

namespace smclab::workloads {

namespace {

struct ProgramInfo {
    ToolProgram program;
    const char* name;
    const char* versionFlag;  // prints one line naming the version
};

constexpr ProgramInfo kPrograms[] = {
    {ToolProgram::qperf, "qperf", "--version"},
    {ToolProgram::nginx, "nginx", "-v"},
    {ToolProgram::wrk, "wrk", "-v"},
    {ToolProgram::redisServer, "redis-server", "--version"},
    {ToolProgram::redisBenchmark, "redis-benchmark", "--version"},
    {ToolProgram::iperf3, "iperf3", "--version"},
    {ToolProgram::smcrRun, "smcr_run", "--help"},
    {ToolProgram::smcRun, "smc_run", "-h"},
    {ToolProgram::ksmcRun, "ksmc_run", "-h"},
};

std::mutex g_mutex;
std::map<ToolProgram, std::string> g_configured;
std::map<std::string, std::string> g_versions;

bool isExecutableFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string ownDirectory() {
    char buffer[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0) return {};
    std::string path(buffer, static_cast<size_t>(n));
    return path.substr(0, path.rfind('/'));
}

}  // namespace

const char* toolProgramName(ToolProgram program) {
    for (const ProgramInfo& info : kPrograms) {
        if (info.program == program) return info.name;
    }
    return "?";
}

ToolProgram toolProgramFromName(std::string_view name) {
    for (const ProgramInfo& info : kPrograms) {
        if (name == info.name) return info.program;
    }
    return ToolProgram::invalid;
}

smcr::Status setToolPaths(const std::map<std::string, std::string>& paths) {
    std::map<ToolProgram, std::string> configured;
    for (const auto& [name, path] : paths) {
        const ToolProgram program = toolProgramFromName(name);
        if (program == ToolProgram::invalid) {
            std::string known;
            for (const ProgramInfo& info : kPrograms) known += (known.empty() ? "" : ", ") + std::string(info.name);
            return smcr::fail(smcr::Errc::invalidArgument,
                              "--tool " + name + ": not a tool program (known: " + known + ")");
        }
        if (path.empty() || path.front() != '/') {
            return smcr::fail(smcr::Errc::invalidArgument,
                              "--tool " + name + ": give an absolute path, got \"" + path + "\"");
        }
        configured[program] = path;
    }
    std::lock_guard lock(g_mutex);
    g_configured = std::move(configured);
    return {};
}

smcr::Result<std::string> findToolProgram(ToolProgram program) {
    const std::string name = toolProgramName(program);
    {
        std::lock_guard lock(g_mutex);
        const auto it = g_configured.find(program);
        if (it != g_configured.end()) {
            if (isExecutableFile(it->second)) return it->second;
            return smcr::fail(smcr::Errc::notFound,
                              name + ": the configured path " + it->second + " (--tool) is not an executable file");
        }
    }
    std::vector<std::string> dirs;
    if (program == ToolProgram::smcrRun || program == ToolProgram::ksmcRun)
        dirs.push_back(ownDirectory());  // build/bin, /usr/bin
    const char* path = std::getenv("PATH");
    const std::string pathText = path != nullptr ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= pathText.size()) {
        const size_t colon = pathText.find(':', start);
        const std::string dir = pathText.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        if (!dir.empty() && dir.front() == '/') dirs.push_back(dir);
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    for (const char* sbin : {"/usr/sbin", "/sbin", "/usr/local/sbin"}) dirs.emplace_back(sbin);
    for (const std::string& dir : dirs) {
        if (dir.empty()) continue;
        const std::string candidate = dir + "/" + name;
        if (isExecutableFile(candidate)) return candidate;
    }
    return smcr::fail(smcr::Errc::notFound, name + ": not found on PATH (" + pathText + ") nor given with --tool " +
                                                name + "=PATH; packaging/install-deps.sh installs it");
}

std::string toolVersion(ToolProgram program, const std::string& path) {
    {
        std::lock_guard lock(g_mutex);
        const auto it = g_versions.find(path);
        if (it != g_versions.end()) return it->second;
    }
    const char* flag = "--version";
    for (const ProgramInfo& info : kPrograms) {
        if (info.program == program) flag = info.versionFlag;
    }
    std::string line;
    auto process = ToolProcess::start({{path, flag}, -1, {}});
    if (process.ok()) {
        const ToolExit exit = process.value()->wait(nullptr, 5000);
        // nginx -v and wrk -v write to stderr; the others to stdout.
        const std::string& text = exit.out.empty() ? exit.err : exit.out;
        line = text.substr(0, text.find('\n'));
    }
    std::lock_guard lock(g_mutex);
    g_versions[path] = line;
    return line;
}

int versionNumber(std::string_view line) {
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] < '0' || line[i] > '9') continue;
        if (i > 0 && line[i - 1] != ' ' && line[i - 1] != '/' && line[i - 1] != 'v' && line[i - 1] != '=') continue;
        int major = 0;
        size_t j = i;
        while (j < line.size() && line[j] >= '0' && line[j] <= '9') major = major * 10 + (line[j++] - '0');
        if (j >= line.size() || line[j] != '.') continue;
        int minor = 0;
        ++j;
        while (j < line.size() && line[j] >= '0' && line[j] <= '9') minor = minor * 10 + (line[j++] - '0');
        return major * 1000 + minor;
    }
    return -1;
}

}  // namespace smclab::workloads
