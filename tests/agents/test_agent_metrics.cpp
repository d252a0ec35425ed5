// smclab-agent --metrics: a real agent serves the Prometheus text format
// that promtool accepts, with the agent's sessions and runs, and a libsmcr
// run's engine counters under kernel-like names whose values lie between the
// run's own counters sampled before the scrape and its final counters.
// Scrapers pass the same peer policy as client runs; no --metrics, no port.
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTest>

#include "agent_harness.h"

using namespace smclab;
using namespace smclab::protocol;
using namespace smclab::test;

namespace {

// The port from the agent's "metrics: serving http://ADDR:PORT/metrics" log line.
quint16 metricsPort(AgentProcess& agent) {
    static const QRegularExpression serving(QStringLiteral("metrics: serving http://127\\.0\\.0\\.1:(\\d+)/metrics"));
    quint16 port = 0;
    (void)QTest::qWaitFor(
        [&] {
            const auto match = serving.match(agent.log());
            if (match.hasMatch()) port = static_cast<quint16>(match.captured(1).toUInt());
            return port != 0;
        },
        5000);
    return port;
}

// One HTTP request; returns the whole reply ("" when the agent closed without one).
QByteArray httpGet(quint16 port, const QByteArray& path = "/metrics", const QByteArray& method = "GET") {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000)) return {};
    socket.write(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n");
    QByteArray reply;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(5000))
        reply += socket.readAll();
    reply += socket.readAll();
    return reply;
}

QByteArray bodyOf(const QByteArray& reply) {
    return reply.mid(reply.indexOf("\r\n\r\n") + 4);
}

// promtool's verdict on a page: "" when it passes, else its complaint.
QString promtoolComplaint(const QByteArray& page) {
    QProcess promtool;
    promtool.start(QStandardPaths::findExecutable("promtool"), {"check", "metrics"});
    if (!promtool.waitForStarted(5000)) return "promtool did not start";
    promtool.write(page);
    promtool.closeWriteChannel();
    if (!promtool.waitForFinished(20'000)) return "promtool hung";
    const QString output = QString::fromUtf8(promtool.readAllStandardOutput() + promtool.readAllStandardError());
    return promtool.exitCode() == 0 ? QString() : output;
}

// The value of the sample `name{...}` whose labels include every one in `labels`.
// The page's lines about ended runs, for a failure message.
QByteArray endedLines(const QByteArray& page) {
    QByteArray out;
    for (const QByteArray& line : page.split('\n')) {
        if (line.startsWith("smclab_agent_runs")) out += line + '\n';
    }
    return out;
}

std::optional<double> sampleValue(const QByteArray& page, const QString& name, const QStringList& labels = {}) {
    for (const QString& line : QString::fromUtf8(page).split('\n')) {
        if (line.startsWith('#') || !(line.startsWith(name + ' ') || line.startsWith(name + '{'))) continue;
        bool all = true;
        for (const QString& label : labels) all = all && line.contains(label);
        if (all) return line.section(' ', -1).toDouble();
    }
    return std::nullopt;
}

double counterOf(const QJsonObject& counters, const char* name) {
    return counters.value(name).toDouble(-1);
}

}  // namespace

class TestAgentMetrics : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (QStandardPaths::findExecutable("promtool").isEmpty()) {
            QSKIP("promtool not installed (Debian package prometheus, in packaging/install-deps.sh)");
        }
    }

    void smcrRunCountersAreExportedAndMatchTheRun() {
        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token, {"--metrics", "127.0.0.1:0"}), qPrintable(agent.error()));
        const quint16 port = metricsPort(agent);
        QVERIFY2(port != 0, qPrintable(agent.log()));

        const QByteArray idle = httpGet(port);
        QVERIFY2(idle.startsWith("HTTP/1.1 200 OK"), idle.constData());
        QVERIFY(idle.contains("Content-Type: text/plain; version=0.0.4"));
        QCOMPARE(promtoolComplaint(bodyOf(idle)), QString());
        QCOMPARE(sampleValue(bodyOf(idle), "smclab_agent_up"), 1.0);
        QCOMPARE(sampleValue(bodyOf(idle), "smclab_agent_sessions"), 0.0);
        // No run, no run's engine (programs under smcr_run elsewhere on the host may be listed).
        QVERIFY(!bodyOf(idle).contains("run_id="));

        TestController controller;
        QVERIFY(controller.connectTo("127.0.0.1", agent.port(), token.token()));
        StartRun server = serverRun("m-s", "tcp_bw", 30'000, {{"max_tests", 1}});
        server.transport = "smcr";
        QCOMPARE(controller.startRun(server).value("type").toString(), QString("run_accepted"));
        const auto ready = controller.waitForReady("m-s");
        QVERIFY(ready);
        StartRun client = clientRun("m-c", "tcp_bw", "127.0.0.1", ready->port, 30'000, {{"msg_size", 4096}});
        client.transport = "smcr";
        QCOMPARE(controller.startRun(client).value("type").toString(), QString("run_accepted"));
        QVERIFY(controller.waitForSamples("m-c", 2));

        // The run's own counters just before the scrape bound it from below.
        const QJsonObject before = controller.samplesOf("m-c").last().counters;
        const QByteArray page = bodyOf(httpGet(port));
        QCOMPARE(promtoolComplaint(page), QString());
        QCOMPARE(sampleValue(page, "smclab_agent_sessions"), 1.0);
        QCOMPARE(sampleValue(page, "smclab_agent_runs_started_total"), 2.0);
        QVERIFY(sampleValue(page, "smclab_agent_runs", {"state=\"running\""}).value_or(0) >= 1);
        QVERIFY(page.contains("# TYPE smcr_cdc_msgs_sent_total counter"));
        QVERIFY(page.contains("# TYPE smcr_rdma_writes_total counter"));
        QVERIFY(page.contains("# TYPE smcr_conns_active gauge"));
        const QStringList clientLabels{"run_id=\"m-c\"", "role=\"client\"", "workload=\"tcp_bw\""};
        const auto cdcSent = sampleValue(page, "smcr_cdc_msgs_sent_total", clientLabels);
        const auto rdmaWrites = sampleValue(page, "smcr_rdma_writes_total", clientLabels);
        const auto txBytes = sampleValue(page, "smcr_tx_bytes_total", clientLabels);
        QVERIFY2(cdcSent && rdmaWrites && txBytes, page.constData());
        QVERIFY(sampleValue(page, "smcr_cdc_msgs_received_total", {"run_id=\"m-s\"", "role=\"server\""}));
        QCOMPARE(sampleValue(page, "smcr_conns_active", clientLabels), 1.0);
        QVERIFY2(*cdcSent >= counterOf(before, "smcr.cdc_sent") && counterOf(before, "smcr.cdc_sent") > 0,
                 qPrintable(QString("scraped %1, sampled %2").arg(*cdcSent).arg(counterOf(before, "smcr.cdc_sent"))));
        QVERIFY(*rdmaWrites >= counterOf(before, "smcr.rdma_writes"));
        QVERIFY(*txBytes >= counterOf(before, "smcr.tx_bytes"));

        for (const char* id : {"m-c", "m-s"})
            (void)controller.request([&](auto h) { return controller.client.stopRun(id, h); });
        const auto result = controller.waitForResult("m-c");
        QVERIFY(controller.waitForResult("m-s"));
        QVERIFY(result);
        // ... and its final counters from above.
        QVERIFY2(*cdcSent <= counterOf(result->counters, "smcr.cdc_sent"),
                 qPrintable(
                     QString("scraped %1, final %2").arg(*cdcSent).arg(counterOf(result->counters, "smcr.cdc_sent"))));
        QVERIFY(*rdmaWrites <= counterOf(result->counters, "smcr.rdma_writes"));
        QVERIFY(*txBytes <= counterOf(result->counters, "smcr.tx_bytes"));

        // The client was stopped; the server (max_tests 1) either was too or
        // finished its one test before the stop reached it.
        QByteArray after;
        const bool ended = QTest::qWaitFor(
            [&] {
                after = bodyOf(httpGet(port));
                const double stopped =
                    sampleValue(after, "smclab_agent_runs_ended_total", {"state=\"stopped\""}).value_or(0);
                const double finished =
                    sampleValue(after, "smclab_agent_runs_ended_total", {"state=\"finished\""}).value_or(0);
                return stopped >= 1.0 && stopped + finished == 2.0;
            },
            5000);
        QVERIFY2(ended, endedLines(after).constData());
        QCOMPARE(promtoolComplaint(after), QString());
        QVERIFY2(!after.contains("run_id=\"m-c\""), "an ended run's engine is no longer exported");
        QCOMPARE(agent.terminate(), 0);
    }

    void onlyGetMetricsIsServed() {
        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token, {"--metrics", "127.0.0.1:0"}), qPrintable(agent.error()));
        const quint16 port = metricsPort(agent);
        QVERIFY(port != 0);
        QVERIFY(httpGet(port, "/", "GET").startsWith("HTTP/1.1 404"));
        QVERIFY(httpGet(port, "/metrics", "POST").startsWith("HTTP/1.1 405"));
        const QByteArray head = httpGet(port, "/metrics", "HEAD");
        QVERIFY(head.startsWith("HTTP/1.1 200") && bodyOf(head).isEmpty());
        QCOMPARE(agent.terminate(), 0);
    }

    void scrapersPassThePeerPolicy() {
        // Loopback scrapers are served by default (the first test); without
        // loopback peers, and no --allow-peer covering it, a scrape from
        // 127.0.0.1 gets no page.
        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token, {"--metrics", "127.0.0.1:0", "--no-loopback-peers", "--allow-peer", "10.9.0.0/16"}),
                 qPrintable(agent.error()));
        const quint16 port = metricsPort(agent);
        QVERIFY(port != 0);
        QCOMPARE(httpGet(port), QByteArray());
        QVERIFY(QTest::qWaitFor([&] { return agent.log().contains("metrics: refused scrape from 127.0.0.1"); }, 5000));
        QCOMPARE(agent.terminate(), 0);
    }

    void offByDefaultAndBadAddressesRefused() {
        TokenFile token;
        AgentProcess agent;
        QVERIFY(agent.start(token));
        QTest::qWait(200);
        QVERIFY(!agent.log().contains("metrics:"));
        QCOMPARE(agent.terminate(), 0);
        for (const QStringList& args :
             {QStringList{"--metrics", "localhost:9100"}, QStringList{"--metrics", "127.0.0.1"}}) {
            QProcess bad;
            bad.start(agentBinary(), QStringList{"--token-file", token.path()} + args);
            QVERIFY(bad.waitForFinished(5000));
            QCOMPARE(bad.exitCode(), 2);
            QVERIFY(bad.readAllStandardError().contains("--metrics"));
        }
    }
};

QTEST_GUILESS_MAIN(TestAgentMetrics)
#include "test_agent_metrics.moc"
