// smclab lab deploy|status|stop: the printing front of the lab library's
// SSH deploy (lab_deploy.h), status and stop (lab_status.h). The library
// does the work and hands back each step and error; this prints them.
#include <cstdio>

#include "args.h"
#include "campaign_console.h"
#include "commands.h"
#include "lab_deploy.h"
#include "lab_file.h"
#include "lab_status.h"
#include "lab_user.h"

namespace smclab::cli {

// The lab library's hosts, lab file and agents (agents/lab).
using namespace smclab::lab;

namespace {

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
    DeployOptions deploy;  // deploy's options; its ssh and labPath serve status and stop too
    QStringList hosts;
};

// Each step and note of a deploy as it happens: stdout, as a log of the run.
void printDeployNote(const DeployNote& note) {
    std::printf("%s", qPrintable(deployNoteText(note)));
    std::fflush(stdout);
}

int status(const LabOptions& options, const LabFile& lab) {
    int down = 0;
    for (const LabAgentStatus& s : labStatus(lab, options.hosts)) {
        if (s.up) {
            std::printf("%-24s up    %s:%u  %s (%s mode)\n", qPrintable(s.host.host), qPrintable(s.host.host),
                        s.host.agentPort, qPrintable(s.detail), qPrintable(s.host.mode));
        } else {
            ++down;
            std::printf("%-24s down  %s:%u  %s\n", qPrintable(s.host.host), qPrintable(s.host.host), s.host.agentPort,
                        qPrintable(s.detail));
        }
    }
    if (lab.hosts.isEmpty())
        std::printf("no hosts in %s (smclab lab deploy HOST adds one)\n", qPrintable(options.deploy.labPath));
    return down == 0 ? kExitOk : kExitFailure;
}

int stop(const LabOptions& options, const LabFile& lab) {
    int failed = 0;
    for (const QString& name : options.hosts) {
        const LabHost* host = lab.find(name);
        if (host == nullptr) {
            std::fprintf(stderr, "smclab lab stop: %s is not in %s\n", qPrintable(name),
                         qPrintable(options.deploy.labPath));
            ++failed;
            continue;
        }
        auto stopped = stopLabAgent(options.deploy.ssh, *host);
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
    DeployOptions& deploy = options.deploy;
    QString labArg;
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printLabHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--lab"))
            labArg = QString::fromStdString(*v);
        else if (auto u = cursor.takeValue("--user"))
            deploy.ssh.user = QString::fromStdString(*u);
        else if (auto p = cursor.takeValue("--port"))
            deploy.ssh.port = QString::fromStdString(*p).toInt();
        else if (auto c = cursor.takeValue("--ssh-config"))
            deploy.ssh.configFile = QString::fromStdString(*c);
        else if (auto a = cursor.takeValue("--agent-port"))
            deploy.agentPort = static_cast<quint16>(QString::fromStdString(*a).toUInt());
        else if (auto x = cursor.takeValue("--agent-arg"))
            deploy.agentArgs << QString::fromStdString(*x);
        else if (auto b = cursor.takeValue("--agent-binary"))
            deploy.agentBinary = QString::fromStdString(*b);
        else if (auto t = cursor.takeValue("--token-file"))
            deploy.sharedTokenFile = QString::fromStdString(*t);
        else if (cursor.takeFlag("--system"))
            deploy.system = true;
        else if (auto k = cursor.takeValue("--package"))
            deploy.packagePath = QString::fromStdString(*k);
        else if (auto r = cursor.takeValue("--remote-dir"))
            deploy.remoteDir = QString::fromStdString(*r);
        else if (!cursor.peek().empty() && cursor.peek()[0] == '-')
            cursor.setError(cursor.unknownOption());
        else
            options.hosts << QString::fromStdString(cursor.next());
        if (!cursor.error().empty()) break;
    }
    if (cursor.error().empty() && (deploy.ssh.port < 0 || deploy.ssh.port > 65535 || deploy.agentPort == 0)) {
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
    deploy.labPath = resolveLabPath(labArg);
    QString why;
    auto lab = loadLab(deploy.labPath, &why);
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
        if (auto deployed = deployAgent(deploy, &*lab, host, printDeployNote); !deployed) {
            std::fprintf(stderr, "smclab lab deploy: %s\n", deployed.error().message.c_str());
            ++failed;
        }
        if (!saveLab(deploy.labPath, *lab, &why)) {
            std::fprintf(stderr, "smclab lab deploy: %s\n", qPrintable(why));
            return kExitFailure;
        }
    }
    return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
