// smclab-agent's life cycle: command line (--help, --version, usage errors),
// a controller that vanishes mid-run (its runs are stopped after the grace
// period and the agent takes new runs), SIGTERM with runs going (results are
// sent, exit code 0), and wss:// with a certificate the controller trusts.
#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include "agent_harness.h"

using namespace smclab;
using namespace smclab::protocol;
using namespace smclab::test;

namespace {

// Starts a long tcp_bw server + client pair on one agent and waits for client samples.
bool startLongPair(TestController& controller, const QString& prefix) {
    if (controller.startRun(serverRun(prefix + "-s", "tcp_bw", 30'000, {{"max_tests", 1}})).value("type") !=
        "run_accepted") {
        return false;
    }
    const auto ready = controller.waitForReady(prefix + "-s");
    if (!ready) return false;
    StartRun client = clientRun(prefix + "-c", "tcp_bw", "127.0.0.1", ready->port, 30'000, {{"msg_size", 4096}});
    if (controller.startRun(client).value("type") != "run_accepted") return false;
    return controller.waitForSamples(prefix + "-c", 2);
}

}  // namespace

class TestAgentLifecycle : public QObject {
    Q_OBJECT

private slots:
    void commandLine() {
        QProcess help;
        help.start(agentBinary(), {"--help"});
        QVERIFY(help.waitForFinished(5000));
        QCOMPARE(help.exitCode(), 0);
        const QString text = QString::fromUtf8(help.readAllStandardOutput());
        for (const char* option :
             {"--listen", "--token-file", "--tls-cert", "--tls-key", "--allow-peer", "--max-runs", "--max-duration"}) {
            QVERIFY2(text.contains(option), option);
        }
        QProcess version;
        version.start(agentBinary(), {"--version"});
        QVERIFY(version.waitForFinished(5000));
        QCOMPARE(version.exitCode(), 0);
        QVERIFY(QString::fromUtf8(version.readAllStandardOutput()).contains("protocol 1.0"));

        TokenFile token;
        const QList<QStringList> bad{
            {"--listen", "127.0.0.1:0"},                                    // no token file
            {"--listen", "nowhere", "--token-file", token.path()},          // bad endpoint
            {"--token-file", token.path(), "--max-runs", "0"},              // out of range
            {"--token-file", token.path(), "--allow-peer", "10.0.0.0/99"},  // bad CIDR
            {"--token-file", token.path(), "--tls-cert", "x.pem"},          // cert without key
            {"--token-file", token.dir() + "/missing"},                     // unreadable token
            {"--token-file", token.path(), "--frobnicate"},                 // unknown option
        };
        for (const QStringList& args : bad) {
            QProcess agent;
            agent.start(agentBinary(), args);
            QVERIFY(agent.waitForFinished(5000));
            QVERIFY2(agent.exitCode() == 2, qPrintable(args.join(' ')));
            QVERIFY2(agent.readAllStandardError().contains("smclab-agent:"), qPrintable(args.join(' ')));
        }
    }

    void controllerDisconnectMidRunDoesNotWedgeTheAgent() {
        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token, {"--max-runs", "2", "--disconnect-grace-ms", "300"}), qPrintable(agent.error()));
        {
            TestController first;
            QVERIFY(first.connectTo("127.0.0.1", agent.port(), token.token()));
            QVERIFY(startLongPair(first, "orphan"));
            first.client.disconnectFromAgent();
        }
        // Both slots were taken; after the grace period they must come free.
        TestController second;
        QVERIFY(second.connectTo("127.0.0.1", agent.port(), token.token()));
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const QJsonObject status =
                             second.request([&](auto h) { return second.client.requestStatus(h); });
                         return status.value("active_runs").toInt(-1) == 0;
                     },
                     10'000),
                 "the vanished controller's runs were stopped");
        QVERIFY(agent.log().contains("controller gone"));
        QVERIFY(startLongPair(second, "fresh"));
        for (const char* id : {"fresh-c", "fresh-s"}) {
            (void)second.request([&](auto h) { return second.client.stopRun(id, h); });
        }
        QVERIFY(second.waitForResult("fresh-c"));
        QVERIFY(second.waitForResult("fresh-s"));
        QCOMPARE(agent.terminate(), 0);
    }

    void sigtermStopsRunsSendsResultsAndExitsZero() {
        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token), qPrintable(agent.error()));
        TestController controller;
        QVERIFY(controller.connectTo("127.0.0.1", agent.port(), token.token()));
        QVERIFY(startLongPair(controller, "term"));
        QCOMPARE(agent.terminate(), 0);
        // Results were flushed to the controller before the connection closed.
        const auto client = controller.waitForResult("term-c", 2000);
        const auto server = controller.waitForResult("term-s", 2000);
        QVERIFY2(client && server, "both results arrived before the agent exited");
        QCOMPARE(runStateName(client->state), QString("stopped"));
        QVERIFY(client->summary.value("bytes").toDouble() > 0 || !client->error.isEmpty());
        QVERIFY(QTest::qWaitFor([&] { return controller.disconnected; }, 2000));
        const QString log = agent.log();
        QVERIFY2(log.contains("shutting down") && log.contains("stopped"), qPrintable(log));
    }

    void tlsWithTrustedCertificate() {
        const QString openssl = QStandardPaths::findExecutable("openssl");
        if (openssl.isEmpty()) QSKIP("openssl is not installed; cannot make a test certificate");
        TokenFile token;
        const QString cert = token.dir() + "/cert.pem";
        const QString key = token.dir() + "/key.pem";
        QProcess make;
        make.start(openssl, {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days",
                             "1", "-subj", "/CN=smclab-test", "-addext", "subjectAltName=IP:127.0.0.1"});
        QVERIFY(make.waitForFinished(20'000));
        QCOMPARE(make.exitCode(), 0);

        AgentProcess agent;
        QVERIFY2(agent.start(token, {"--tls-cert", cert, "--tls-key", key}), qPrintable(agent.error()));
        TestController untrusting;
        AgentConnectOptions tls;
        tls.tls = true;
        QVERIFY2(!untrusting.connectTo("127.0.0.1", agent.port(), token.token(), tls, 5000),
                 "a self-signed certificate is refused unless trusted");
        TestController trusting;
        tls.caCertFile = cert;
        QVERIFY2(trusting.connectTo("127.0.0.1", agent.port(), token.token(), tls),
                 qPrintable(trusting.connectionFailures.join("; ")));
        QCOMPARE(trusting.client.url().scheme(), QString("wss"));
        QVERIFY(startLongPair(trusting, "tls"));
        (void)trusting.request([&](auto h) { return trusting.client.stopRun("tls-c", h); });
        QVERIFY(trusting.waitForResult("tls-c"));
        TestController ignoring;
        AgentConnectOptions lax;
        lax.tls = true;
        lax.ignoreSslErrors = true;
        QVERIFY(ignoring.connectTo("127.0.0.1", agent.port(), token.token(), lax));
        TestController plain;
        QVERIFY2(!plain.connectTo("127.0.0.1", agent.port(), token.token(), {}, 3000), "ws:// to a wss agent fails");
        QCOMPARE(agent.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgentLifecycle)
#include "test_agent_lifecycle.moc"
