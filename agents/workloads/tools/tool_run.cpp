#include "tool_run.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QFile>
#include <QJsonDocument>

namespace smclab::workloads {

namespace {

std::string transportName(const RunContext& ctx) {
    return ctx.transport ? ctx.transport->name() : "tcp";
}

std::string optionValue(const RunContext& ctx, const char* key) {
    for (const auto& [name, value] : ctx.transportOptions) {
        if (name == key) return value;
    }
    return {};
}

}  // namespace

smcr::Result<std::string> makeTempDir(const char* prefix) {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return smcr::fail(smcr::makeSystemError("mkdtemp " + pattern, errno));
    // nginx's workers run as another user when the agent is root: they
    // write smcr_run's counters and read the served file here.
    ::chmod(pattern.c_str(), 0777);
    return pattern;
}

void removeTree(const std::string& dir) {
    if (dir.empty()) return;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name == "." || name == "..") continue;
            const std::string path = dir + "/" + name;
            struct stat st {};
            if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
                removeTree(path);
            } else {
                ::unlink(path.c_str());
            }
        }
        ::closedir(d);
    }
    ::rmdir(dir.c_str());
}

namespace {

// Sums every number in smcr_run's per-process files (smcr-<pid>.json).
transports::Counters preloadCounters(const std::string& dir) {
    std::map<std::string, uint64_t> sums;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name.rfind("smcr-", 0) != 0) continue;
            QFile file(QString::fromStdString(dir + "/" + name));
            if (!file.open(QIODevice::ReadOnly)) continue;
            const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
            for (auto it = o.begin(); it != o.end(); ++it) {
                if (it.value().isDouble() && it.key() != QLatin1String("pid")) {
                    sums[it.key().toStdString()] += static_cast<uint64_t>(it.value().toDouble());
                }
            }
            // The connections that stayed on TCP by reason ("fallbacks":
            // {"client.PEERNOSMC": 2}) as fallbacks.client.PEERNOSMC, and the
            // process's engine counters under their own names (smcr.*): the
            // run's record says why its connections fell back.
            const QJsonObject reasons = o.value(QLatin1String("fallbacks")).toObject();
            for (auto it = reasons.begin(); it != reasons.end(); ++it) {
                if (it.value().isDouble())
                    sums["fallbacks." + it.key().toStdString()] += static_cast<uint64_t>(it.value().toDouble());
            }
            const QJsonObject engine = o.value(QLatin1String("engine")).toObject();
            for (auto it = engine.begin(); it != engine.end(); ++it) {
                if (it.value().isDouble()) sums[it.key().toStdString()] += static_cast<uint64_t>(it.value().toDouble());
            }
        }
        ::closedir(d);
    }
    transports::Counters out;
    for (const auto& [name, value] : sums) out.push_back({name, value});
    return out;
}

std::string tail(const std::string& text, size_t lines) {
    size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n' || text[pos - 1] == ' ')) --pos;
    const size_t end = pos;
    for (size_t n = 0; pos > 0 && n < lines; --pos) {
        if (text[pos - 1] == '\n' && ++n == lines) break;
    }
    return text.substr(pos, end - pos);
}

std::string exitText(const std::string& name, const ToolExit& exit) {
    std::string why = exit.signal != 0 ? "was killed by signal " + std::to_string(exit.signal)
                                       : "exited with status " + std::to_string(exit.exitCode);
    if (exit.exitCode == 125) why += " (could not pin it to the requested CPU)";
    if (exit.exitCode == 127) why += " (could not execute it)";
    const std::string said = tail(exit.err.empty() ? exit.out : exit.err, 3);
    return name + " " + why + (said.empty() ? "" : ": " + said);
}

QJsonObject toolFacts(const ToolLaunch& launch, const ToolExit& exit) {
    std::string output = exit.out;
    if (!exit.err.empty()) output += (output.empty() ? "" : "\n") + std::string("[stderr]\n") + exit.err;
    return QJsonObject{{"program", QString::fromStdString(launch.program)},
                       {"version", QString::fromStdString(launch.version)},
                       {"command", QString::fromStdString(commandText(launch.command.argv))},
                       {"output", QString::fromStdString(output)}};
}

RunResult baseResult(const RunContext& ctx, const std::string& workload, const ToolLaunch& launch,
                     const ToolExit& exit) {
    RunResult r;
    r.workload = workload;
    r.role = ctx.role;
    r.transport = transportName(ctx);
    r.params = ctx.params;
    r.elapsedSec = exit.elapsedSec;
    r.cpu = exit.cpu;
    r.summary.insert("tool", toolFacts(launch, exit));
    r.summary.insert("cpu_sec", exit.cpu.totalSec());
    r.summary.insert("cpu_user_sec", exit.cpu.userSec);
    r.summary.insert("cpu_system_sec", exit.cpu.systemSec);
    if (!launch.statsDir.empty()) r.counters = preloadCounters(launch.statsDir);
    return r;
}

}  // namespace

ParamSpec cpuParam() {
    return {"cpu", ParamType::integer, -1, -1, 1023, {}, "pin the program to this CPU (taskset -c N); -1 = not pinned"};
}

int wholeSeconds(int64_t durationMs) {
    return static_cast<int>(std::max<int64_t>(1, (durationMs + 999) / 1000));
}

std::string urlHost(const std::string& host) {
    return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

smcr::Result<ToolLaunch> prepareTool(const RunContext& ctx, ToolProgram program, const std::vector<std::string>& args,
                                     int minVersion) {
    auto path = findToolProgram(program);
    if (!path.ok()) return smcr::fail(path.error());
    ToolLaunch launch;
    launch.program = *path;
    launch.version = toolVersion(program, *path);
    const std::string name = toolProgramName(program);
    if (minVersion > 0) {
        const int have = versionNumber(launch.version);
        if (have < minVersion) {
            return smcr::fail(smcr::Errc::notSupported, name + " at " + *path + " is too old or says no version (\"" +
                                                            launch.version + "\"): this workload needs " +
                                                            std::to_string(minVersion / 1000) + "." +
                                                            std::to_string(minVersion % 1000) + " or later");
        }
    }
    const int64_t cpu = ctx.params.value("cpu").toInteger(-1);
    if (cpu >= 0) {
        const long online = ::sysconf(_SC_NPROCESSORS_CONF);
        if (cpu >= online) {
            return smcr::fail(
                smcr::Errc::invalidArgument,
                "cpu: " + std::to_string(cpu) + " is not a CPU of this host (0.." + std::to_string(online - 1) + ")");
        }
        launch.command.cpu = static_cast<int>(cpu);
    }
    std::vector<std::string>& argv = launch.command.argv;
    const std::string transport = transportName(ctx);
    if (transport == "smcr") {
        auto wrapper = findToolProgram(ToolProgram::smcrRun);
        if (!wrapper.ok()) return smcr::fail(wrapper.error());
        auto stats = makeTempDir("smclab-smcr-stats");
        if (!stats.ok()) return smcr::fail(stats.error());
        launch.statsDir = *stats;
        argv = {*wrapper};
        if (const std::string fabric = optionValue(ctx, "fabric"); !fabric.empty())
            argv.insert(argv.end(), {"--fabric", fabric});
        if (const std::string link = optionValue(ctx, "link"); !link.empty()) argv.insert(argv.end(), {"--link", link});
        for (const auto& [setting, value] : ctx.settings) argv.insert(argv.end(), {"--set", setting + "=" + value});
        argv.insert(argv.end(), {"--stats", launch.statsDir});
    } else if (transport == "ksmc") {
        // smc-tools' smc_run where it is installed, else the lab's own
        // ksmc_run (Debian 12 does not package smc-tools).
        auto wrapper = findToolProgram(ToolProgram::smcRun);
        if (!wrapper.ok()) wrapper = findToolProgram(ToolProgram::ksmcRun);
        if (!wrapper.ok()) {
            return smcr::fail(smcr::Errc::notSupported,
                              "ksmc unavailable for tool workloads: neither smc_run (smc-tools) nor ksmc_run (this "
                              "build) was found: " +
                                  wrapper.error().message);
        }
        argv = {*wrapper};
    } else if (transport != "tcp") {
        return smcr::fail(smcr::Errc::notSupported, "transport: " + transport + " cannot run a tool program");
    }
    argv.push_back(*path);
    argv.insert(argv.end(), args.begin(), args.end());
    return launch;
}

smcr::Result<uint16_t> choosePort(const std::string& host, uint16_t port) {
    if (port != 0) return port;
    const bool v6 = host.find(':') != std::string::npos;
    const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return smcr::fail(smcr::makeSystemError("socket", errno));
    sockaddr_storage storage{};
    socklen_t len = 0;
    if (v6) {
        auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
        a->sin6_family = AF_INET6;
        ::inet_pton(AF_INET6, host.c_str(), &a->sin6_addr);
        len = sizeof *a;
    } else {
        auto* a = reinterpret_cast<sockaddr_in*>(&storage);
        a->sin_family = AF_INET;
        if (::inet_pton(AF_INET, host.empty() ? "0.0.0.0" : host.c_str(), &a->sin_addr) != 1)
            a->sin_addr.s_addr = INADDR_ANY;
        len = sizeof *a;
    }
    if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), len) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &len) != 0) {
        const int err = errno;
        ::close(fd);
        return smcr::fail(smcr::makeSystemError("bind " + host + ":0", err));
    }
    ::close(fd);
    const uint16_t chosen = v6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port)
                               : ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
    return chosen;
}

bool portListening(uint16_t port) {
    char wanted[8];
    std::snprintf(wanted, sizeof wanted, ":%04X", port);
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string slot, local, remote, state;
            fields >> slot >> local >> remote >> state;
            if (state == "0A" && local.size() > 5 && local.compare(local.size() - 5, 5, wanted) == 0) return true;
        }
    }
    return false;
}

smcr::Result<RunResult> serveTool(const RunContext& ctx, const std::string& workload, ToolLaunch launch, uint16_t port,
                                  QJsonObject summary, const ToolTick& onTick) {
    const std::string name = launch.program.substr(launch.program.rfind('/') + 1);
    auto started = ToolProcess::start(launch.command);
    if (!started.ok()) {
        removeTree(launch.statsDir);
        return smcr::fail(started.error());
    }
    ToolProcess& process = *started.value();
    if (ctx.onToolProcess) ctx.onToolProcess(process.pid());
    if (ctx.onLog)
        ctx.onLog("started " + commandText(launch.command.argv) + " (pid " + std::to_string(process.pid()) + ")");
    // Ready when its port listens; a server that exits or never listens fails the run.
    constexpr int kListenTimeoutMs = 10'000;
    bool listening = false;
    for (int waitedMs = 0; waitedMs < kListenTimeoutMs && !ctx.stopRequested(); waitedMs += 20) {
        if (!process.poll()) break;
        if (portListening(port)) {
            listening = true;
            break;
        }
        ::usleep(20'000);
    }
    if (!listening) {
        const bool running = process.poll();
        const ToolExit exit = process.wait(nullptr, 0);
        removeTree(launch.statsDir);
        if (ctx.stopRequested()) return smcr::fail(smcr::Errc::closed, name + ": stopped before it listened");
        return smcr::fail(smcr::Errc::timedOut, running ? name + " did not listen on port " + std::to_string(port) +
                                                              " within 10 s" +
                                                              (exit.err.empty() ? "" : ": " + tail(exit.err, 3))
                                                        : exitText(name, exit));
    }
    if (ctx.onListening) ctx.onListening(port);
    const ToolExit exit = process.wait(ctx.stop, -1, [&] {
        if (onTick) onTick(process);
    });
    if (ctx.onToolProcess) ctx.onToolProcess(0);
    RunResult result = baseResult(ctx, workload, launch, exit);
    removeTree(launch.statsDir);
    if (!exit.stoppedByUs) return smcr::fail(smcr::Errc::connectionAborted, exitText(name, exit) + " while serving");
    for (auto it = summary.begin(); it != summary.end(); ++it) result.summary.insert(it.key(), it.value());
    result.summary.insert("port", port);
    return result;
}

smcr::Result<RunResult> runClientTool(const RunContext& ctx, const std::string& workload, ToolLaunch launch,
                                      const ToolParser& parse, const ToolTick& onTick) {
    const std::string name = launch.program.substr(launch.program.rfind('/') + 1);
    auto started = ToolProcess::start(launch.command);
    if (!started.ok()) {
        removeTree(launch.statsDir);
        return smcr::fail(started.error());
    }
    if (ctx.onLog) ctx.onLog("running " + commandText(launch.command.argv));
    if (ctx.onToolProcess) ctx.onToolProcess(started.value()->pid());
    const ToolProcess& process = *started.value();
    const ToolExit exit = started.value()->wait(ctx.stop, -1, [&] {
        if (onTick) onTick(process);
    });
    if (ctx.onToolProcess) ctx.onToolProcess(0);
    RunResult result = baseResult(ctx, workload, launch, exit);
    removeTree(launch.statsDir);
    if (exit.stoppedByUs) return smcr::fail(smcr::Errc::closed, name + " was stopped before it finished");
    const smcr::Status parsed = parse(exit, result);
    if (exit.exitCode != 0) {
        // What the tool said in its own report (iperf3 -J's "error") says why.
        return smcr::fail(smcr::Errc::connectionAborted,
                          exitText(name, exit) + (parsed.ok() ? "" : "; " + parsed.error().message));
    }
    if (!parsed.ok()) {
        return smcr::fail(parsed.error().code, parsed.error().message + " [" + commandText(launch.command.argv) + "]");
    }
    return result;
}

}  // namespace smclab::workloads
