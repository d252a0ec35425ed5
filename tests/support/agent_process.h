// Shared by the agent, orchestrator and GUI tests: where the built programs
// are, a private token file, and a real smclab-agent process. The agent
// listens on port 0 (the port comes from the "listening on ADDR:PORT" line it
// prints), so tests running at the same time never collide; kill() and
// restart() bring it back on the same port (an agent that disappears and
// returns mid-campaign).
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace smclab::test {

// $SMCLAB_BIN_DIR (set by smclab_add_test), else ../bin from the test.
QString binDir();
QString agentBinary();   // smclab-agent
QString smclabBinary();  // smclab
// A loopback port free right now (for an address nobody listens on).
quint16 freePort();

// A token in a file readable by this user only, in its own temp folder.
class TokenFile {
public:
    explicit TokenFile(const QByteArray& token = {});  // empty: a random token
    QString path() const { return m_dir.filePath(QStringLiteral("token")); }
    QString token() const { return m_token; }
    QString dir() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir;
    QString m_token;
};

class AgentProcess {
public:
    AgentProcess();
    ~AgentProcess();  // SIGKILL if still running
    AgentProcess(const AgentProcess&) = delete;
    AgentProcess& operator=(const AgentProcess&) = delete;

    // Runs `prefix... smclab-agent --listen LISTEN --token-file F extraArgs...`
    // (prefix e.g. {"ip","netns","exec","ns1"}) and waits for its port.
    bool start(const TokenFile& token, const QStringList& extraArgs = {},
               const QString& listen = QStringLiteral("127.0.0.1:0"), const QStringList& prefix = {});
    // After kill() or terminate(): the same command on the same port.
    bool restart();

    quint16 port() const { return m_port; }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }
    qint64 pid() const { return m_process.processId(); }
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }

    // SIGTERM, then waits; returns the exit code, or -1 if it crashed or hung
    // (a hung agent is killed).
    int terminate(int timeoutMs = 20'000);
    void kill();  // SIGKILL: the agent disappears without a word

    QString log();  // everything the agent wrote to stderr so far
    QString error() const { return m_error; }

private:
    bool launch(const QString& listen);

    QProcess m_process;
    QStringList m_prefix;
    QString m_tokenPath;
    QStringList m_extraArgs;
    QString m_stdout;
    QString m_stderr;
    QString m_error;
    quint16 m_port = 0;
};

}  // namespace smclab::test
