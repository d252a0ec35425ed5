// Commands on lab hosts through the user's own OpenSSH client: their keys,
// ssh-agent, ~/.ssh/config and known_hosts. BatchMode=yes, so a host that
// would ask for a password or a host-key confirmation fails at once with
// ssh's own message instead of stopping a campaign at a prompt.
#pragma once

#include <smcr/result.h>

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace smclab::lab {

struct SshTarget {
    QString host;
    QString user;        // "" = ssh's choice
    int port = 0;        // 0 = ssh's choice
    QString configFile;  // "" = ~/.ssh/config
};

// Runs `script` with the remote user's shell (sh -c semantics), feeding
// `input` to its stdin; returns its stdout. Errc::connectionRefused when ssh
// could not log in (exit 255), systemError when the script failed; both
// carry ssh's or the script's stderr.
smcr::Result<QString> runRemote(const SshTarget& target, const QString& script, const QByteArray& input = {},
                                int timeoutMs = 60'000);

// The address ssh itself would connect to for `target` (its HostName after
// ~/.ssh/config or -F, through `ssh -G`): what an alias such as a Host
// block's name stands for. The name itself when ssh reports none.
smcr::Result<QString> resolveSshHost(const SshTarget& target);

// 'text' quoted for a POSIX shell.
QString shellQuote(const QString& text);

}  // namespace smclab::lab
