#include "lab_deploy.h"

#include <optional>

#include <QCoreApplication>
#include <QFile>

#include "agent_hello.h"
#include "lab_status.h"
#include "lab_system.h"
#include "lab_user.h"

namespace smclab::lab {

namespace {

constexpr qsizetype kMinSharedTokenBytes = 8;

smcr::Unexpected deployError(const QString& text) {
    return smcr::fail(smcr::Errc::systemError, text.toStdString());
}

QString errorText(const smcr::Error& error) {
    return QString::fromStdString(error.message);
}

// One deploy: its options, the host as it will be recorded, and where its notes go.
struct Deploy {
    const DeployOptions& options;
    const DeployProgress& progress;
    LabHost host;
    SshTarget target;
    QByteArray token;

    void say(DeployNoteKind kind, const QString& text) const {
        if (progress) progress(DeployNote{host.host, kind, text});
    }
    AgentLaunch agent() const { return {token, host.agentPort, options.agentArgs}; }
};

// The agent's bearer token: a fresh one, or the shared file's.
smcr::Result<QByteArray> agentToken(const DeployOptions& options) {
    if (options.sharedTokenFile.isEmpty()) return freshAgentToken();
    QFile file(options.sharedTokenFile);
    QByteArray token;
    if (file.open(QIODevice::ReadOnly)) token = file.readAll().trimmed();
    if (token.size() < kMinSharedTokenBytes) {
        return deployError(QStringLiteral("%1 holds no token of at least 8 bytes").arg(options.sharedTokenFile));
    }
    return token;
}

smcr::Result<QByteArray> readLocalFile(const QString& path, const QString& what) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return deployError(QStringLiteral("cannot read %1%2: %3").arg(what, path, file.errorString()));
    return file.readAll();
}

smcr::Result<void> startUserMode(const Deploy& d) {
    const QString binaryPath = d.options.agentBinary.isEmpty()
                                   ? QCoreApplication::applicationDirPath() + QStringLiteral("/smclab-agent")
                                   : d.options.agentBinary;
    auto binary = readLocalFile(binaryPath, QString());
    if (!binary) return smcr::fail(binary.error());
    const UserDeploy deploy{std::move(*binary), d.host.remoteDir, d.agent()};
    d.say(DeployNoteKind::step, QStringLiteral("copying %1 (user mode)").arg(binaryPath));
    if (auto copied = copyUserAgent(d.target, deploy); !copied) return smcr::fail(copied.error());
    if (auto started = startUserAgent(d.target, deploy); !started)
        return deployError(QStringLiteral("the agent did not start: %1").arg(errorText(started.error())));
    return {};
}

// What package mode sends to a host: the .deb, the token, the agent's port and arguments.
smcr::Result<SystemDeploy> systemDeployFor(const Deploy& d, const QString& packagePath) {
    auto package = readLocalFile(packagePath, QStringLiteral("the package "));
    if (!package) return smcr::fail(package.error());
    return SystemDeploy{std::move(*package), d.agent()};
}

smcr::Result<void> startSystemMode(const Deploy& d, const HostProbe& probe, const QString& packagePath) {
    d.say(DeployNoteKind::step,
          QStringLiteral("installing %1 and enabling smclab-agent.service (package mode)").arg(packagePath));
    const auto deploy = systemDeployFor(d, packagePath);
    if (!deploy) return smcr::fail(deploy.error());
    auto status = deploySystemAgent(d.target, probe, *deploy);
    if (!status)
        return deployError(QStringLiteral("the packaged agent did not start: %1").arg(errorText(status.error())));
    d.say(DeployNoteKind::hostOutput, *status);
    return {};
}

smcr::Result<void> installPackageOnly(const Deploy& d, const HostProbe& probe, const QString& packagePath) {
    d.say(DeployNoteKind::step, QStringLiteral("installing %1 (package mode, without systemd)").arg(packagePath));
    const auto deploy = systemDeployFor(d, packagePath);
    if (!deploy) return smcr::fail(deploy.error());
    if (auto installed = installAgentPackage(d.target, probe, *deploy); !installed)
        return deployError(QStringLiteral("the package did not install: %1").arg(errorText(installed.error())));
    return {};
}

// Package (system) mode where it was asked for or a root login has the
// package at hand, and the host allows it; else user mode, with a note
// why. An error when package mode was asked for and cannot be had at all.
smcr::Result<void> chooseMode(Deploy* d, const HostProbe& probe, const QString& package) {
    const bool system = d->options.system;
    if (!system && !(probe.root && !package.isEmpty())) {
        if (probe.root) {
            d->say(DeployNoteKind::note,
                   QStringLiteral("logged in as root but no smclab-agent package at hand (--package FILE.deb, or "
                                  "`cpack -G DEB` in the build tree); deploying the binary in user mode"));
        }
        return {};
    }
    const QString blocker = probe.packageModeBlocker();
    if (!blocker.isEmpty() && system && probe.canInstall() && !package.isEmpty()) {
        // Asked for the package on a host whose systemd is not running
        // (a container being prepared, a namespace): install it all but
        // the unit, which starts once systemd runs there; until then the
        // user-mode agent serves.
        if (auto installed = installPackageOnly(*d, probe, package); !installed) return smcr::fail(installed.error());
        d->say(DeployNoteKind::note,
               QStringLiteral("%1; the package is installed and configured but its unit is not enabled; "
                              "deploying the agent in user mode for now")
                   .arg(blocker));
    } else if (!blocker.isEmpty()) {
        d->say(
            DeployNoteKind::note,
            QStringLiteral("no package mode on this host: %1; deploying the agent in user mode instead").arg(blocker));
    } else if (package.isEmpty()) {
        return deployError(QStringLiteral("%1: --system needs the smclab-agent package: build it with "
                                          "`cpack -G DEB` in the build tree, or give --package FILE.deb")
                               .arg(d->host.host));
    } else {
        d->host.mode = QStringLiteral("system");
        d->host.remoteDir.clear();
    }
    return {};
}

// A host that changes mode keeps no agent of the other mode on its port.
void stopOtherModeAgent(const Deploy& d, const LabFile& lab) {
    const LabHost* previous = lab.find(d.host.host);
    if (previous == nullptr || previous->mode == d.host.mode) return;
    if (auto stopped = stopLabAgent(d.options.ssh, *previous); !stopped) {
        d.say(DeployNoteKind::note, QStringLiteral("could not stop the %1-mode agent deployed before: %2")
                                        .arg(previous->mode, errorText(stopped.error())));
    }
}

// The token beside the lab file, readable by its owner only.
smcr::Result<void> writeLocalToken(const LabHost& host, const QByteArray& token) {
    QFile local(host.tokenFile);
    if (!local.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        !local.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) || local.write(token + '\n') < 0) {
        return deployError(QStringLiteral("cannot write %1").arg(host.tokenFile));
    }
    return {};
}

}  // namespace

QString deployNoteText(const DeployNote& note) {
    switch (note.kind) {
        case DeployNoteKind::hostOutput:
            return note.text;
        case DeployNoteKind::note:
            return QStringLiteral("%1: note: %2\n").arg(note.host, note.text);
        case DeployNoteKind::step:
        case DeployNoteKind::invalid:
            break;
    }
    return QStringLiteral("%1: %2\n").arg(note.host, note.text);
}

smcr::Result<DeployedAgent> deployAgent(const DeployOptions& options, LabFile* lab, const QString& hostName,
                                        const DeployProgress& progress) {
    Deploy d{options, progress, {}, {}, {}};
    d.host.host = hostName;
    d.host.sshUser = options.ssh.user;
    d.host.sshPort = options.ssh.port;
    d.host.remoteDir = options.remoteDir;
    d.host.agentPort = options.agentPort;
    QString why;
    d.host.tokenFile = tokenPathFor(options.labPath, hostName, &why);
    if (d.host.tokenFile.isEmpty()) return deployError(why);
    auto token = agentToken(options);
    if (!token) return smcr::fail(token.error());
    d.token = *token;
    d.target = sshTargetFor(options.ssh, d.host);
    // An ssh alias (a Host block with HostName) is no DNS name: the
    // controller dials the address ssh resolves it to.
    auto address = resolveSshHost(d.target);
    if (!address) return smcr::fail(address.error());
    if (*address != hostName) d.host.address = *address;
    auto probe = probeHost(d.target);
    if (!probe) return smcr::fail(probe.error());
    const QString package = findAgentPackage(options.packagePath);
    if (auto chosen = chooseMode(&d, *probe, package); !chosen) return smcr::fail(chosen.error());
    stopOtherModeAgent(d, *lab);
    auto started = d.host.mode == QLatin1String("system") ? startSystemMode(d, *probe, package) : startUserMode(d);
    if (!started) return smcr::fail(started.error());
    if (auto written = writeLocalToken(d.host, d.token); !written) return smcr::fail(written.error());
    auto hello = fetchHello(d.host.dialHost(), d.host.agentPort, QString::fromUtf8(d.token));
    if (!hello)
        return deployError(QStringLiteral("the agent started but does not answer: %1").arg(errorText(hello.error())));
    lab->upsert(d.host);
    d.say(DeployNoteKind::step, QStringLiteral("agent up on %1:%2 (%3)")
                                    .arg(d.host.dialHost())
                                    .arg(d.host.agentPort)
                                    .arg(describeHello(*hello)));
    return DeployedAgent{d.host, *hello};
}

smcr::Result<DeployedAgent> deployAgentToLabFile(const DeployOptions& options, const QString& hostName,
                                                 const DeployProgress& progress) {
    QString why;
    auto lab = loadLab(options.labPath, &why);
    if (!lab) return deployError(why);
    auto deployed = deployAgent(options, &*lab, hostName, progress);
    if (deployed && !saveLab(options.labPath, *lab, &why)) return deployError(why);
    return deployed;
}

}  // namespace smclab::lab
