// The lab file: the hosts `smclab lab deploy` and `smclab lab vm up` brought agents up on, shared
// by the CLI (--lab FILE) and the GUI. JSON, written atomically with mode
// 0600; each host's agent token is a file of its own beside it
// (FILE.tokens/HOST.token, mode 0600 in a 0700 folder), never inside it.
#pragma once

#include <optional>

#include <QByteArray>
#include <QList>
#include <QString>

namespace smclab::lab {

struct LabHost {
    QString host;                           // as given to ssh (a name from ~/.ssh/config, or an address)
    QString sshUser;                        // "" = ssh's own choice (config, then the local user)
    int sshPort = 0;                        // 0 = ssh's own choice
    QString remoteDir;                      // where the agent, its token, pid and logs live on the host
    quint16 agentPort = 0;                  // the agent's control port
    QString tokenFile;                      // local copy of the agent's token
    QString mode = QStringLiteral("user");  // "user": the binary in remoteDir; "system": the package's systemd unit;
                                            // "vm": a VM lab host (vm/vm_hosts.h)
    QString address;                        // where the controller dials the agent ("" = host): ssh -G's hostname
                                            // for an ssh alias, 127.0.0.1 for a VM's forwarded port
    QString vmDir;                          // vm mode: the VM's folder (console, pid, the guest's share)

    // The name or address the controller connects to.
    QString dialHost() const { return address.isEmpty() ? host : address; }
};

struct LabFile {
    QList<LabHost> hosts;

    const LabHost* find(const QString& host) const;
    void upsert(const LabHost& host);
};

// --lab FILE, else $SMCLAB_LAB, else ~/.config/smclab/lab.json.
QString resolveLabPath(const QString& explicitPath);

// A missing file is an empty lab; a malformed one is an error (*why).
std::optional<LabFile> loadLab(const QString& path, QString* why);
bool saveLab(const QString& path, const LabFile& lab, QString* why);

// A fresh bearer token for an agent: 32 random bytes, base64.
QByteArray freshAgentToken();

// Where HOST's token lives for the lab file at `labPath` (the folder is made, 0700).
QString tokenPathFor(const QString& labPath, const QString& host, QString* why);

}  // namespace smclab::lab
