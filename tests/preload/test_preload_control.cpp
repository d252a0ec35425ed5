// smclab stat / smclab set against a live program under smcr_run (the
// per-process control endpoint, engine/src/preload/control.h), and the
// same counters on smclab-agent's /metrics page (pid and program labels,
// the engine's kernel-like names), checked with promtool where installed.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryFile>
#include <QTest>

#include "preload_harness.h"

namespace {

int runSmclab(PreloadHarness& h, const QStringList& args, QString* out, QString* err) {
    return h.runClient(false, PreloadHarness::binDir() + "/smclab", args, out, 10000, {}, err);
}

// The value of the sample `name{...}` whose labels include every one in `labels`.
std::optional<double> sampleValue(const QByteArray& page, const QString& name, const QStringList& labels) {
    for (const QString& line : QString::fromUtf8(page).split('\n')) {
        if (line.startsWith('#') || !line.startsWith(name + '{')) continue;
        bool all = true;
        for (const QString& label : labels) all = all && line.contains(label);
        if (all) return line.section(' ', -1).toDouble();
    }
    return std::nullopt;
}

// One scrape of an agent started for it with the harness's environment (its
// sim folder, so it finds the same control endpoints). "" when it failed.
QByteArray scrapeAgent(PreloadHarness& h, QString* why) {
    QTemporaryFile token;
    if (!token.open() || token.write("preload-metrics-token\n") < 0) {
        *why = "token file";
        return {};
    }
    token.flush();
    QProcess agent;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SMCR_SIM_DIR", h.simDir());
    agent.setProcessEnvironment(env);
    agent.setProcessChannelMode(QProcess::MergedChannels);
    agent.start(PreloadHarness::binDir() + "/smclab-agent",
                {"--listen", "127.0.0.1:0", "--token-file", token.fileName(), "--metrics", "127.0.0.1:0"});
    static const QRegularExpression serving("metrics: serving http://127\\.0\\.0\\.1:(\\d+)/metrics");
    QByteArray log;
    quint16 port = 0;
    (void)QTest::qWaitFor(
        [&] {
            log += agent.readAll();
            const auto match = serving.match(QString::fromUtf8(log));
            port = match.hasMatch() ? static_cast<quint16>(match.captured(1).toUInt()) : 0;
            return port != 0 || agent.state() == QProcess::NotRunning;
        },
        10'000);
    QByteArray reply;
    if (port != 0) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, port);
        if (socket.waitForConnected(5000)) {
            socket.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(5000))
                reply += socket.readAll();
            reply += socket.readAll();
        }
    }
    agent.terminate();
    agent.waitForFinished(5000);
    if (reply.isEmpty()) *why = "no page from the agent: " + QString::fromUtf8(log + agent.readAll());
    return reply.mid(reply.indexOf("\r\n\r\n") + 4);
}

QString promtoolComplaint(const QByteArray& page) {
    const QString promtool = QStandardPaths::findExecutable("promtool");
    if (promtool.isEmpty()) return {};
    QProcess check;
    check.start(promtool, {"check", "metrics"});
    check.write(page);
    check.closeWriteChannel();
    if (!check.waitForFinished(20'000)) return "promtool hung";
    return check.exitCode() == 0 ? QString() : QString::fromUtf8(check.readAll() + check.readAllStandardError());
}

}  // namespace

class TestPreloadControl : public QObject {
    Q_OBJECT

private slots:
    void statAndSetLive() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        QProcess* server = h.startServer(true, PreloadHarness::testBin("preload_peer"),
                                         {"serve-threads", QString::number(port)}, port, "listening");
        const QString pid = QString::number(server->processId());
        QString out;
        QString err;
        QCOMPARE(h.runClient(true, PreloadHarness::testBin("preload_peer"),
                             {"client", QString::number(port), "200000", "5"}, &out),
                 0);

        QCOMPARE(runSmclab(h, {"stat", pid}, &out, &err), 0);
        QJsonObject stats = QJsonDocument::fromJson(out.toUtf8()).object();
        QCOMPARE(stats.value("pid").toInt(), pid.toInt());
        QCOMPARE(stats.value("smc_server").toInt(), 1);
        QCOMPARE(stats.value("smc_rx_bytes").toDouble(), 200000.0);

        QCOMPARE(runSmclab(h, {"set", pid, "autocorking_size=0"}, &out, &err), 0);
        QVERIFY2(out.startsWith("ok "), qPrintable(out));
        QCOMPARE(runSmclab(h, {"stat", pid}, &out, &err), 0);
        stats = QJsonDocument::fromJson(out.toUtf8()).object();
        QCOMPARE(stats.value("settings").toObject().value("autocorking_size").toString(), QString("0"));

        QCOMPARE(runSmclab(h, {"set", pid, "no_such_setting=1"}, &out, &err), 2);
        QVERIFY(err.contains("no_such_setting"));

        QCOMPARE(runSmclab(h, {"stat", "--all"}, &out, &err), 0);
        QVERIFY(out.contains("\"pid\": " + pid));

        // The agent's /metrics finds the program and exports what stat says (the
        // server is idle now, so its counters hold still between the two looks).
        QCOMPARE(runSmclab(h, {"stat", pid}, &out, &err), 0);
        const QJsonObject engine = QJsonDocument::fromJson(out.toUtf8()).object().value("engine").toObject();
        QString why;
        const QByteArray page = scrapeAgent(h, &why);
        QVERIFY2(!page.isEmpty(), qPrintable(why));
        QCOMPARE(promtoolComplaint(page), QString());
        const QStringList labels{"pid=\"" + pid + "\"", "program=\""};
        QVERIFY2(page.contains("# TYPE smcr_cdc_msgs_received_total counter"), page.constData());
        QCOMPARE(sampleValue(page, "smcr_cdc_msgs_received_total", labels),
                 engine.value("smcr.cdc_received").toDouble());
        QVERIFY(engine.value("smcr.cdc_received").toDouble() > 0);
        QCOMPARE(sampleValue(page, "smcr_rx_bytes_total", labels), engine.value("smcr.rx_bytes").toDouble());
        QCOMPARE(
            sampleValue(page, "smcr_preload_app_bytes_total", labels + QStringList{"path=\"smc\"", "direction=\"rx\""}),
            200000.0);
        QCOMPARE(sampleValue(page, "smcr_preload_connections_total",
                             labels + QStringList{"path=\"smc\"", "side=\"server\""}),
                 1.0);

        h.stopServers();
        QCOMPARE(runSmclab(h, {"stat", pid}, &out, &err), 1);
        QVERIFY2(err.contains("no libsmcr preload"), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestPreloadControl)
#include "test_preload_control.moc"
