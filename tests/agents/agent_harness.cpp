#include "agent_harness.h"

#include <csignal>

#include <QCoreApplication>
#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

namespace smclab::test {

using namespace smclab::protocol;

QString agentBinary() {
    const QByteArray dir = qgetenv("SMCLAB_BIN_DIR");
    return (dir.isEmpty() ? QCoreApplication::applicationDirPath() + "/../bin"
                          : QString::fromLocal8Bit(dir)) +
           "/smclab-agent";
}

TokenFile::TokenFile() {
    m_token = QString::number(QRandomGenerator::system()->generate64(), 16) +
              QString::number(QRandomGenerator::system()->generate64(), 16);
    QFile file(path());
    if (file.open(QIODevice::WriteOnly)) {
        file.write(m_token.toUtf8() + "\n");
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
}

AgentProcess::~AgentProcess() {
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool AgentProcess::start(const TokenFile& token, const QStringList& extraArgs, const QString& listen,
                         const QStringList& prefix) {
    QStringList args = prefix;
    args << agentBinary() << "--listen" << listen << "--token-file" << token.path() << extraArgs;
    const QString program = args.takeFirst();
    QObject::connect(&m_process, &QProcess::readyReadStandardError,
                     [this] { m_stderr += QString::fromUtf8(m_process.readAllStandardError()); });
    m_process.start(program, args);
    if (!m_process.waitForStarted(5000)) {
        m_error = "cannot start " + program + ": " + m_process.errorString();
        return false;
    }
    static const QRegularExpression listening("listening on (\\S+):(\\d+)");
    const bool found = QTest::qWaitFor(
        [&] {
            m_stdout += QString::fromUtf8(m_process.readAllStandardOutput());
            const auto match = listening.match(m_stdout);
            if (match.hasMatch())
                m_port = static_cast<quint16>(match.captured(2).toUInt());
            return m_port != 0 || m_process.state() == QProcess::NotRunning;
        },
        10'000);
    if (!found || m_port == 0) {
        m_error = "agent did not report its port; stderr:\n" + log();
        return false;
    }
    return true;
}

int AgentProcess::terminate(int timeoutMs) {
    if (m_process.state() == QProcess::NotRunning)
        return m_process.exitCode();
    ::kill(static_cast<pid_t>(m_process.processId()), SIGTERM);
    if (!QTest::qWaitFor([&] { return m_process.state() == QProcess::NotRunning; }, timeoutMs))
        return -1;
    if (m_process.exitStatus() != QProcess::NormalExit)
        return -1;
    return m_process.exitCode();
}

QString AgentProcess::log() {
    m_stderr += QString::fromUtf8(m_process.readAllStandardError());
    return m_stderr;
}

TestController::TestController() {
    QObject::connect(&client, &AgentClient::helloReceived, [this] { gotHello = true; });
    QObject::connect(&client, &AgentClient::samplesReceived, [this](const Samples& s) { samples.append(s); });
    QObject::connect(&client, &AgentClient::resultReceived,
                     [this](const RunResult& r) { results.append(r); });
    QObject::connect(&client, &AgentClient::runReady, [this](const RunReady& r) { readies.append(r); });
    QObject::connect(&client, &AgentClient::messageReceived, [this](const QJsonObject& message) {
        if (message.value("type").toString() == "error")
            errors.append(message);
    });
    QObject::connect(&client, &AgentClient::connectionFailed,
                     [this](const QString& message) { connectionFailures.append(message); });
    QObject::connect(&client, &AgentClient::disconnected, [this] { disconnected = true; });
}

bool TestController::connectTo(const QString& host, quint16 port, const QString& token,
                               const AgentConnectOptions& extra, int timeoutMs) {
    AgentConnectOptions options = extra;
    options.token = token;
    gotHello = false;
    const qsizetype failuresBefore = connectionFailures.size();
    client.connectToAgent(host, port, options);
    (void)QTest::qWaitFor([&] { return gotHello || connectionFailures.size() > failuresBefore; }, timeoutMs);
    return gotHello;
}

QJsonObject TestController::request(const std::function<qint64(AgentClient::ReplyHandler)>& send,
                                    int timeoutMs) {
    std::optional<QJsonObject> reply;
    send([&reply](const QJsonObject& message) { reply = message; });
    (void)QTest::qWaitFor([&] { return reply.has_value(); }, timeoutMs);
    return reply.value_or(QJsonObject{{"type", "timeout"}});
}

QJsonObject TestController::sendRawExpectingError(const QString& text, int timeoutMs) {
    const qsizetype before = errors.size();
    client.sendRawText(text);
    if (!QTest::qWaitFor([&] { return errors.size() > before; }, timeoutMs))
        return {{"type", "timeout"}};
    return errors.at(before);
}

std::optional<RunReady> TestController::waitForReady(const QString& runId, int timeoutMs) {
    std::optional<RunReady> found;
    (void)QTest::qWaitFor(
        [&] {
            for (const RunReady& ready : readies) {
                if (ready.runId == runId)
                    found = ready;
            }
            return found.has_value();
        },
        timeoutMs);
    return found;
}

std::optional<RunResult> TestController::waitForResult(const QString& runId, int timeoutMs) {
    std::optional<RunResult> found;
    (void)QTest::qWaitFor(
        [&] {
            for (const RunResult& result : results) {
                if (result.runId == runId)
                    found = result;
            }
            return found.has_value();
        },
        timeoutMs);
    return found;
}

QList<Samples> TestController::samplesOf(const QString& runId) const {
    QList<Samples> list;
    for (const Samples& s : samples) {
        if (s.runId == runId)
            list.append(s);
    }
    return list;
}

bool TestController::waitForSamples(const QString& runId, int count, int timeoutMs) {
    return QTest::qWaitFor([&] { return samplesOf(runId).size() >= count; }, timeoutMs);
}

StartRun serverRun(const QString& runId, const QString& workload, qint64 durationMs,
                   const QJsonObject& params) {
    StartRun run;
    run.runId = runId;
    run.role = Role::server;
    run.workload = workload;
    run.transport = "tcp";
    run.params = params;
    run.listen.address = QHostAddress(QHostAddress::AnyIPv4);
    run.durationMs = durationMs;
    run.sampleIntervalMs = 200;
    return run;
}

StartRun clientRun(const QString& runId, const QString& workload, const QString& peerAddress,
                   quint16 peerPort, qint64 durationMs, const QJsonObject& params) {
    StartRun run;
    run.runId = runId;
    run.role = Role::client;
    run.workload = workload;
    run.transport = "tcp";
    run.params = params;
    run.peer.address = QHostAddress(peerAddress);
    run.peer.port = peerPort;
    run.durationMs = durationMs;
    run.sampleIntervalMs = 200;
    return run;
}

}  // namespace smclab::test
