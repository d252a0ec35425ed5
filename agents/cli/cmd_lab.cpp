// smclab lab deploy|status|stop: agents on lab hosts over the user's own
// OpenSSH (ssh_remote.h). deploy gives each agent a fresh random token
// (mode 0600 on both ends) and brings it up in one of two modes: package
// mode (as root, or --system) installs the smclab-agent .deb and enables
// its systemd unit (lab_system.h); user mode copies the binary into a
// folder of the remote user's and starts it detached. A host where package
// mode cannot run (no systemd, no dpkg, no root) gets user mode with a
// note. deploy then checks the hello and records the host in the lab file
// (lab_file.h); status says each agent's state, version and transports;
// stop ends them.
#include <cstdio>
#include <optional>

#include <QCoreApplication>
#include <QFile>

#include "agent_hello.h"
#include "args.h"
#include "campaign_console.h"
#include "commands.h"
#include "lab_file.h"
#include "lab_system.h"
#include "ssh_remote.h"

namespace smclab::cli {

// The lab library's hosts, lab file and agents (agents/lab).
using namespace smclab::lab;

namespace {

constexpr quint16 kDefaultAgentPort = 7600;
const char kDefaultRemoteDir[] = ".local/share/smclab-agent";  // relative: under the remote user's home

void printLabHelp() {
    std::printf(
        "usage: smclab lab deploy [--user U] [--port P] [--agent-port N] [--agent-arg ARG]... [--system] HOST...\n"
        "       smclab lab status [HOST...]\n"
        "       smclab lab stop HOST...\n"
        "       smclab lab vm up|status|down|exec ...   (VM lab hosts: smclab lab vm --help)\n"
        "\n"
        "Agents on lab hosts over your own OpenSSH client, its keys, agent, ~/.ssh/config\n"
        "and known_hosts (BatchMode: a host that would prompt fails instead). deploy copies\n"
        "smclab-agent to the host (into ~/.local/share/smclab-agent of the remote user),\n"
        "or, logged in as root with a package at hand or with --system, installs the\n"
        "smclab-agent .deb and enables its systemd unit (a host without a running systemd\n"
        "gets the user mode, with a note; with --system the package is still installed\n"
        "there, unit left alone); gives the agent a fresh random token (0600 on\n"
        "both ends), starts it, checks its hello and\n"
        "records host, port and token in the lab file; status shows each agent's state,\n"
        "version and transports; stop stops them.\n"
        "\n"
        "options:\n"
        "  --lab FILE          lab file (default: $SMCLAB_LAB, else ~/.config/smclab/lab.json)\n"
        "  --user U            ssh login user            --port P   ssh port\n"
        "  --ssh-config FILE   ssh -F FILE instead of ~/.ssh/config\n"
        "  --agent-port N      the agent's control port (default 7600); it listens on 0.0.0.0\n"
        "  --agent-arg ARG     an extra smclab-agent argument (repeatable), e.g. --allow-peer=10.0.0.0/24\n"
        "  --agent-binary F    the smclab-agent to copy (default: the one beside this smclab)\n"
        "  --system            package mode: install the .deb and its systemd unit (root or sudo -n)\n"
        "  --package F.deb     the smclab-agent package (default: the newest smclab-agent_*.deb\n"
        "                      in the build tree, as `cpack` writes it)\n"
        "  --remote-dir DIR    the agent's folder on the host (default ~/%s)\n"
        "  --token-file F      give every host the token in F instead of a fresh random one each\n"
        "                      (then `smclab run --token-file F` drives them all)\n",
        kDefaultRemoteDir);
}

struct LabOptions {
    QString labPath;
    SshTarget ssh;
    quint16 agentPort = kDefaultAgentPort;
    QStringList agentArgs;
    QString agentBinary;
    QString remoteDir;
    QString sharedTokenFile;  // --token-file: one token for every host
    bool system = false;      // --system: package mode or fail
    QString packagePath;      // --package
    QStringList hosts;
};

QString remoteDirExpr(const QString& dir) {
    // A relative folder is under the remote home; "$HOME" must expand there, not here.
    if (dir.isEmpty()) return QStringLiteral("\"$HOME\"/") + QString::fromLatin1(kDefaultRemoteDir);
    if (dir.startsWith(QLatin1Char('/'))) return shellQuote(dir);
    return QStringLiteral("\"$HOME\"/") + shellQuote(dir);
}

SshTarget targetFor(const LabOptions& options, const LabHost& host) {
    SshTarget t = options.ssh;
    t.host = host.host;
    t.user = host.sshUser;
    t.port = host.sshPort;
    return t;
}

QString readToken(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

QString describe(const protocol::Hello& hello) {
    QStringList transports;
    for (const protocol::Availability& t : hello.capabilities.transports) {
        transports << (t.available ? t.name : t.name + QStringLiteral("(unavailable)"));
    }
    return QStringLiteral("smclab-agent %1, protocol %2, transports %3")
        .arg(hello.agentVersion, hello.protocolVersion, transports.join(QLatin1Char(' ')));
}

// Ends the agent a deploy brought up on `host`, in the mode it was deployed in.
smcr::Result<QString> stopHostAgent(const LabOptions& options, const LabHost& host) {
    if (host.mode == QLatin1String("system")) return stopSystemAgent(targetFor(options, host));
    const QString script =
        QStringLiteral(
            "d=%1; if [ -f \"$d/agent.pid\" ]; then p=$(cat \"$d/agent.pid\"); kill \"$p\" 2>/dev/null; "
            "i=0; while kill -0 \"$p\" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i+1)); done; "
            "rm -f \"$d/agent.pid\"; echo stopped; else echo 'not running'; fi")
            .arg(remoteDirExpr(host.remoteDir));
    return runRemote(targetFor(options, host), script);
}

bool startUserAgent(const LabOptions& options, const SshTarget& target, const LabHost& host, const QByteArray& token) {
    QFile binary(options.agentBinary);
    if (!binary.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "smclab lab deploy: cannot read %s: %s\n", qPrintable(options.agentBinary),
                     qPrintable(binary.errorString()));
        return false;
    }
    const QString dir = remoteDirExpr(host.remoteDir);
    std::printf("%s: copying %s (user mode)\n", qPrintable(host.host), qPrintable(options.agentBinary));
    std::fflush(stdout);
    auto copied = runRemote(target,
                            QStringLiteral("umask 077 && mkdir -p %1 && cat > %1/smclab-agent.new && "
                                           "chmod 700 %1/smclab-agent.new && mv -f %1/smclab-agent.new %1/smclab-agent")
                                .arg(dir),
                            binary.readAll(), 300'000);
    if (!copied) {
        std::fprintf(stderr, "smclab lab deploy: %s\n", copied.error().message.c_str());
        return false;
    }
    QStringList agentArgs;
    for (const QString& arg : options.agentArgs) agentArgs << shellQuote(arg);
    // Stop an agent an earlier deploy started and wait until it is gone (up
    // to 10 s): a fixed half second was too short for one that had served
    // a campaign on a slow host, and the new agent then found the port
    // taken. Its log moves aside, so a straggler's last lines do not land
    // in the new one, and its agent.out goes: the new agent's redirection
    // truncates it only once the background child runs, and the wait loop
    // below, started first, could read the old "listening on" line, leave,
    // and then find the file empty (one deploy in eight failed so). Write
    // the new token, start detached (nohup, no terminal), and wait for its
    // "listening on" line.
    const QString start =
        QStringLiteral(
            "umask 077 && d=%1 && "
            "if [ -f \"$d/agent.pid\" ]; then o=\"$(cat \"$d/agent.pid\")\"; kill \"$o\" 2>/dev/null; "
            "i=0; while [ $i -lt 100 ] && kill -0 \"$o\" 2>/dev/null; do sleep 0.1; i=$((i+1)); done; fi; "
            "[ -f \"$d/agent.log\" ] && mv -f \"$d/agent.log\" \"$d/agent.log.old\"; rm -f \"$d/agent.out\"; "
            // Its own list: a trailing '&' would put cat in the background, reading /dev/null.
            "{ cat > \"$d/agent.token\" && chmod 600 \"$d/agent.token\"; } || exit 4; "
            "nohup \"$d/smclab-agent\" --listen 0.0.0.0:%2 --token-file \"$d/agent.token\" %3 "
            "> \"$d/agent.out\" 2> \"$d/agent.log\" < /dev/null & echo $! > \"$d/agent.pid\"; "
            "i=0; while [ $i -lt 50 ]; do grep -qs 'listening on' \"$d/agent.out\" && break; "
            "kill -0 \"$(cat \"$d/agent.pid\")\" 2>/dev/null || break; sleep 0.2; i=$((i+1)); done; "
            "if grep -qs 'listening on' \"$d/agent.out\"; then cat \"$d/agent.out\"; else tail -5 "
            "\"$d/agent.log\" | tr -d '\\000' >&2; p=\"$(cat \"$d/agent.pid\")\"; "
            "if kill -0 \"$p\" 2>/dev/null; then echo 'no \"listening on\" after 10 s' >&2; "
            "else wait \"$p\"; echo \"the agent exited with status $?\" >&2; fi; exit 3; fi")
            .arg(dir)
            .arg(host.agentPort)
            .arg(agentArgs.join(QLatin1Char(' ')));
    auto started = runRemote(target, start, token + '\n');
    if (!started) {
        std::fprintf(stderr, "smclab lab deploy: the agent did not start: %s\n", started.error().message.c_str());
        return false;
    }
    return true;
}

// What package mode sends to a host: the .deb, the token, the agent's port and arguments.
std::optional<SystemDeploy> systemDeployFor(const LabOptions& options, const QString& packagePath, const LabHost& host,
                                            const QByteArray& token) {
    QFile package(packagePath);
    if (!package.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "smclab lab deploy: cannot read the package %s: %s\n", qPrintable(packagePath),
                     qPrintable(package.errorString()));
        return std::nullopt;
    }
    SystemDeploy deploy;
    deploy.package = package.readAll();
    deploy.token = token;
    deploy.agentPort = host.agentPort;
    deploy.agentArgs = options.agentArgs;
    return deploy;
}

bool startSystemAgent(const LabOptions& options, const SshTarget& target, const HostProbe& probe,
                      const QString& packagePath, const LabHost& host, const QByteArray& token) {
    std::printf("%s: installing %s and enabling smclab-agent.service (package mode)\n", qPrintable(host.host),
                qPrintable(packagePath));
    std::fflush(stdout);
    const auto deploy = systemDeployFor(options, packagePath, host, token);
    if (!deploy) return false;
    auto status = deploySystemAgent(target, probe, *deploy);
    if (!status) {
        std::fprintf(stderr, "smclab lab deploy: the packaged agent did not start: %s\n",
                     status.error().message.c_str());
        return false;
    }
    std::printf("%s", qPrintable(*status));
    return true;
}

bool installPackageOnly(const LabOptions& options, const SshTarget& target, const HostProbe& probe,
                        const QString& packagePath, const LabHost& host, const QByteArray& token) {
    std::printf("%s: installing %s (package mode, without systemd)\n", qPrintable(host.host), qPrintable(packagePath));
    std::fflush(stdout);
    const auto deploy = systemDeployFor(options, packagePath, host, token);
    if (!deploy) return false;
    if (auto installed = installAgentPackage(target, probe, *deploy); !installed) {
        std::fprintf(stderr, "smclab lab deploy: the package did not install: %s\n", installed.error().message.c_str());
        return false;
    }
    return true;
}

// 32 random bytes, base64: the agent's bearer token (or the shared one);
// none, after saying why, when the shared file holds none.
std::optional<QByteArray> agentToken(const LabOptions& options) {
    if (options.sharedTokenFile.isEmpty()) return freshAgentToken();
    QByteArray token = readToken(options.sharedTokenFile).toUtf8();
    if (token.size() < 8) {
        std::fprintf(stderr, "smclab lab deploy: %s holds no token of at least 8 bytes\n",
                     qPrintable(options.sharedTokenFile));
        return std::nullopt;
    }
    return token;
}

// Package (system) mode where it was asked for or a root login has the
// package at hand, and the host allows it; else user mode, with a note
// why. False (after saying why) when --system cannot be honoured at all.
bool chooseMode(const LabOptions& options, const SshTarget& target, const HostProbe& probe, const QString& package,
                const QByteArray& token, LabHost* host) {
    const QString& hostName = host->host;
    if (!options.system && !(probe.root && !package.isEmpty())) {
        if (probe.root) {
            std::printf(
                "%s: note: logged in as root but no smclab-agent package at hand (--package FILE.deb, or "
                "`cpack -G DEB` in the build tree); deploying the binary in user mode\n",
                qPrintable(hostName));
        }
        return true;
    }
    const QString blocker = probe.packageModeBlocker();
    if (!blocker.isEmpty() && options.system && probe.canInstall() && !package.isEmpty()) {
        // Asked for the package on a host whose systemd is not running
        // (a container being prepared, a namespace): install it all but
        // the unit, which starts once systemd runs there; until then the
        // user-mode agent serves.
        if (!installPackageOnly(options, target, probe, package, *host, token)) return false;
        std::printf(
            "%s: note: %s; the package is installed and configured but its unit is not enabled; "
            "deploying the agent in user mode for now\n",
            qPrintable(hostName), qPrintable(blocker));
    } else if (!blocker.isEmpty()) {
        std::printf("%s: note: no package mode on this host: %s; deploying the agent in user mode instead\n",
                    qPrintable(hostName), qPrintable(blocker));
    } else if (package.isEmpty()) {
        std::fprintf(stderr,
                     "smclab lab deploy: %s: --system needs the smclab-agent package: build it with "
                     "`cpack -G DEB` in the build tree, or give --package FILE.deb\n",
                     qPrintable(hostName));
        return false;
    } else {
        host->mode = QStringLiteral("system");
        host->remoteDir.clear();
    }
    return true;
}

// A host that changes mode keeps no agent of the other mode on its port.
void stopOtherModeAgent(const LabOptions& options, const LabFile& lab, const LabHost& host) {
    const LabHost* previous = lab.find(host.host);
    if (previous == nullptr || previous->mode == host.mode) return;
    if (auto stopped = stopHostAgent(options, *previous); !stopped) {
        std::printf("%s: note: could not stop the %s-mode agent deployed before: %s\n", qPrintable(host.host),
                    qPrintable(previous->mode), stopped.error().message.c_str());
    }
}

// The token beside the lab file, readable by its owner only.
bool writeLocalToken(const LabHost& host, const QByteArray& token) {
    QFile local(host.tokenFile);
    if (!local.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        !local.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) || local.write(token + '\n') < 0) {
        std::fprintf(stderr, "smclab lab deploy: cannot write %s\n", qPrintable(host.tokenFile));
        return false;
    }
    return true;
}

int deployOne(const LabOptions& options, LabFile* lab, const QString& hostName) {
    LabHost host;
    host.host = hostName;
    host.sshUser = options.ssh.user;
    host.sshPort = options.ssh.port;
    host.remoteDir = options.remoteDir;
    host.agentPort = options.agentPort;
    QString why;
    host.tokenFile = tokenPathFor(options.labPath, hostName, &why);
    if (host.tokenFile.isEmpty()) {
        std::fprintf(stderr, "smclab lab deploy: %s\n", qPrintable(why));
        return kExitFailure;
    }
    const std::optional<QByteArray> token = agentToken(options);
    if (!token) return kExitFailure;
    const SshTarget target = targetFor(options, host);
    // An ssh alias (a Host block with HostName) is no DNS name: the
    // controller dials the address ssh resolves it to.
    auto address = resolveSshHost(target);
    if (!address) {
        std::fprintf(stderr, "smclab lab deploy: %s\n", address.error().message.c_str());
        return kExitFailure;
    }
    if (*address != hostName) host.address = *address;
    auto probe = probeHost(target);
    if (!probe) {
        std::fprintf(stderr, "smclab lab deploy: %s\n", probe.error().message.c_str());
        return kExitFailure;
    }
    const QString package = findAgentPackage(options.packagePath);
    if (!chooseMode(options, target, *probe, package, *token, &host)) return kExitFailure;
    stopOtherModeAgent(options, *lab, host);
    const bool started = host.mode == QLatin1String("system")
                             ? startSystemAgent(options, target, *probe, package, host, *token)
                             : startUserAgent(options, target, host, *token);
    if (!started || !writeLocalToken(host, *token)) return kExitFailure;
    auto hello = fetchHello(host.dialHost(), host.agentPort, QString::fromUtf8(*token));
    if (!hello) {
        std::fprintf(stderr, "smclab lab deploy: the agent started but does not answer: %s\n",
                     hello.error().message.c_str());
        return kExitFailure;
    }
    lab->upsert(host);
    std::printf("%s: agent up on %s:%u (%s)\n", qPrintable(hostName), qPrintable(host.dialHost()), host.agentPort,
                qPrintable(describe(*hello)));
    return kExitOk;
}

int status(const LabOptions& options, const LabFile& lab) {
    int down = 0;
    for (const LabHost& host : lab.hosts) {
        if (!options.hosts.isEmpty() && !options.hosts.contains(host.host)) continue;
        auto hello = fetchHello(host.dialHost(), host.agentPort, readToken(host.tokenFile), 5000);
        if (hello) {
            std::printf("%-24s up    %s:%u  %s (%s mode)\n", qPrintable(host.host), qPrintable(host.host),
                        host.agentPort, qPrintable(describe(*hello)), qPrintable(host.mode));
        } else {
            ++down;
            std::printf("%-24s down  %s:%u  %s\n", qPrintable(host.host), qPrintable(host.host), host.agentPort,
                        hello.error().message.c_str());
        }
    }
    if (lab.hosts.isEmpty())
        std::printf("no hosts in %s (smclab lab deploy HOST adds one)\n", qPrintable(options.labPath));
    return down == 0 ? kExitOk : kExitFailure;
}

int stop(const LabOptions& options, const LabFile& lab) {
    int failed = 0;
    for (const QString& name : options.hosts) {
        const LabHost* host = lab.find(name);
        if (host == nullptr) {
            std::fprintf(stderr, "smclab lab stop: %s is not in %s\n", qPrintable(name), qPrintable(options.labPath));
            ++failed;
            continue;
        }
        auto stopped = stopHostAgent(options, *host);
        if (!stopped) {
            std::fprintf(stderr, "smclab lab stop: %s\n", stopped.error().message.c_str());
            ++failed;
            continue;
        }
        std::printf("%s: %s\n", qPrintable(name), qPrintable(stopped->trimmed()));
    }
    return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace

int runLab(const Args& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        printLabHelp();
        return args.empty() ? kExitUsage : kExitOk;
    }
    const std::string sub = args[0];
    const Args rest(args.begin() + 1, args.end());
    if (sub == "vm") return runLabVm(rest, {});
    ArgCursor cursor(rest);
    LabOptions options;
    QString labArg;
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printLabHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--lab"))
            labArg = QString::fromStdString(*v);
        else if (auto u = cursor.takeValue("--user"))
            options.ssh.user = QString::fromStdString(*u);
        else if (auto p = cursor.takeValue("--port"))
            options.ssh.port = QString::fromStdString(*p).toInt();
        else if (auto c = cursor.takeValue("--ssh-config"))
            options.ssh.configFile = QString::fromStdString(*c);
        else if (auto a = cursor.takeValue("--agent-port"))
            options.agentPort = static_cast<quint16>(QString::fromStdString(*a).toUInt());
        else if (auto x = cursor.takeValue("--agent-arg"))
            options.agentArgs << QString::fromStdString(*x);
        else if (auto b = cursor.takeValue("--agent-binary"))
            options.agentBinary = QString::fromStdString(*b);
        else if (auto t = cursor.takeValue("--token-file"))
            options.sharedTokenFile = QString::fromStdString(*t);
        else if (cursor.takeFlag("--system"))
            options.system = true;
        else if (auto k = cursor.takeValue("--package"))
            options.packagePath = QString::fromStdString(*k);
        else if (auto r = cursor.takeValue("--remote-dir"))
            options.remoteDir = QString::fromStdString(*r);
        else if (!cursor.peek().empty() && cursor.peek()[0] == '-')
            cursor.setError(cursor.unknownOption());
        else
            options.hosts << QString::fromStdString(cursor.next());
        if (!cursor.error().empty()) break;
    }
    if (cursor.error().empty() && (options.ssh.port < 0 || options.ssh.port > 65535 || options.agentPort == 0)) {
        cursor.setError("--port and --agent-port must be 1..65535");
    }
    if (cursor.error().empty() && (sub == "deploy" || sub == "stop") && options.hosts.isEmpty()) {
        cursor.setError(sub + " needs at least one HOST");
    }
    if (!cursor.error().empty()) {
        std::fprintf(stderr, "smclab lab %s: %s\n(see smclab lab --help)\n", sub.c_str(), cursor.error().c_str());
        return kExitUsage;
    }
    ensureCoreApplication();
    options.labPath = resolveLabPath(labArg);
    if (options.agentBinary.isEmpty())
        options.agentBinary = QCoreApplication::applicationDirPath() + QStringLiteral("/smclab-agent");
    QString why;
    auto lab = loadLab(options.labPath, &why);
    if (!lab) {
        std::fprintf(stderr, "smclab lab %s: %s\n", sub.c_str(), qPrintable(why));
        return kExitFailure;
    }
    if (sub == "status") return status(options, *lab);
    if (sub == "stop") return stop(options, *lab);
    if (sub != "deploy") {
        std::fprintf(stderr, "smclab lab: unknown subcommand '%s'\n(see smclab lab --help)\n", sub.c_str());
        return kExitUsage;
    }
    int failed = 0;
    for (const QString& host : options.hosts) {
        if (deployOne(options, &*lab, host) != kExitOk) ++failed;
        if (!saveLab(options.labPath, *lab, &why)) {
            std::fprintf(stderr, "smclab lab deploy: %s\n", qPrintable(why));
            return kExitFailure;
        }
    }
    return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
