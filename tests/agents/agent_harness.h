// Test helpers for the agent's integration tests: a synchronous controller
// built on smclab::AgentClient (the agent process and its token file come
// from the shared test support, tests/support/agent_process.h).
#pragma once

#include <functional>
#include <optional>

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include "agent_process.h"
#include "protocol/agent_client.h"

namespace smclab::test {

// Blocks (spinning the event loop) on AgentClient's asynchronous API.
class TestController {
public:
    TestController();

    bool connectTo(const QString& host, quint16 port, const QString& token, const AgentConnectOptions& extra = {},
                   int timeoutMs = 10'000);
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

}  // namespace smclab::test
