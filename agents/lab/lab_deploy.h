// `smclab lab deploy`: an agent brought up on a lab host over the user's
// own OpenSSH (ssh_remote.h), for the CLI and the desktop alike. Each agent
// gets a fresh random token (mode 0600 on both ends) and comes up in one of
// two modes: package mode (as root with the package at hand, or asked for)
// installs the smclab-agent .deb and enables its systemd unit
// (lab_system.h); user mode copies the binary into a folder of the remote
// user's and starts it detached (lab_user.h). A host where package mode
// cannot run (no systemd, no dpkg, no root) gets user mode with a note. The
// deploy then checks the agent's hello and records the host in the lab file
// (lab_file.h).
//
// Nothing here prints: each step and note comes to the caller's progress
// callback as it happens, and a failure is the returned error.
#pragma once

#include <functional>

#include <smcr/result.h>

#include <QString>
#include <QStringList>

#include "lab_file.h"
#include "protocol/hello.h"
#include "ssh_remote.h"

namespace smclab::lab {

inline constexpr quint16 kDefaultAgentPort = 7600;

struct DeployOptions {
    QString labPath;  // where the tokens go (beside it); the caller loads and saves the lab file itself
    SshTarget ssh;    // user, port and config file; the host is each deploy's own
    quint16 agentPort = kDefaultAgentPort;
    QStringList agentArgs;    // extra smclab-agent arguments
    QString agentBinary;      // the smclab-agent to copy ("" = the one beside this program)
    QString remoteDir;        // user mode's folder on the host ("" = kDefaultRemoteDir)
    QString sharedTokenFile;  // one token for every host ("" = a fresh one each)
    bool system = false;      // package mode or fail
    QString packagePath;      // the .deb ("" = the newest in the build tree: findAgentPackage)
};

enum class DeployNoteKind {
    invalid = 0,
    step,        // what the deploy does now ("copying ... (user mode)", "agent up on ...")
    note,        // a choice made for the user (user mode instead of package mode, and why)
    hostOutput,  // the host's own lines (the unit's status), verbatim
};

struct DeployNote {
    QString host;
    DeployNoteKind kind = DeployNoteKind::invalid;
    QString text;
};

using DeployProgress = std::function<void(const DeployNote& note)>;

// A note as the CLI prints it and the desktop shows it: "HOST: TEXT",
// "HOST: note: TEXT", or the host's output as it came.
QString deployNoteText(const DeployNote& note);

struct DeployedAgent {
    LabHost host;  // as recorded in the lab file
    protocol::Hello hello;
};

// Deploys an agent on `hostName` and records it in `lab` (the caller saves
// it). A host deployed before in the other mode has that agent stopped.
// The error says what failed, in the words of ssh, the host or the agent.
smcr::Result<DeployedAgent> deployAgent(const DeployOptions& options, LabFile* lab, const QString& hostName,
                                        const DeployProgress& progress);

// deployAgent with the lab file at options.labPath loaded before and saved after.
smcr::Result<DeployedAgent> deployAgentToLabFile(const DeployOptions& options, const QString& hostName,
                                                 const DeployProgress& progress);

}  // namespace smclab::lab
