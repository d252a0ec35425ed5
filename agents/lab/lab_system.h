// `smclab lab deploy` in root/package mode: the smclab-agent Debian package
// (CPack, packaging/) installed on the host, its systemd unit enabled with
// a fresh token in /etc/smclab/agent.token (0600, owned by the unit's
// user). The deploy's listen port and agent arguments go to a file of
// their own (/etc/smclab/lab-deploy.conf, read after the packaged
// agent.conf through a unit drop-in), so the package's conffile stays as
// the administrator left it.
//
// Package mode needs root on the host (the login, or `sudo -n`: never a
// password prompt), dpkg, and a running systemd; probeHost() says which the
// host has, so a host without them (a container, a network namespace) is
// deployed in user mode with a note instead.
#pragma once

#include <smcr/result.h>

#include <QByteArray>
#include <QString>

#include "agent_launch.h"
#include "ssh_remote.h"

namespace smclab::lab {

struct HostProbe {
    bool root = false;  // the login is uid 0
    bool sudo = false;  // `sudo -n true` works (passwordless)
    bool dpkg = false;
    bool systemd = false;  // /run/systemd/system exists: systemd is PID 1 and running (sd_booted)

    // Root (either way) and dpkg: the package can be installed, systemd or not.
    bool canInstall() const { return (root || sudo) && dpkg; }
    // Why package mode cannot run there, or "" when it can.
    QString packageModeBlocker() const;
};

smcr::Result<HostProbe> probeHost(const SshTarget& target);

// The smclab-agent package to install: `explicitPath`, else the newest
// smclab-agent_*.deb in the build tree beside this smclab (CPack writes them
// there). "" when there is none.
QString findAgentPackage(const QString& explicitPath);

struct SystemDeploy {
    QByteArray package;  // the .deb's bytes
    AgentLaunch agent;
};

// Copies and installs the package (apt-get, else dpkg), writes the token
// and the deploy's settings and the unit's drop-in: everything but systemd.
smcr::Result<QString> installAgentPackage(const SshTarget& target, const HostProbe& probe, const SystemDeploy& deploy);

// installAgentPackage, then enables and (re)starts the unit and waits until
// it is active. Returns the unit's status lines; errors carry the host's output.
smcr::Result<QString> deploySystemAgent(const SshTarget& target, const HostProbe& probe, const SystemDeploy& deploy);

// systemctl disable --now smclab-agent; "stopped".
smcr::Result<QString> stopSystemAgent(const SshTarget& target);

}  // namespace smclab::lab
