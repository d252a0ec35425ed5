#include "lab_status.h"

#include "agent_hello.h"
#include "lab_agents.h"
#include "lab_system.h"
#include "lab_user.h"

namespace smclab::lab {

namespace {
constexpr int kStatusHelloTimeoutMs = 5000;  // a status look, not a deploy's wait
}

SshTarget sshTargetFor(const SshTarget& ssh, const LabHost& host) {
    SshTarget t = ssh;
    t.host = host.host;
    t.user = host.sshUser;
    t.port = host.sshPort;
    return t;
}

QString describeHello(const protocol::Hello& hello) {
    QStringList transports;
    for (const protocol::Availability& t : hello.capabilities.transports) {
        transports << (t.available ? t.name : t.name + QStringLiteral("(unavailable)"));
    }
    return QStringLiteral("smclab-agent %1, protocol %2, transports %3")
        .arg(hello.agentVersion, hello.protocolVersion, transports.join(QLatin1Char(' ')));
}

QList<LabAgentStatus> labStatus(const LabFile& lab, const QStringList& names) {
    QList<LabAgentStatus> out;
    for (const LabHost& host : lab.hosts) {
        if (!names.isEmpty() && !names.contains(host.host)) continue;
        // An unreadable token still asks: the agent's refusal says more than ours.
        QString ignored;
        const QString token = readTokenFile(host.tokenFile, host.host, &ignored);
        auto hello = fetchHello(host.dialHost(), host.agentPort, token, kStatusHelloTimeoutMs);
        LabAgentStatus status;
        status.host = host;
        status.up = hello.ok();
        status.detail = hello ? describeHello(*hello) : QString::fromStdString(hello.error().message);
        out << status;
    }
    return out;
}

smcr::Result<QString> stopLabAgent(const SshTarget& ssh, const LabHost& host) {
    const SshTarget target = sshTargetFor(ssh, host);
    if (host.mode == QLatin1String("system")) return stopSystemAgent(target);
    return stopUserAgent(target, host.remoteDir);
}

}  // namespace smclab::lab
