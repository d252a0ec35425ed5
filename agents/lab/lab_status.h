// `smclab lab status|stop`: how each deployed agent is (its hello, or why
// none came) and ending one in the mode it was deployed in. The CLI prints
// these values; the desktop shows them.
#pragma once

#include <smcr/result.h>

#include <QList>
#include <QString>
#include <QStringList>

#include "lab_file.h"
#include "protocol/hello.h"
#include "ssh_remote.h"

namespace smclab::lab {

// How to reach `host` over ssh: `ssh`'s config file, the host's own name, user and port.
SshTarget sshTargetFor(const SshTarget& ssh, const LabHost& host);

// "smclab-agent VERSION, protocol P, transports tcp smcr ksmc(unavailable)".
QString describeHello(const protocol::Hello& hello);

struct LabAgentStatus {
    LabHost host;
    bool up = false;
    QString detail;  // up: describeHello; down: why no hello came
};

// Each host of `lab` (those named in `names`, all when empty), asked for its hello.
QList<LabAgentStatus> labStatus(const LabFile& lab, const QStringList& names);

// Ends the agent a deploy brought up on `host`, in the mode it was deployed
// in. Returns the host's word on it ("stopped", "not running").
smcr::Result<QString> stopLabAgent(const SshTarget& ssh, const LabHost& host);

}  // namespace smclab::lab
