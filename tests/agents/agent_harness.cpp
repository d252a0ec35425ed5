#include "agent_harness.h"

#include <QTest>

namespace smclab::test {

using namespace smclab::protocol;

TestController::TestController() {
    QObject::connect(&client, &AgentClient::helloReceived, [this] { gotHello = true; });
    QObject::connect(&client, &AgentClient::samplesReceived, [this](const Samples& s) { samples.append(s); });
    QObject::connect(&client, &AgentClient::resultReceived, [this](const RunResult& r) { results.append(r); });
    QObject::connect(&client, &AgentClient::runReady, [this](const RunReady& r) { readies.append(r); });
    QObject::connect(&client, &AgentClient::messageReceived, [this](const QJsonObject& message) {
        if (message.value("type").toString() == "error") errors.append(message);
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

QJsonObject TestController::request(const std::function<qint64(AgentClient::ReplyHandler)>& send, int timeoutMs) {
    std::optional<QJsonObject> reply;
    send([&reply](const QJsonObject& message) { reply = message; });
    (void)QTest::qWaitFor([&] { return reply.has_value(); }, timeoutMs);
    return reply.value_or(QJsonObject{{"type", "timeout"}});
}

QJsonObject TestController::sendRawExpectingError(const QString& text, int timeoutMs) {
    const qsizetype before = errors.size();
    client.sendRawText(text);
    if (!QTest::qWaitFor([&] { return errors.size() > before; }, timeoutMs)) return {{"type", "timeout"}};
    return errors.at(before);
}

std::optional<RunReady> TestController::waitForReady(const QString& runId, int timeoutMs) {
    std::optional<RunReady> found;
    (void)QTest::qWaitFor(
        [&] {
            for (const RunReady& ready : readies) {
                if (ready.runId == runId) found = ready;
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
                if (result.runId == runId) found = result;
            }
            return found.has_value();
        },
        timeoutMs);
    return found;
}

QList<Samples> TestController::samplesOf(const QString& runId) const {
    QList<Samples> list;
    for (const Samples& s : samples) {
        if (s.runId == runId) list.append(s);
    }
    return list;
}

bool TestController::waitForSamples(const QString& runId, int count, int timeoutMs) {
    return QTest::qWaitFor([&] { return samplesOf(runId).size() >= count; }, timeoutMs);
}

StartRun serverRun(const QString& runId, const QString& workload, qint64 durationMs, const QJsonObject& params) {
    StartRun run;
    run.runId = runId;
    run.role = smcr::Side::server;
    run.workload = workload;
    run.transport = "tcp";
    run.params = params;
    run.listen.address = QHostAddress(QHostAddress::AnyIPv4);
    run.durationMs = durationMs;
    run.sampleIntervalMs = 200;
    return run;
}

StartRun clientRun(const QString& runId, const QString& workload, const QString& peerAddress, quint16 peerPort,
                   qint64 durationMs, const QJsonObject& params) {
    StartRun run;
    run.runId = runId;
    run.role = smcr::Side::client;
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
