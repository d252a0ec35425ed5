// smclab lab vm up|status|down|exec: VM lab hosts (agents/lab/vm), QEMU
// guests with the kernel's SMC-R and soft-RoCE, through the lab library.
#include <cstdio>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>

#include "agent_hello.h"
#include "args.h"
#include "campaign_console.h"
#include "commands.h"
#include "lab_file.h"
#include "ssh_remote.h"
#include "vm_hosts.h"
#include "vm_kernel.h"

namespace smclab::cli {

namespace {

void printVmHelp() {
    std::printf(
        "usage: smclab lab vm up [N] [--links 1|2] [--memory MB] [--cpus N] [--accel auto|kvm|tcg]\n"
        "                        [--kernel VERSION] [--ueid UEID] [--sysctl NAME=VALUE]... [--timeout S]\n"
        "       smclab lab vm status\n"
        "       smclab lab vm down [HOST...]\n"
        "       smclab lab vm exec HOST [--timeout S] -- COMMAND...\n"
        "\n"
        "VM lab hosts: N (1 or 2, default 2) QEMU guests named vm1, vm2 that boot Debian's\n"
        "linux-image-%s (fetched with apt-get download into %s),\n"
        "share this host's programs read-only, and are joined by a virtual link with\n"
        "soft-RoCE (rxe0) on it, the kernel's SMC-R set up (UEID, pnet table, net.smc\n"
        "sysctls) and smclab-agent running with a fresh token. They land in the lab file,\n"
        "so `smclab run --lab` and the GUI use them like other lab hosts, over the tcp,\n"
        "ksmc (kernel SMC-R) and smcr (libsmcr, --transport-opt fabric=verbs) transports.\n"
        "KVM where /dev/kvm opens and a probe guest boots under it, else TCG: emulated,\n"
        "so timings are not the host's.\n"
        "\n"
        "options:\n"
        "  --lab FILE          lab file (default: $SMCLAB_LAB, else ~/.config/smclab/lab.json)\n"
        "  --links 2           a second virtual link and rxe1 per host (the kernel's second link)\n"
        "  --sysctl N=V        a net.smc sysctl at boot (default smcr_max_links_per_lgr=1:\n"
        "                      6.12's second link over rxe fails and hangs the client)\n"
        "  --kernel VERSION    another linux-image package version ($SMCLAB_VM_KERNEL)\n"
        "  --timeout S         boot deadline (default 240 s), or exec's\n",
        smclab::lab::vm::kPinnedKernel, qPrintable(smclab::lab::vm::vmCacheDir()));
}

int usage(const std::string& message) {
    std::fprintf(stderr, "smclab lab vm: %s\n(see smclab lab vm --help)\n", message.c_str());
    return kExitUsage;
}

int vmUpCommand(ArgCursor& cursor, QString labArg) {
    using namespace smclab::lab::vm;
    VmUpOptions o;
    bool sysctlGiven = false;
    while (!cursor.done()) {
        if (auto v = cursor.takeValue("--lab")) {
            labArg = QString::fromStdString(*v);
        } else if (auto l = cursor.takeValue("--links")) {
            o.links = QString::fromStdString(*l).toInt();
        } else if (auto m = cursor.takeValue("--memory")) {
            o.memoryMb = QString::fromStdString(*m).toInt();
        } else if (auto c = cursor.takeValue("--cpus")) {
            o.cpus = QString::fromStdString(*c).toInt();
        } else if (auto k = cursor.takeValue("--kernel")) {
            o.kernelVersion = QString::fromStdString(*k);
        } else if (auto u = cursor.takeValue("--ueid")) {
            o.ueid = QString::fromStdString(*u);
        } else if (auto t = cursor.takeValue("--timeout")) {
            o.bootTimeoutMs = QString::fromStdString(*t).toInt() * 1000;
        } else if (auto s = cursor.takeValue("--sysctl")) {
            if (!sysctlGiven) o.sysctls.clear();
            sysctlGiven = true;
            const QString kv = QString::fromStdString(*s).remove(QStringLiteral("net.smc."));
            if (!kv.contains(QLatin1Char('=')) || kv.contains(QLatin1Char(' ')))
                return usage("--sysctl takes NAME=VALUE, got '" + *s + "'");
            o.sysctls << kv;
        } else if (auto a = cursor.takeValue("--accel")) {
            if (*a == "auto")
                o.accel = VmAccel::automatic;
            else if (*a == "kvm")
                o.accel = VmAccel::kvm;
            else if (*a == "tcg")
                o.accel = VmAccel::tcg;
            else
                return usage("--accel: auto, kvm or tcg");
        } else if (!cursor.peek().empty() && cursor.peek()[0] == '-') {
            return usage(cursor.unknownOption());
        } else {
            bool ok = false;
            o.count = QString::fromStdString(cursor.next()).toInt(&ok);
            if (!ok) return usage("up takes a number of hosts");
        }
        if (!cursor.error().empty()) return usage(cursor.error());
    }
    if (o.bootTimeoutMs <= 0) return usage("--timeout must be positive");
    o.labPath = lab::resolveLabPath(labArg);
    QElapsedTimer timer;
    timer.start();
    auto up = vmUp(o, [](const QString& host, const QString& step) {
        std::fprintf(stderr, "%s%s\n", host.isEmpty() ? "" : qPrintable(host + QStringLiteral(": ")), qPrintable(step));
    });
    if (!up) {
        std::fprintf(stderr, "smclab lab vm up: %s\n", up.error().message.c_str());
        return kExitFailure;
    }
    std::printf("%-6s %-22s %-5s %-12s %s\n", "host", "agent", "accel", "link", "kernel");
    for (const VmHostUp& h : *up) {
        std::printf("%-6s %-22s %-5s %-12s %s\n", qPrintable(h.host.host),
                    qPrintable(QStringLiteral("%1:%2").arg(h.host.dialHost()).arg(h.host.agentPort)),
                    qPrintable(h.accel), qPrintable(h.linkAddress), qPrintable(h.kernel));
    }
    std::printf("%lld hosts ready in %.1f s; recorded in %s\n", static_cast<long long>(up->size()),
                static_cast<double>(timer.elapsed()) / 1000.0, qPrintable(o.labPath));
    return kExitOk;
}

int vmStatusCommand(const QString& labPath) {
    QString why;
    const auto lab = lab::loadLab(labPath, &why);
    if (!lab) {
        std::fprintf(stderr, "smclab lab vm status: %s\n", qPrintable(why));
        return kExitFailure;
    }
    int vms = 0;
    int bad = 0;
    for (const lab::LabHost& h : lab->hosts) {
        if (h.mode != QLatin1String("vm")) continue;
        ++vms;
        const lab::vm::VmHostState s = lab::vm::vmState(h);
        if (!s.running) {
            ++bad;
            std::printf("%s: stopped (QEMU is not running); console's last lines:\n%s\n", qPrintable(h.host),
                        qPrintable(s.consoleTail));
            continue;
        }
        QFile tokenFile(h.tokenFile);
        const QString token =
            tokenFile.open(QIODevice::ReadOnly) ? QString::fromUtf8(tokenFile.readAll()).trimmed() : QString();
        auto hello = lab::fetchHello(h.dialHost(), h.agentPort, token, 5000);
        if (!hello) {
            ++bad;
            std::printf("%s: QEMU pid %lld runs, agent %s:%u does not answer: %s\n", qPrintable(h.host),
                        static_cast<long long>(s.pid), qPrintable(h.dialHost()), h.agentPort,
                        hello.error().message.c_str());
            continue;
        }
        std::printf("%s: up, QEMU pid %lld, agent %s:%u %s on %s\n", qPrintable(h.host), static_cast<long long>(s.pid),
                    qPrintable(h.dialHost()), h.agentPort, qPrintable(hello->agentVersion),
                    qPrintable(hello->capabilities.host.hostname));
    }
    if (vms == 0) std::printf("no VM lab hosts in %s (smclab lab vm up)\n", qPrintable(labPath));
    return bad == 0 ? kExitOk : kExitFailure;
}

int vmDownCommand(ArgCursor& cursor, const QString& labPath) {
    QStringList names;
    while (!cursor.done()) names << QString::fromStdString(cursor.next());
    auto stopped = lab::vm::vmDown(labPath, names);
    if (!stopped) {
        std::fprintf(stderr, "smclab lab vm down: %s\n", stopped.error().message.c_str());
        return kExitFailure;
    }
    std::printf("%s\n", stopped->isEmpty()
                            ? "no VM lab host was running"
                            : qPrintable(QStringLiteral("stopped ") + stopped->join(QStringLiteral(", "))));
    return kExitOk;
}

int vmExecCommand(ArgCursor& cursor, const QString& labPath) {
    if (cursor.done()) return usage("exec needs a HOST");
    const QString name = QString::fromStdString(cursor.next());
    int timeoutS = 600;
    QStringList words;
    while (!cursor.done()) {
        if (auto t = cursor.takeValue("--timeout")) {
            timeoutS = QString::fromStdString(*t).toInt();
            continue;
        }
        if (cursor.takeFlag("--")) {
            while (!cursor.done()) words << lab::shellQuote(QString::fromStdString(cursor.next()));
            break;
        }
        return usage("exec HOST [--timeout S] -- COMMAND...");
    }
    if (words.isEmpty() || timeoutS <= 0) return usage("exec HOST [--timeout S] -- COMMAND...");
    QString why;
    const auto lab = lab::loadLab(labPath, &why);
    if (!lab) {
        std::fprintf(stderr, "smclab lab vm exec: %s\n", qPrintable(why));
        return kExitFailure;
    }
    const lab::LabHost* host = lab->find(name);
    if (host == nullptr || host->mode != QLatin1String("vm")) {
        std::fprintf(stderr, "smclab lab vm exec: %s is not a VM lab host of %s\n", qPrintable(name),
                     qPrintable(labPath));
        return kExitFailure;
    }
    auto r = lab::vm::vmExec(*host, words.join(QLatin1Char(' ')), timeoutS * 1000);
    if (!r) {
        std::fprintf(stderr, "smclab lab vm exec: %s\n", r.error().message.c_str());
        return kExitFailure;
    }
    std::fwrite(r->output.constData(), 1, static_cast<size_t>(r->output.size()), stdout);
    return r->exitCode;
}

}  // namespace

int runLabVm(const Args& args, const QString& labArgIn) {
    if (args.empty()) {
        printVmHelp();
        return kExitUsage;
    }
    const std::string sub = args[0];
    // --lab FILE may stand anywhere before exec's "--".
    QString labArg = labArgIn;
    Args rest;
    for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--") {
            rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
            break;
        }
        if (args[i] == "--lab" && i + 1 < args.size()) {
            labArg = QString::fromStdString(args[++i]);
        } else if (args[i].rfind("--lab=", 0) == 0) {
            labArg = QString::fromStdString(args[i].substr(6));
        } else {
            rest.push_back(args[i]);
        }
    }
    ArgCursor cursor(rest);
    if (sub == "--help" || sub == "-h") {
        printVmHelp();
        return kExitOk;
    }
    ensureCoreApplication();
    if (sub == "up") return vmUpCommand(cursor, labArg);
    const QString labPath = lab::resolveLabPath(labArg);
    if (sub == "status") return cursor.done() ? vmStatusCommand(labPath) : usage("status takes no arguments");
    if (sub == "down") return vmDownCommand(cursor, labPath);
    if (sub == "exec") return vmExecCommand(cursor, labPath);
    return usage("unknown subcommand '" + sub + "' (up, status, down, exec)");
}

}  // namespace smclab::cli
