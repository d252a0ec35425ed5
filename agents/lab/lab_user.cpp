#include "lab_user.h"

namespace smclab::lab {

namespace {

QString remoteDirExpr(const QString& dir) {
    // A relative folder is under the remote home; "$HOME" must expand there, not here.
    if (dir.isEmpty()) return QStringLiteral("\"$HOME\"/") + QString::fromLatin1(kDefaultRemoteDir);
    if (dir.startsWith(QLatin1Char('/'))) return shellQuote(dir);
    return QStringLiteral("\"$HOME\"/") + shellQuote(dir);
}

constexpr int kCopyTimeoutMs = 300'000;  // the binary over a slow link

}  // namespace

smcr::Result<QString> copyUserAgent(const SshTarget& target, const UserDeploy& deploy) {
    return runRemote(target,
                     QStringLiteral("umask 077 && mkdir -p %1 && cat > %1/smclab-agent.new && "
                                    "chmod 700 %1/smclab-agent.new && mv -f %1/smclab-agent.new %1/smclab-agent")
                         .arg(remoteDirExpr(deploy.remoteDir)),
                     deploy.binary, kCopyTimeoutMs);
}

smcr::Result<QString> startUserAgent(const SshTarget& target, const UserDeploy& deploy) {
    QStringList agentArgs;
    for (const QString& arg : deploy.agent.agentArgs) agentArgs << shellQuote(arg);
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
            .arg(remoteDirExpr(deploy.remoteDir))
            .arg(deploy.agent.agentPort)
            .arg(agentArgs.join(QLatin1Char(' ')));
    return runRemote(target, start, deploy.agent.token + '\n');
}

smcr::Result<QString> stopUserAgent(const SshTarget& target, const QString& remoteDir) {
    const QString script =
        QStringLiteral(
            "d=%1; if [ -f \"$d/agent.pid\" ]; then p=$(cat \"$d/agent.pid\"); kill \"$p\" 2>/dev/null; "
            "i=0; while kill -0 \"$p\" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i+1)); done; "
            "rm -f \"$d/agent.pid\"; echo stopped; else echo 'not running'; fi")
            .arg(remoteDirExpr(remoteDir));
    return runRemote(target, script);
}

}  // namespace smclab::lab
