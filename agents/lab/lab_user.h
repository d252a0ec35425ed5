// `smclab lab deploy` in user mode: the smclab-agent binary copied into a
// folder of the remote user's (mode 0700), started detached with its own
// token (0600), its pid, output and log beside it. No root, no package, no
// systemd: what any SSH login can do.
#pragma once

#include <smcr/result.h>

#include <QByteArray>
#include <QString>
#include <QStringList>

#include "agent_launch.h"
#include "ssh_remote.h"

namespace smclab::lab {

// Where user mode keeps the agent when the lab file names no folder:
// relative, so under the remote user's home.
inline constexpr char kDefaultRemoteDir[] = ".local/share/smclab-agent";

struct UserDeploy {
    QByteArray binary;  // the smclab-agent executable's bytes
    QString remoteDir;  // "" = kDefaultRemoteDir; relative = under the remote home
    AgentLaunch agent;
};

// Copies the binary (replacing one an earlier deploy left), stops the
// agent an earlier deploy started, starts the new one and waits for its
// "listening on" line. Errors carry the agent's last log lines.
smcr::Result<QString> copyUserAgent(const SshTarget& target, const UserDeploy& deploy);
smcr::Result<QString> startUserAgent(const SshTarget& target, const UserDeploy& deploy);

// Ends the agent a user-mode deploy started in `remoteDir`: "stopped" or "not running".
smcr::Result<QString> stopUserAgent(const SshTarget& target, const QString& remoteDir);

}  // namespace smclab::lab
