#include "agent_process.h"

#include <csignal>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTest>
#include <QThread>

namespace smclab::test {

QString binDir() {
    const QByteArray dir = qgetenv("SMCLAB_BIN_DIR");
    return dir.isEmpty() ? QCoreApplication::applicationDirPath() + QStringLiteral("/../bin")
                         : QString::fromLocal8Bit(dir);
}

QString agentBinary() {
    return binDir() + QStringLiteral("/smclab-agent");
}
QString smclabBinary() {
    return binDir() + QStringLiteral("/smclab");
}

quint16 freePort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
    return probe.serverPort();
}

TokenFile::TokenFile(const QByteArray& token) {
    m_token = !token.isEmpty() ? QString::fromLatin1(token)
                               : QString::number(QRandomGenerator::system()->generate64(), 16) +
                                     QString::number(QRandomGenerator::system()->generate64(), 16);
    QFile file(path());
    if (file.open(QIODevice::WriteOnly)) {
        file.write(m_token.toUtf8() + "\n");
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
}

AgentProcess::AgentProcess() {
    QObject::connect(&m_process, &QProcess::readyReadStandardError,
                     [this] { m_stderr += QString::fromUtf8(m_process.readAllStandardError()); });
}

AgentProcess::~AgentProcess() {
    kill();
}

bool AgentProcess::start(const TokenFile& token, const QStringList& extraArgs, const QString& listen,
                         const QStringList& prefix) {
    m_prefix = prefix;
    m_tokenPath = token.path();
    m_extraArgs = extraArgs;
    m_port = 0;
    return launch(listen);
}

bool AgentProcess::restart() {
    if (m_port == 0 || m_tokenPath.isEmpty()) {
        m_error = QStringLiteral("restart: the agent never started");
        return false;
    }
    if (isRunning()) kill();
    const quint16 port = m_port;
    m_port = 0;
    // The old socket may linger a moment after SIGKILL; the agent binds
    // with SO_REUSEADDR, so one retry covers the rest.
    if (launch(QStringLiteral("127.0.0.1:%1").arg(port))) return true;
    QThread::msleep(300);
    return launch(QStringLiteral("127.0.0.1:%1").arg(port));
}

bool AgentProcess::launch(const QString& listen) {
    QStringList args = m_prefix;
    args << agentBinary() << QStringLiteral("--listen") << listen << QStringLiteral("--token-file") << m_tokenPath
         << m_extraArgs;
    const QString program = args.takeFirst();
    m_stdout.clear();
    m_process.start(program, args);
    if (!m_process.waitForStarted(5000)) {
        m_error = QStringLiteral("cannot start %1: %2").arg(program, m_process.errorString());
        return false;
    }
    // Blocking reads, not the event loop: a test may restart an agent from
    // inside a signal handler, before its event loop sees the old one go.
    static const QRegularExpression listening(QStringLiteral("listening on (\\S+):(\\d+)"));
    QElapsedTimer clock;
    clock.start();
    while (m_port == 0 && clock.elapsed() < 10'000 && m_process.state() != QProcess::NotRunning) {
        m_process.waitForReadyRead(100);
        m_stdout += QString::fromUtf8(m_process.readAllStandardOutput());
        const auto match = listening.match(m_stdout);
        if (match.hasMatch()) m_port = static_cast<quint16>(match.captured(2).toUInt());
    }
    if (m_port == 0) {
        m_error = QStringLiteral("agent did not report its port; stderr:\n") + log();
        return false;
    }
    return true;
}

int AgentProcess::terminate(int timeoutMs) {
    if (m_process.state() == QProcess::NotRunning) return m_process.exitCode();
    ::kill(static_cast<pid_t>(m_process.processId()), SIGTERM);
    if (!QTest::qWaitFor([&] { return m_process.state() == QProcess::NotRunning; }, timeoutMs)) {
        kill();
        return -1;
    }
    if (m_process.exitStatus() != QProcess::NormalExit) return -1;
    return m_process.exitCode();
}

void AgentProcess::kill() {
    if (m_process.state() == QProcess::NotRunning) return;
    ::kill(static_cast<pid_t>(m_process.processId()), SIGKILL);
    m_process.waitForFinished(5000);
}

QString AgentProcess::log() {
    m_stderr += QString::fromUtf8(m_process.readAllStandardError());
    return m_stderr;
}

}  // namespace smclab::test
