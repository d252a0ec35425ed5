// Test helpers for the agent's integration tests: a real smclab-agent
// process (started on port 0; its port is read from the "listening on" line
// it prints), and a synchronous controller built on smclab::AgentClient.
#pragma once

#include <functional>
#include <optional>

#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include "protocol/agent_client.h"

namespace smclab::test {

// A token file shared by the agents of one test.
class TokenFile {
public:
    TokenFile();
    QString path() const { return m_dir.filePath("token"); }
    QString token() const { return m_token; }
    QString dir() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir;
    QString m_token;
};

class AgentProcess {
public:
    AgentProcess() = default;
    ~AgentProcess();

    // Runs `prefix... smclab-agent --listen LISTEN --token-file F extraArgs...`
    // (prefix e.g. {"ip","netns","exec","ns1"}) and waits for its port.
    bool start(const TokenFile& token, const QStringList& extraArgs = {},
               const QString& listen = "127.0.0.1:0", const QStringList& prefix = {});
    quint16 port() const { return m_port; }
    // SIGTERM, then waits; returns the exit code, or -1 if it crashed or hung.
    int terminate(int timeoutMs = 20'000);
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    QString log();  // everything the agent wrote to stderr so far
    QString error() const { return m_error; }

private:
    QProcess m_process;
    QString m_stdout;
    QString m_stderr;
    QString m_error;
    quint16 m_port = 0;
};

// Blocks (spinning the event loop) on AgentClient's asynchronous API.
class TestController {
public:
    TestController();

    bool connectTo(const QString& host, quint16 port, const QString& token,
                   const AgentConnectOptions& extra = {}, int timeoutMs = 10'000);
    // Sends with `send` (which gets the reply handler) and waits for the reply.
    QJsonObject request(const std::function<qint64(AgentClient::ReplyHandler)>& send, int timeoutMs = 10'000);
    QJsonObject startRun(const protocol::StartRun& run) {
        return request([&](auto handler) { return client.startRun(run, handler); });
    }
    // Sends raw text and waits for the next "error" message.
    QJsonObject sendRawExpectingError(const QString& text, int timeoutMs = 10'000);

    std::optional<protocol::RunReady> waitForReady(const QString& runId, int timeoutMs = 10'000);
    std::optional<protocol::RunResult> waitForResult(const QString& runId, int timeoutMs = 20'000);
    QList<protocol::Samples> samplesOf(const QString& runId) const;
    bool waitForSamples(const QString& runId, int count, int timeoutMs = 10'000);

    AgentClient client;
    QList<protocol::Samples> samples;
    QList<protocol::RunResult> results;
    QList<protocol::RunReady> readies;
    QList<QJsonObject> errors;
    QStringList connectionFailures;
    bool gotHello = false;
    bool disconnected = false;
};

// The tcp_bw / tcp_lat / http / kv start_run pair used by the tests.
protocol::StartRun serverRun(const QString& runId, const QString& workload, qint64 durationMs,
                             const QJsonObject& params = {});
protocol::StartRun clientRun(const QString& runId, const QString& workload, const QString& peerAddress,
                             quint16 peerPort, qint64 durationMs, const QJsonObject& params = {});

QString agentBinary();

}  // namespace smclab::test
