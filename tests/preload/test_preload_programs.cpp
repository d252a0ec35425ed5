// Real programs under smcr_run on loopback: a byte-exact echo stream over
// SMC-R (blocking thread-per-connection server and an edge-triggered epoll
// server), the fallbacks in both directions (a preloaded client of a plain
// server, a plain client of a preloaded server) with every byte checked,
// and qperf tcp_bw/tcp_lat with both ends preloaded. The counters files
// prove where the bytes went.
#include <QJsonObject>
#include <QTest>

#include "preload_harness.h"

namespace {

constexpr const char* kStreamBytes = "3000000";

QString peer() {
    return PreloadHarness::testBin("preload_peer");
}

double num(const QJsonObject& o, const char* key) {
    return o.value(key).toDouble();
}

// The file of the process that made the client connection (the only one with smc_client).
QJsonObject clientStats(const PreloadHarness& h) {
    for (const QJsonObject& o : h.stats()) {
        if (num(o, "smc_client") > 0 || num(o, "tcp_connections") > 0) {
            if (o.value("fallbacks").toObject().keys().filter("server.").isEmpty()) return o;
        }
    }
    return {};
}

}  // namespace

class TestPreloadPrograms : public QObject {
    Q_OBJECT

private:
    void echoOverSmc(const char* serverMode) {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(true, peer(), {serverMode, QString::number(port)}, port, "listening");
        QString out;
        QString err;
        const int rc =
            h.runClient(true, peer(), {"client", QString::number(port), kStreamBytes, "11"}, &out, 30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        QVERIFY2(err.contains("SMC-R"), qPrintable(err));
        const QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_client"), 1.0);
        // Every application byte went over SMC-R (>= 90%: the rule of the issue).
        QVERIFY2(num(c, "smc_tx_bytes") >= 0.9 * num(c, "app_tx_bytes"),
                 qPrintable(QString::number(num(c, "smc_tx_bytes"))));
        QVERIFY(num(c, "app_tx_bytes") >= 3000000);
        QVERIFY(c.value("engine").toObject().value("smcr.rdma_writes").toDouble() > 0);
    }

private slots:
    void echoBlockingServer() { echoOverSmc("serve-threads"); }
    void echoEpollEdgeTriggeredServer() { echoOverSmc("serve-epoll"); }

    // A preloaded client never sends CLC bytes to a plain server: the echo
    // would carry them back and the comparison would fail.
    void preloadedClientPlainServer() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(false, peer(), {"serve-threads", QString::number(port)}, port, "listening");
        QString out;
        QString err;
        QCOMPARE(
            h.runClient(true, peer(), {"client", QString::number(port), kStreamBytes, "12"}, &out, 30000, {}, &err), 0);
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        const QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_connections"), 0.0);
        QCOMPARE(c.value("fallbacks").toObject().value("client.not_libsmcr_peer").toDouble(), 1.0);
        QCOMPARE(num(c, "tcp_tx_bytes"), 3000000.0);
    }

    // A plain client of a preloaded server is taken as TCP at accept, by
    // libsmcr's listener rules: a server fallback with the kernel's reason
    // (PEERNOSMC) in the counters, through the fast path unless
    // lab.fast_fallback is off.
    void plainClientPreloadedServer_data() {
        QTest::addColumn<bool>("fastFallback");
        QTest::newRow("fast_fallback on") << true;
        QTest::newRow("fast_fallback off") << false;
    }
    void plainClientPreloadedServer() {
        QFETCH(bool, fastFallback);
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        const QStringList env{QString("SMCR_SETTINGS=lab.fast_fallback=%1").arg(fastFallback ? 1 : 0)};
        h.startServer(true, peer(), {"serve-epoll", QString::number(port)}, port, "listening", env);
        QString out;
        QCOMPARE(h.runClient(false, peer(), {"client", QString::number(port), kStreamBytes, "13"}, &out), 0);
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        h.stopServers();  // serve-epoll returns on SIGTERM: its counters file
        QJsonObject server;
        for (const QJsonObject& o : h.stats()) {
            if (o.value("program").toString() == "preload_peer") server = o;
        }
        QVERIFY2(!server.isEmpty(), "the server wrote no counters file");
        QCOMPARE(num(server, "tcp_connections"), 1.0);
        QCOMPARE(server.value("fallbacks").toObject().value("server.PEERNOSMC").toDouble(), 1.0);
        const QJsonObject engine = server.value("engine").toObject();
        QCOMPARE(engine.value("smcr.srv_fallbacks").toDouble(), 1.0);
        QCOMPARE(engine.value("smcr.fallback.server.PEERNOSMC").toDouble(), 1.0);
        QCOMPARE(engine.value("smcr.fast_fallback_accepts").toDouble(), fastFallback ? 1.0 : 0.0);
    }

    // exec keeps the preload and its settings (LD_PRELOAD and SMCR_* stay in
    // the environment): a shell that execs the client still speaks SMC-R.
    void execKeepsPreload() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(true, peer(), {"serve-threads", QString::number(port)}, port, "listening");
        QString out;
        QString err;
        const QString command = QString("exec %1 client %2 100000 21").arg(peer()).arg(port);
        QCOMPARE(h.runClient(true, "/bin/sh", {"-c", command}, &out, 20000, {}, &err), 0);
        QCOMPARE(out.trimmed(), QString("ok 100000"));
        QVERIFY2(err.contains("preload_peer]: connect") && err.contains("SMC-R"), qPrintable(err));
    }

    // qperf's control connection stays TCP (SMCR_TCP_PORTS: it crosses the
    // server's fork); the test's data connection goes over SMC-R; SIGALRM ends it.
    void qperfBothEnds() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        const QStringList env{"SMCR_TCP_PORTS=" + QString::number(port)};
        h.startServer(true, "/usr/bin/qperf", {"-lp", QString::number(port)}, port, {}, env);
        QString out;
        QString err;
        const int rc = h.runClient(true, "/usr/bin/qperf",
                                   {"-lp", QString::number(port), "-t", "1", "127.0.0.1", "tcp_bw", "tcp_lat"}, &out,
                                   30000, env, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QVERIFY2(out.contains("bw") && out.contains("latency"), qPrintable(out));
        h.stopServers();
        // The server's per-test children (one per test) took their data
        // connections over SMC-R; the tcp_bw child's bytes went over RDMA
        // (tcp_lat's few bytes sit beside the control connection's).
        int smcChildren = 0;
        double bwApp = 0;
        double bwSmc = 0;
        for (const QJsonObject& o : h.stats()) {
            if (num(o, "smc_server") < 1) continue;
            ++smcChildren;
            const double app = num(o, "app_rx_bytes") + num(o, "app_tx_bytes");
            if (app > bwApp) {
                bwApp = app;
                bwSmc = num(o, "smc_rx_bytes") + num(o, "smc_tx_bytes");
            }
        }
        QCOMPARE(smcChildren, 2);
        QVERIFY2(bwSmc >= 0.9 * bwApp, qPrintable(QString("smc %1 of %2").arg(bwSmc).arg(bwApp)));
    }
};

QTEST_GUILESS_MAIN(TestPreloadPrograms)
#include "test_preload_programs.moc"
