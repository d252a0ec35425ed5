// Real smclab-agent processes for the orchestrator tests: started on a free
// loopback port with a token file, killable (SIGKILL) and restartable on the
// same port, always stopped at the end.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <memory>

namespace testutil {

inline QString binDir() { return qEnvironmentVariable("SMCLAB_BIN_DIR"); }
inline QString agentProgram() { return binDir() + QStringLiteral("/smclab-agent"); }
inline QString smclabProgram() { return binDir() + QStringLiteral("/smclab"); }

inline quint16 freePort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
    return probe.serverPort();
}

// The token lives in `dir`; every AgentProcess of a test shares it.
inline QString writeToken(const QTemporaryDir& dir, const QByteArray& token) {
    const QString path = dir.filePath(QStringLiteral("token"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(token);
    return path;
}

class AgentProcess {
public:
    AgentProcess(QString tokenFile, QString logFile) : m_tokenFile(std::move(tokenFile)), m_logFile(std::move(logFile)) {}
    ~AgentProcess() { stop(); }

    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

    // Starts on a free port (or the previous one after kill()), waits until
    // it accepts connections.
    bool start() {
        if (m_port == 0) m_port = freePort();
        m_process = std::make_unique<QProcess>();
        m_process->setProgram(agentProgram());
        m_process->setArguments({QStringLiteral("--listen"), address(), QStringLiteral("--token-file"), m_tokenFile});
        m_process->setStandardOutputFile(m_logFile, QIODevice::Append);
        m_process->setStandardErrorFile(m_logFile, QIODevice::Append);
        m_process->start();
        if (!m_process->waitForStarted(5000)) return false;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 15000) {
            if (m_process->state() == QProcess::NotRunning) return false;
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, m_port);
            if (socket.waitForConnected(200)) return true;
            QThread::msleep(50);
        }
        return false;
    }
    void kill() {
        if (!m_process) return;
        ::kill(static_cast<pid_t>(m_process->processId()), SIGKILL);
        m_process->waitForFinished(5000);
        m_process.reset();
    }
    void stop() {
        if (!m_process) return;
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
        m_process.reset();
    }

private:
    QString m_tokenFile;
    QString m_logFile;
    quint16 m_port = 0;
    std::unique_ptr<QProcess> m_process;
};

}  // namespace testutil
