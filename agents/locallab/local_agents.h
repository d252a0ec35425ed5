// Two (or more) smclab-agent processes on this host for `smclab demo`, the
// GUI's local lab and the tests: a generated token in a private temp file,
// free ports, one CPU per agent, and a stop that always happens (SIGTERM,
// then SIGKILL; the children also get SIGTERM from the kernel if this
// process dies first). Given a NamespaceWire, the server agents run in its
// namespace and listen on its address, so TCP and the CLC handshake cross
// the shaped veth (wire.h); otherwise every agent listens on loopback.
#pragma once

#include <memory>
#include <vector>

#include <smcr/result.h>

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace smclab::locallab {

class NamespaceWire;

class LocalAgents {
public:
    LocalAgents();
    ~LocalAgents();
    LocalAgents(const LocalAgents&) = delete;
    LocalAgents& operator=(const LocalAgents&) = delete;

    // smclab-agent next to this program, or in $SMCLAB_BIN_DIR.
    static QString findAgentProgram();

    // The CPUs this process may run on; with two or more, each agent is
    // pinned to one of them (smclab-agent --cpu).
    static std::vector<int> allowedCpus();
    // A loopback TCP port free now (0 if none), for an agent or a server to
    // bind a moment later; a new namespace has it free too.
    static quint16 freeLoopbackPort();
    // The CPU agent `index` is pinned to (server agents are even), or -1
    // where the agents are not pinned (setPinned(false), one CPU).
    int agentCpu(int index) const;

    // Starts `count` agents (server, client, server, client, ...) and waits
    // until each accepts connections. `wire` (may be null) must outlive them.
    smcr::Status start(int count, const QString& program = findAgentProgram(), const NamespaceWire* wire = nullptr);
    void stopAll();
    // Off: the agents run on any CPU (`smclab bench --no-pin`). Before start().
    void setPinned(bool pinned) { m_pinned = pinned; }

    QString token() const { return m_token; }
    QString tokenFile() const { return m_tokenFile; }
    QStringList addresses() const { return m_addresses; }  // "HOST:PORT" each, in start order
    QString logFile(int index) const;
    // The running agents' process ids (the agent itself, also behind `ip netns exec`).
    QList<qint64> processIds() const;

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_token;
    QString m_tokenFile;
    QStringList m_addresses;
    std::vector<std::unique_ptr<QProcess>> m_processes;
    bool m_pinned = true;
};

}  // namespace smclab::locallab
