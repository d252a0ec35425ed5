#include "vm_hosts.h"

#include <csignal>

#include <fcntl.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpServer>
#include <QThread>
#include <QUdpSocket>

#include "agent_hello.h"
#include "kvm_probe.h"
#include "ssh_remote.h"
#include "vm_guest_files.h"
#include "vm_kernel.h"
#include "vm_tools.h"

namespace smclab::lab::vm {

namespace {

constexpr quint16 kGuestAgentPort = 7600;
constexpr int kPollMs = 200;
constexpr int kConsoleTailLines = 12;

// The virtual links' subnets: they exist only between the guests (the host
// sees UDP datagrams on 127.0.0.1), like the local lab's namespaces.
QString linkAddress(int link, int index) {
    return QStringLiteral("10.77.%1.%2").arg(link).arg(index);
}
QString linkNet(int link) {
    return QStringLiteral("10.77.%1.0/24").arg(link);
}

QString vmDirFor(const QString& labPath, const QString& name) {
    return QFileInfo(labPath).absoluteFilePath() + QStringLiteral(".vm/") + name;
}

bool writeFile(const QString& path, const QByteArray& bytes, QFileDevice::Permissions perms, QString* why) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size() ||
        !f.setPermissions(perms)) {
        *why = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

// A port nobody on 127.0.0.1 holds right now (TCP for the agent's forward,
// UDP for the link's ends).
quint16 freeTcpPort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
    return probe.serverPort();
}
quint16 freeUdpPort() {
    QUdpSocket probe;
    if (!probe.bind(QHostAddress::LocalHost, 0)) return 0;
    return probe.localPort();
}

QString stripTerminalCodes(QString text) {
    static const QRegularExpression kEscapes(QStringLiteral("\x1b(\\[[0-9;?]*[A-Za-z]|c)"));
    text.remove(kEscapes);
    text.remove(QLatin1Char('\r'));
    return text;
}

QString consoleTail(const QString& vmDir, int lines) {
    QFile f(vmDir + QStringLiteral("/console.log"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    if (f.size() > 64 * 1024) f.seek(f.size() - 64 * 1024);
    QStringList all = stripTerminalCodes(QString::fromUtf8(f.readAll())).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    // Call-trace lines ("[  7.59]  ? do_sys_openat2") are noise in a summary.
    static const QRegularExpression kTrace(QStringLiteral("^\\[ *[0-9.]+\\]  "));
    all.removeIf([](const QString& line) { return kTrace.match(line).hasMatch(); });
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join(QLatin1Char('\n'));
}

// The "smclab-vm: FAILED: ..." line of the console, or "".
QString consoleFailure(const QString& vmDir) {
    const QString tail = consoleTail(vmDir, 200);
    const qsizetype at = tail.lastIndexOf(QStringLiteral("smclab-vm: FAILED: "));
    if (at < 0) {
        if (tail.contains(QStringLiteral("Kernel panic"))) return QStringLiteral("the guest kernel panicked");
        return {};
    }
    return tail.mid(at + 19).section(QLatin1Char('\n'), 0, 0).trimmed();
}

qint64 readPid(const QString& vmDir) {
    QFile f(vmDir + QStringLiteral("/qemu.pid"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    return f.readAll().trimmed().toLongLong();
}

// The pid is QEMU's still (not a reused number).
bool qemuAlive(qint64 pid) {
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0) return false;
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    return cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains("qemu-system");
}

bool kvmUsable() {
    const int fd = ::open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (fd < 0) return false;
    ::close(fd);
    return true;
}

// --accel auto: KVM where /dev/kvm opens and a probe boot under it gets
// through the kernel's early boot (kvm_probe.h), else TCG; `why` says why
// not KVM when /dev/kvm opens but does not boot.
QString accelName(VmAccel accel, const VmKernel& kernel, QString* why) {
    if (accel == VmAccel::kvm) return QStringLiteral("kvm");
    if (accel == VmAccel::tcg || !kvmUsable()) return QStringLiteral("tcg");
    const KvmVerdict kvm = probeKvmBoot(kernel);
    if (kvm.boots) return QStringLiteral("kvm");
    *why = kvm.why;
    return QStringLiteral("tcg");
}

struct Plan {
    QString name;
    QString dir;
    int index = 0;  // 1-based: the host's number on the links
    quint16 forwardPort = 0;
    QList<QPair<quint16, quint16>> linkPorts;  // per link: this end, the other end
    QByteArray token;
    QElapsedTimer started;
    bool ready = false;
    VmHostUp up;
};

QByteArray envFile(const Plan& plan, const VmUpOptions& o, const QString& accel, const QString& binDir) {
    QStringList lines;
    auto put = [&](const char* key, const QString& value) {
        lines << QString::fromLatin1(key) + QLatin1Char('=') + shellQuote(value);
    };
    put("VM_NAME", plan.name);
    put("VM_ACCEL", accel);
    put("VM_LINK_ADDR", linkAddress(0, plan.index));
    put("VM_LINK_NET", linkNet(0));
    put("VM_LINK2_ADDR", o.links > 1 ? linkAddress(1, plan.index) : QString());
    put("VM_LINK2_NET", o.links > 1 ? linkNet(1) : QString());
    put("VM_UEID", o.ueid);
    put("VM_PNET", o.pnet);
    put("VM_SYSCTLS", o.sysctls.join(QLatin1Char(' ')));
    put("VM_AGENT_PORT", QString::number(kGuestAgentPort));
    put("SMCLAB_BIN", binDir);
    return lines.join(QLatin1Char('\n')).toUtf8() + '\n';
}

QStringList qemuArguments(const Plan& plan, const VmUpOptions& o, const VmKernel& kernel, const QString& accel) {
    QStringList a{QStringLiteral("-name"), QStringLiteral("smclab-") + plan.name, QStringLiteral("-accel")};
    a << (accel == QLatin1String("kvm") ? QStringLiteral("kvm") : QStringLiteral("tcg,thread=multi"));
    a << QStringLiteral("-cpu") << (accel == QLatin1String("kvm") ? QStringLiteral("host") : QStringLiteral("max"));
    a << QStringLiteral("-m") << QString::number(o.memoryMb) << QStringLiteral("-smp") << QString::number(o.cpus);
    a << QStringLiteral("-nodefaults") << QStringLiteral("-no-reboot") << QStringLiteral("-display")
      << QStringLiteral("none");
    a << QStringLiteral("-serial") << QStringLiteral("file:") + plan.dir + QStringLiteral("/console.log");
    a << QStringLiteral("-daemonize") << QStringLiteral("-pidfile") << plan.dir + QStringLiteral("/qemu.pid");
    a << QStringLiteral("-kernel") << kernel.vmlinuz << QStringLiteral("-initrd") << kernel.initramfs;
    a << QStringLiteral("-append") << QStringLiteral("console=ttyS0 quiet panic=-1 net.ifnames=0");
    const QString fs = QStringLiteral("local,security_model=none,");
    a << QStringLiteral("-virtfs") << fs + QStringLiteral("path=/,mount_tag=hostroot,readonly=on,multidevs=remap");
    a << QStringLiteral("-virtfs") << fs + QStringLiteral("path=%1,mount_tag=modules,readonly=on").arg(kernel.modules);
    a << QStringLiteral("-virtfs") << fs + QStringLiteral("path=%1/share,mount_tag=share").arg(plan.dir);
    // PCI slots fix the guest's names: slot 0x10 eth0 (link 0), 0x11 eth1
    // (control), 0x12 eth2 (link 1); the 9p devices take the low slots.
    // romfile= skips iPXE's option ROM.
    auto link = [&](int n, int slot) {
        const auto [local, remote] = plan.linkPorts[n];
        a << QStringLiteral("-netdev")
          << QStringLiteral(
                 "dgram,id=link%1,local.type=inet,local.host=127.0.0.1,local.port=%2,"
                 "remote.type=inet,remote.host=127.0.0.1,remote.port=%3")
                 .arg(n)
                 .arg(local)
                 .arg(remote);
        a << QStringLiteral("-device")
          << QStringLiteral("virtio-net-pci,netdev=link%1,mac=52:54:00:5c:%2:%3,romfile=,addr=0x%4")
                 .arg(n)
                 .arg(n, 2, 10, QLatin1Char('0'))
                 .arg(plan.index, 2, 16, QLatin1Char('0'))
                 .arg(slot, 0, 16);
    };
    link(0, 0x10);
    a << QStringLiteral("-netdev")
      << QStringLiteral("user,id=ctl,net=10.0.2.0/24,hostfwd=tcp:127.0.0.1:%1-:%2")
             .arg(plan.forwardPort)
             .arg(kGuestAgentPort);
    a << QStringLiteral("-device") << QStringLiteral("virtio-net-pci,netdev=ctl,romfile=,addr=0x11");
    if (o.links > 1) link(1, 0x12);
    return a;
}

void stopProcess(qint64 pid, const QString& vmDir) {
    // Ask the guest first (it syncs and powers off), then QEMU itself.
    QFile(vmDir + QStringLiteral("/share/poweroff")).open(QIODevice::WriteOnly);
    for (int i = 0; i < 15 && qemuAlive(pid); ++i) QThread::msleep(kPollMs);
    if (qemuAlive(pid)) ::kill(static_cast<pid_t>(pid), SIGTERM);
    for (int i = 0; i < 25 && qemuAlive(pid); ++i) QThread::msleep(kPollMs);
    if (qemuAlive(pid)) ::kill(static_cast<pid_t>(pid), SIGKILL);
}

smcr::Unexpected hostError(const Plan& plan, const QString& what) {
    const QString tail = consoleTail(plan.dir, kConsoleTailLines);
    return smcr::fail(smcr::Errc::connectionRefused,
                      QStringLiteral("%1: %2%3")
                          .arg(plan.name, what,
                               tail.isEmpty() ? QStringLiteral(" (console empty)")
                                              : QStringLiteral("; console's last lines:\n") + tail)
                          .toStdString());
}

// Prepares one host's folder and starts its QEMU (which daemonizes once running).
smcr::Status startHost(Plan* plan, const VmUpOptions& o, const VmKernel& kernel, const QString& accel,
                       const QString& binDir) {
    QDir(plan->dir).removeRecursively();
    QString why;
    if (!QDir().mkpath(plan->dir + QStringLiteral("/share/exec")))
        return smcr::fail(smcr::Errc::systemError, "cannot create " + plan->dir.toStdString());
    const auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    const auto script = ownerOnly | QFileDevice::ExeOwner;
    if (!writeFile(plan->dir + QStringLiteral("/share/guest.sh"), guestHostScript(), script, &why) ||
        !writeFile(plan->dir + QStringLiteral("/share/vm.env"), envFile(*plan, o, accel, binDir), ownerOnly, &why) ||
        !writeFile(plan->dir + QStringLiteral("/share/agent.token"), plan->token + '\n', ownerOnly, &why))
        return smcr::fail(smcr::Errc::systemError, why.toStdString());
    plan->started.start();
    auto started =
        runTool(QStringList{QStringLiteral("qemu-system-x86_64")} + qemuArguments(*plan, o, kernel, accel), {}, 60'000);
    if (!started) return smcr::fail(smcr::Errc::systemError, plan->name.toStdString() + ": " + started.error().message);
    return {};
}

// Reads the guest's "ready" line: uptimes at boot, modules, rxe, agent.
void readReady(const QString& readyFile, VmHostUp* up) {
    QFile f(readyFile);
    if (!f.open(QIODevice::ReadOnly)) return;
    const QStringList t = QString::fromUtf8(f.readAll()).simplified().split(QLatin1Char(' '));
    if (t.size() < 4) return;
    up->bootS = t[0].toDouble();
    up->modulesS = t[1].toDouble();
    up->rxeS = t[2].toDouble();
    up->agentS = t[3].toDouble();
}

}  // namespace

smcr::Result<QList<VmHostUp>> vmUp(const VmUpOptions& o, const VmProgress& progress) {
    if (o.count < 1 || o.count > 2)
        return smcr::fail(smcr::Errc::invalidArgument, "VM hosts: 1 or 2 (one virtual link joins two hosts)");
    if (o.links < 1 || o.links > 2) return smcr::fail(smcr::Errc::invalidArgument, "links per host: 1 or 2");
    if (o.memoryMb < 256 || o.cpus < 1) return smcr::fail(smcr::Errc::invalidArgument, "memory >= 256 MiB, cpus >= 1");
    const QString binDir = o.binDir.isEmpty() ? QCoreApplication::applicationDirPath() : o.binDir;
    for (const char* program : {"smclab", "smclab-agent"}) {
        if (!QFileInfo(binDir + QLatin1Char('/') + QLatin1String(program)).isExecutable())
            return smcr::fail(smcr::Errc::notFound, QStringLiteral("no %1 in %2 (the guests run the host's build)")
                                                        .arg(QLatin1String(program), binDir)
                                                        .toStdString());
    }
    if (QStandardPaths::findExecutable(QStringLiteral("qemu-system-x86_64")).isEmpty())
        return smcr::fail(smcr::Errc::notFound, "qemu-system-x86_64 not found (Debian package qemu-system-x86)");
    auto kernel = ensureKernel(o.kernelVersion.isEmpty() ? vmKernelVersion() : o.kernelVersion,
                               [&](const QString& step) { progress({}, step); });
    if (!kernel) return smcr::fail(kernel.error());
    QString notKvm;
    const QString accel = accelName(o.accel, *kernel, &notKvm);
    if (accel == QLatin1String("kvm") && !kvmUsable())
        return smcr::fail(smcr::Errc::notSupported, "--accel kvm: /dev/kvm cannot be opened");
    if (!notKvm.isEmpty())
        progress({}, QStringLiteral("/dev/kvm opens but a guest does not boot under it (%1): TCG").arg(notKvm));

    QList<Plan> plans;
    QStringList names;
    for (int i = 1; i <= o.count; ++i) names << o.namePrefix + QString::number(i);
    if (auto stopped = vmDown(o.labPath, names); !stopped) return smcr::fail(stopped.error());
    for (int i = 1; i <= o.count; ++i) {
        Plan plan;
        plan.name = names[i - 1];
        plan.dir = vmDirFor(o.labPath, plan.name);
        plan.index = i;
        plan.forwardPort = freeTcpPort();
        plan.token = freshAgentToken();
        plans << plan;
    }
    for (int link = 0; link < o.links; ++link) {
        const quint16 a = freeUdpPort();
        const quint16 b = freeUdpPort();
        plans[0].linkPorts << qMakePair(a, b);
        if (plans.size() > 1) plans[1].linkPorts << qMakePair(b, a);
    }
    auto stopAll = [&] {
        for (const Plan& p : plans) stopProcess(readPid(p.dir), p.dir);
    };
    for (Plan& plan : plans) {
        progress(plan.name, QStringLiteral("booting %1 under %2").arg(kernel->version, accel.toUpper()));
        if (smcr::Status st = startHost(&plan, o, *kernel, accel, binDir); !st.ok()) {
            stopAll();
            return smcr::fail(st.error());
        }
    }
    QElapsedTimer deadline;
    deadline.start();
    for (int waiting = plans.size(); waiting > 0;) {
        for (Plan& plan : plans) {
            if (plan.ready) continue;
            const QString failure = consoleFailure(plan.dir);
            if (!failure.isEmpty()) {
                stopAll();
                return hostError(plan, failure);
            }
            if (!qemuAlive(readPid(plan.dir))) {
                stopAll();
                return hostError(plan, QStringLiteral("QEMU exited during boot"));
            }
            if (!QFileInfo::exists(plan.dir + QStringLiteral("/share/ready"))) continue;
            auto hello =
                fetchHello(QStringLiteral("127.0.0.1"), plan.forwardPort, QString::fromLatin1(plan.token), 30'000);
            if (!hello) {
                stopAll();
                return hostError(
                    plan, QStringLiteral("its agent did not answer: ") + QString::fromStdString(hello.error().message));
            }
            plan.ready = true;
            --waiting;
            VmHostUp& up = plan.up;
            readReady(plan.dir + QStringLiteral("/share/ready"), &up);
            up.wallS = static_cast<double>(plan.started.elapsed()) / 1000.0;
            up.accel = accel;
            up.kernel = kernel->version;
            up.linkAddress = linkAddress(0, plan.index);
            progress(plan.name,
                     QStringLiteral("agent %1 answered after %2 s (guest: boot %3 s, modules %4 s, rxe %5 s, "
                                    "agent %6 s)")
                         .arg(hello->agentVersion)
                         .arg(up.wallS, 0, 'f', 1)
                         .arg(up.bootS, 0, 'f', 1)
                         .arg(up.modulesS - up.bootS, 0, 'f', 1)
                         .arg(up.rxeS - up.modulesS, 0, 'f', 1)
                         .arg(up.agentS - up.rxeS, 0, 'f', 1));
        }
        if (waiting == 0) break;
        if (deadline.elapsed() > o.bootTimeoutMs) {
            for (const Plan& plan : plans) {
                if (plan.ready) continue;
                const auto error = hostError(plan, QStringLiteral("not ready within %1 s").arg(o.bootTimeoutMs / 1000));
                stopAll();
                return error;
            }
        }
        QThread::msleep(kPollMs);
    }

    QString why;
    auto lab = loadLab(o.labPath, &why);
    if (!lab) {
        stopAll();
        return smcr::fail(smcr::Errc::systemError, why.toStdString());
    }
    QList<VmHostUp> out;
    for (Plan& plan : plans) {
        LabHost& h = plan.up.host;
        h.host = plan.name;
        h.address = QStringLiteral("127.0.0.1");
        h.agentPort = plan.forwardPort;
        h.mode = QStringLiteral("vm");
        h.vmDir = plan.dir;
        h.tokenFile = tokenPathFor(o.labPath, plan.name, &why);
        if (h.tokenFile.isEmpty() ||
            !writeFile(h.tokenFile, plan.token + '\n', QFileDevice::ReadOwner | QFileDevice::WriteOwner, &why)) {
            stopAll();
            return smcr::fail(smcr::Errc::systemError, why.toStdString());
        }
        lab->upsert(h);
        out << plan.up;
    }
    if (!saveLab(o.labPath, *lab, &why)) {
        stopAll();
        return smcr::fail(smcr::Errc::systemError, why.toStdString());
    }
    return out;
}

VmHostState vmState(const LabHost& host) {
    VmHostState s;
    s.name = host.host;
    s.pid = readPid(host.vmDir);
    s.running = qemuAlive(s.pid);
    s.consoleTail = consoleTail(host.vmDir, kConsoleTailLines);
    return s;
}

smcr::Result<QStringList> vmDown(const QString& labPath, const QStringList& names) {
    QString why;
    auto lab = loadLab(labPath, &why);
    if (!lab) return smcr::fail(smcr::Errc::systemError, why.toStdString());
    QStringList stopped;
    QList<LabHost> kept;
    for (const LabHost& h : lab->hosts) {
        const bool chosen = h.mode == QLatin1String("vm") && (names.isEmpty() || names.contains(h.host));
        if (!chosen) {
            kept << h;
            continue;
        }
        stopProcess(readPid(h.vmDir), h.vmDir);
        stopped << h.host;
    }
    // A VM of these names left running by a lab file that lost it.
    for (const QString& name : names) {
        if (stopped.contains(name)) continue;
        const QString dir = vmDirFor(labPath, name);
        if (qemuAlive(readPid(dir))) {
            stopProcess(readPid(dir), dir);
            stopped << name;
        }
    }
    if (kept.size() != lab->hosts.size()) {
        lab->hosts = kept;
        if (!saveLab(labPath, *lab, &why)) return smcr::fail(smcr::Errc::systemError, why.toStdString());
    }
    return stopped;
}

smcr::Result<VmExecResult> vmExec(const LabHost& host, const QString& script, int timeoutMs) {
    if (host.mode != QLatin1String("vm"))
        return smcr::fail(smcr::Errc::invalidArgument, host.host.toStdString() + " is not a VM lab host");
    if (!qemuAlive(readPid(host.vmDir)))
        return smcr::fail(smcr::Errc::connectionRefused, host.host.toStdString() + ": the VM is not running");
    const QString dir = host.vmDir + QStringLiteral("/share/exec/");
    const QString base = dir + QStringLiteral("%1-%2")
                                   .arg(QCoreApplication::applicationPid())
                                   .arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    QString why;
    if (!writeFile(base + QStringLiteral(".tmp"), script.toUtf8() + '\n',
                   QFileDevice::ReadOwner | QFileDevice::WriteOwner, &why) ||
        !QFile::rename(base + QStringLiteral(".tmp"), base + QStringLiteral(".sh")))
        return smcr::fail(smcr::Errc::systemError, why.toStdString());
    QElapsedTimer timer;
    timer.start();
    while (!QFileInfo::exists(base + QStringLiteral(".rc"))) {
        if (timer.elapsed() > timeoutMs) {
            return smcr::fail(smcr::Errc::timedOut,
                              QStringLiteral("%1: the command did not finish within %2 s (it may still run)")
                                  .arg(host.host)
                                  .arg(timeoutMs / 1000)
                                  .toStdString());
        }
        if (!qemuAlive(readPid(host.vmDir)))
            return smcr::fail(smcr::Errc::connectionAborted, host.host.toStdString() + ": the VM stopped");
        QThread::msleep(50);
    }
    VmExecResult r;
    QFile rc(base + QStringLiteral(".rc"));
    if (rc.open(QIODevice::ReadOnly)) r.exitCode = rc.readAll().trimmed().toInt();
    QFile out(base + QStringLiteral(".out"));
    if (out.open(QIODevice::ReadOnly)) r.output = out.readAll();
    for (const char* suffix : {".rc", ".out", ".run"}) QFile::remove(base + QLatin1String(suffix));
    return r;
}

}  // namespace smclab::lab::vm
