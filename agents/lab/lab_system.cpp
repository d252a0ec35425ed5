#include "lab_system.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace smclab::lab {

namespace {

// Root commands: as the login when it is root, else through sudo -n (fails
// at once instead of prompting).
QString asRoot(const HostProbe& probe) {
    return probe.root ? QString() : QStringLiteral("sudo -n ");
}

}  // namespace

QString HostProbe::packageModeBlocker() const {
    if (!root && !sudo)
        return QStringLiteral("the login is not root and sudo -n needs a password (log in as root with --user root)");
    if (!dpkg) return QStringLiteral("it has no dpkg (not a Debian-based host)");
    if (!systemd)
        return QStringLiteral(
            "systemd is not running there (no /run/systemd/system: a container or a network "
            "namespace without its own init), so the packaged unit cannot run");
    return {};
}

smcr::Result<HostProbe> probeHost(const SshTarget& target) {
    auto out = runRemote(
        target, QStringLiteral("echo uid=$(id -u); "
                               "if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then echo sudo=1; fi; "
                               "if command -v dpkg >/dev/null 2>&1; then echo dpkg=1; fi; "
                               "if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then echo "
                               "systemd=1; fi"));
    if (!out) return smcr::fail(out.error());
    HostProbe probe;
    for (const QString& line : out->split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QString l = line.trimmed();
        if (l == QLatin1String("uid=0"))
            probe.root = true;
        else if (l == QLatin1String("sudo=1"))
            probe.sudo = true;
        else if (l == QLatin1String("dpkg=1"))
            probe.dpkg = true;
        else if (l == QLatin1String("systemd=1"))
            probe.systemd = true;
    }
    return probe;
}

QString findAgentPackage(const QString& explicitPath) {
    if (!explicitPath.isEmpty()) return explicitPath;
    // build/bin/smclab -> build/smclab-agent_VERSION_ARCH.deb
    QDir buildDir(QCoreApplication::applicationDirPath() + QStringLiteral("/.."));
    const QFileInfoList debs = buildDir.entryInfoList({QStringLiteral("smclab-agent_*.deb")}, QDir::Files, QDir::Time);
    return debs.isEmpty() ? QString() : debs.front().absoluteFilePath();
}

smcr::Result<QString> installAgentPackage(const SshTarget& target, const HostProbe& probe, const SystemDeploy& deploy) {
    QStringList args;
    for (const QString& arg : deploy.agent.agentArgs) args << arg;
    // One file for the deploy's settings, read after the packaged agent.conf
    // (a later EnvironmentFile= overrides an earlier one).
    const QString settings = QStringLiteral(
                                 "# written by smclab lab deploy; overrides /etc/smclab/agent.conf\n"
                                 "SMCLAB_AGENT_LISTEN=0.0.0.0:%1\nSMCLAB_AGENT_ARGS=%2\n")
                                 .arg(deploy.agent.agentPort)
                                 .arg(args.join(QLatin1Char(' ')));
    // One session: stdin is the token's line, then the package. The token
    // never goes on a command line (ps would show it); printf is a builtin.
    // apt resolves the package's dependencies (Qt) where dpkg alone would stop.
    const QString script =
        QStringLiteral(
            "set -e; umask 077; d=$(mktemp -d /tmp/smclab-deploy.XXXXXX); trap 'rm -rf \"$d\"' EXIT; "
            "IFS= read -r token; cat > \"$d/smclab-agent.deb\"; cd \"$d\"; "
            "if command -v apt-get >/dev/null 2>&1; then "
            "%1env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ./smclab-agent.deb >&2; "
            "else %1dpkg -i smclab-agent.deb >&2; fi; "
            // The token: 0600, the unit's user owns it, replaced atomically.
            "t=$(%1mktemp /etc/smclab/.agent.token.XXXXXX); printf '%s\\n' \"$token\" | %1tee \"$t\" >/dev/null; "
            "%1chown smclab:smclab \"$t\"; %1chmod 600 \"$t\"; %1mv -f \"$t\" /etc/smclab/agent.token; "
            "printf '%s' %2 | %1tee /etc/smclab/lab-deploy.conf >/dev/null; "
            "%1chmod 644 /etc/smclab/lab-deploy.conf; "
            "%1mkdir -p /etc/systemd/system/smclab-agent.service.d; "
            "printf '[Service]\\nEnvironmentFile=/etc/smclab/lab-deploy.conf\\n' | "
            "%1tee /etc/systemd/system/smclab-agent.service.d/lab-deploy.conf >/dev/null; "
            "echo installed")
            .arg(asRoot(probe), shellQuote(settings));
    return runRemote(target, script, deploy.agent.token + '\n' + deploy.package, 300'000);
}

smcr::Result<QString> deploySystemAgent(const SshTarget& target, const HostProbe& probe, const SystemDeploy& deploy) {
    if (auto installed = installAgentPackage(target, probe, deploy); !installed) return installed;
    const QString root = asRoot(probe);
    const QString enable =
        QStringLiteral(
            "set -e; %1systemctl daemon-reload; %1systemctl enable smclab-agent.service; %1systemctl restart "
            "smclab-agent.service; "
            "i=0; while [ $i -lt 50 ] && ! %1systemctl is-active --quiet smclab-agent.service; do sleep 0.2; "
            "i=$((i+1)); done; "
            "%1systemctl is-active --quiet smclab-agent.service || "
            "{ %1systemctl status --no-pager smclab-agent.service >&2; exit 3; }; "
            "%1systemctl status --no-pager --lines=0 smclab-agent.service | head -3")
            .arg(root);
    return runRemote(target, enable);
}

smcr::Result<QString> stopSystemAgent(const SshTarget& target) {
    auto probe = probeHost(target);
    if (!probe) return smcr::fail(probe.error());
    const QString root = asRoot(*probe);
    auto out =
        runRemote(target, QStringLiteral("%1systemctl disable --now smclab-agent.service && echo stopped").arg(root));
    if (!out) return smcr::fail(out.error());
    return out->trimmed();
}

}  // namespace smclab::lab
