// Bad input to a real smclab-agent: bad JSON, unknown message types and
// fields, unknown workloads and transports, out-of-range sizes and
// durations, disallowed peers, too many runs, a wrong or missing token and
// the rate limit on repeated failures. Every error names its field, and the
// agent keeps serving: a good run works afterwards.
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include "agent_harness.h"

using namespace smclab;
using namespace smclab::protocol;
using namespace smclab::test;

namespace {

QString compact(const QJsonObject& object) {
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject goodClientStart() {
    return clientRun("c1", "tcp_bw", "127.0.0.1", 5201, 1000, {{"msg_size", 1024}}).toJson();
}

}  // namespace

class TestAgentErrors : public QObject {
    Q_OBJECT

private:
    TokenFile m_token;
    AgentProcess m_agent;
    std::unique_ptr<TestController> m_controller;

    // Sends `message` and checks the error's code and field.
    void expectError(const QJsonObject& message, const QString& code, const QString& field) {
        const QJsonObject error = m_controller->sendRawExpectingError(compact(message));
        QCOMPARE(error.value("type").toString(), QString("error"));
        QCOMPARE(error.value("code").toString(), code);
        QCOMPARE(error.value("field").toString(), field);
        QVERIFY2(error.value("message").toString().size() > 5, "the error explains itself");
        if (!field.isEmpty()) QVERIFY(error.value("message").toString().contains(field));
    }

    void runTcpBwPair(TestController& controller, const QString& prefix) {
        QCOMPARE(controller.startRun(serverRun(prefix + "-s", "tcp_bw", 10'000, {{"max_tests", 1}}))
                     .value("type")
                     .toString(),
                 QString("run_accepted"));
        const auto ready = controller.waitForReady(prefix + "-s");
        QVERIFY(ready);
        QCOMPARE(controller.startRun(clientRun(prefix + "-c", "tcp_bw", "127.0.0.1", ready->port, 300))
                     .value("type")
                     .toString(),
                 QString("run_accepted"));
        const auto result = controller.waitForResult(prefix + "-c");
        QVERIFY(result);
        QCOMPARE(runStateName(result->state), QString("finished"));
        QVERIFY(result->summary.value("bw_MBps").toDouble() > 0);
        QVERIFY(controller.waitForResult(prefix + "-s"));
    }

private slots:
    void initTestCase() {
        QVERIFY2(m_agent.start(m_token, {"--max-runs", "2", "--max-duration", "60"}), qPrintable(m_agent.error()));
        m_controller = std::make_unique<TestController>();
        QVERIFY(m_controller->connectTo("127.0.0.1", m_agent.port(), m_token.token()));
    }

    void badJson() {
        const QJsonObject error = m_controller->sendRawExpectingError("{\"type\": \"start_run\", ");
        QCOMPARE(error.value("code").toString(), QString("bad_json"));
        QCOMPARE(m_controller->sendRawExpectingError("[1, 2, 3]").value("code").toString(), QString("bad_json"));
        QCOMPARE(m_controller->sendRawExpectingError("").value("code").toString(), QString("bad_json"));
    }

    void badEnvelope() {
        expectError({{"id", 1}}, "bad_message", "type");
        expectError({{"type", "launch_missiles"}}, "bad_message", "type");
        expectError({{"type", "status"}, {"id", -4}}, "bad_field", "id");
        expectError({{"type", "status"}, {"id", 1.5}}, "bad_field", "id");
        // The id of a valid envelope is echoed in the error.
        QJsonObject message = goodClientStart();
        message.insert("id", 4242);
        message.insert("colour", "blue");
        const QJsonObject error = m_controller->sendRawExpectingError(compact(message));
        QCOMPARE(error.value("field").toString(), QString("colour"));
        QCOMPARE(error.value("id").toInt(), 4242);
        QCOMPARE(error.value("run_id").toString(), QString());
    }

    void badStartRunFields() {
        QJsonObject m = goodClientStart();
        m.remove("run_id");
        expectError(m, "missing_field", "run_id");
        m = goodClientStart();
        m["run_id"] = "has space";
        expectError(m, "bad_field", "run_id");
        m = goodClientStart();
        m["run_id"] = QString(65, 'x');
        expectError(m, "bad_field", "run_id");
        m = goodClientStart();
        m["role"] = "observer";
        expectError(m, "bad_field", "role");
        m = goodClientStart();
        m["workload"] = "fork_bomb";
        expectError(m, "unknown_workload", "workload");
        m = goodClientStart();
        m["transport"] = "carrier_pigeon";
        expectError(m, "unknown_transport", "transport");
        m = goodClientStart();
        m["transport"] = "ksmc";
        const QJsonObject ksmc = m_controller->sendRawExpectingError(compact(m));
        if (ksmc.value("code").toString() != "run_accepted") {
            QCOMPARE(ksmc.value("code").toString(), QString("transport_unavailable"));
            QCOMPARE(ksmc.value("field").toString(), QString("transport"));
        }
    }

    void outOfRangeSizesAndDurations() {
        QJsonObject m = goodClientStart();
        m["params"] = QJsonObject{{"msg_size", 0}};
        expectError(m, "bad_field", "params.msg_size");
        m["params"] = QJsonObject{{"msg_size", 1099511627776.0}};
        expectError(m, "bad_field", "params.msg_size");
        m["params"] = QJsonObject{{"msg_size", "lots"}};
        expectError(m, "bad_field", "params.msg_size");
        m["params"] = QJsonObject{{"no_such_param", 1}};
        expectError(m, "bad_field", "params.no_such_param");
        m["params"] = QJsonObject{{"duration_ms", 1000}};
        expectError(m, "bad_field", "params.duration_ms");
        m["params"] = QJsonObject{{"Bad-Key", 1}};
        expectError(m, "bad_field", "params.Bad-Key");

        m = goodClientStart();
        m["duration_ms"] = 0;
        expectError(m, "bad_field", "duration_ms");
        m["duration_ms"] = 1e12;
        expectError(m, "bad_field", "duration_ms");
        m["duration_ms"] = "5s";
        expectError(m, "bad_field", "duration_ms");
        m["duration_ms"] = 120'000;  // valid for the protocol, above this agent's --max-duration 60
        expectError(m, "bad_field", "duration_ms");
        m = goodClientStart();
        m.remove("duration_ms");
        expectError(m, "missing_field", "duration_ms");
        m = goodClientStart();
        m["sample_interval_ms"] = 10;
        expectError(m, "bad_field", "sample_interval_ms");
        m = goodClientStart();
        m["warmup_ms"] = 5000;
        expectError(m, "bad_field", "warmup_ms");
        m = goodClientStart();
        QJsonObject many;
        for (int i = 0; i < 65; ++i) many.insert(QString("k%1").arg(i), i);
        m["settings"] = many;
        expectError(m, "bad_field", "settings");
    }

    void peersAndEndpoints() {
        QJsonObject m = goodClientStart();
        m.remove("peer");
        expectError(m, "missing_field", "peer");
        m["peer"] = "example.com:80";
        expectError(m, "bad_field", "peer");
        m["peer"] = "127.0.0.1:0";
        expectError(m, "bad_field", "peer");
        m["peer"] = "127.0.0.1:70000";
        expectError(m, "bad_field", "peer");
        // A documentation address (RFC 5737) outside --allow-peer: refused before any connect.
        m["peer"] = "203.0.113.5:5201";
        expectError(m, "peer_not_allowed", "peer");
        QJsonObject server = serverRun("s1", "tcp_bw", 1000).toJson();
        server["peer"] = "127.0.0.1:5201";
        expectError(server, "bad_field", "peer");
        QJsonObject http = serverRun("h1", "http", 1000, {{"root", "/etc"}}).toJson();
        expectError(http, "bad_field", "params.root");
    }

    void runLimitsAndUnknownRuns() {
        expectError(SetSettings{"ghost", {{"x", 1}}}.toJson(), "unknown_run", "run_id");
        expectError(StopRun{"ghost"}.toJson(), "unknown_run", "run_id");
        expectError(QJsonObject{{"type", "set_settings"}, {"run_id", "ghost"}, {"settings", QJsonObject{}}},
                    "bad_field", "settings");

        QCOMPARE(m_controller->startRun(serverRun("a", "tcp_bw", 20'000)).value("type").toString(),
                 QString("run_accepted"));
        const QJsonObject duplicate = m_controller->startRun(serverRun("a", "tcp_bw", 20'000));
        QCOMPARE(duplicate.value("code").toString(), QString("duplicate_run"));
        QCOMPARE(duplicate.value("field").toString(), QString("run_id"));
        QCOMPARE(m_controller->startRun(serverRun("b", "tcp_bw", 20'000)).value("type").toString(),
                 QString("run_accepted"));
        QCOMPARE(m_controller->startRun(serverRun("c", "tcp_bw", 20'000)).value("code").toString(),
                 QString("too_many_runs"));
        for (const char* id : {"a", "b"}) {
            QCOMPARE(m_controller->request([&](auto h) { return m_controller->client.stopRun(id, h); })
                         .value("type")
                         .toString(),
                     QString("run_stopping"));
            const auto result = m_controller->waitForResult(id);
            QVERIFY(result);
            QCOMPARE(runStateName(result->state), QString("stopped"));
        }
    }

    void keepsServingAfterErrors() {
        QVERIFY(m_agent.isRunning());
        runTcpBwPair(*m_controller, "after-errors");
        // A second, fresh controller works too.
        TestController second;
        QVERIFY(second.connectTo("127.0.0.1", m_agent.port(), m_token.token()));
        runTcpBwPair(second, "second");
    }

    void wrongTokenIsRefusedThenRateLimited() {
        // A separate agent, so the rate limit on 127.0.0.1 touches nothing else.
        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token), qPrintable(agent.error()));
        TestController wrong;
        QVERIFY(!wrong.connectTo("127.0.0.1", agent.port(), "not-the-token", {}, 5000));
        QVERIFY2(!wrong.connectionFailures.isEmpty() && wrong.connectionFailures.last().contains("401"),
                 qPrintable(wrong.connectionFailures.join("; ")));
        TestController missing;
        QVERIFY(!missing.connectTo("127.0.0.1", agent.port(), QString(), {}, 5000));
        QVERIFY(missing.connectionFailures.last().contains("401"));
        QVERIFY(!wrong.connectTo("127.0.0.1", agent.port(), token.token() + "x", {}, 5000));
        QVERIFY(wrong.connectionFailures.last().contains("401"));
        // Three failures: the next attempt, even with the right token, waits.
        TestController limited;
        QVERIFY(!limited.connectTo("127.0.0.1", agent.port(), token.token(), {}, 5000));
        QVERIFY2(limited.connectionFailures.last().contains("429"), qPrintable(limited.connectionFailures.join("; ")));
        QTest::qWait(700);  // the first delay is 500 ms
        TestController good;
        QVERIFY2(good.connectTo("127.0.0.1", agent.port(), token.token()),
                 qPrintable(good.connectionFailures.join("; ")));
        runTcpBwPair(good, "after-401");
        const QString log = agent.log();
        QVERIFY2(log.contains("wrong bearer token") && log.contains("missing bearer token"), qPrintable(log));
        QCOMPARE(agent.terminate(), 0);
    }

    void cleanupTestCase() {
        m_controller.reset();
        QCOMPARE(m_agent.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgentErrors)
#include "test_agent_errors.moc"
