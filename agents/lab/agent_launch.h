// What every deploy mode hands the agent it starts on a lab host, whether a
// user-mode binary (lab_user.h) or the Debian package (lab_system.h).
#pragma once

#include <QByteArray>
#include <QStringList>

namespace smclab::lab {

struct AgentLaunch {
    QByteArray token;  // the agent's bearer token
    quint16 agentPort = 0;
    QStringList agentArgs;  // extra smclab-agent arguments
};

}  // namespace smclab::lab
