// smclab stat / smclab set against a live program under smcr_run (the
// per-process control endpoint, engine/src/preload/control.h).
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "preload_harness.h"

namespace {

int runSmclab(PreloadHarness& h, const QStringList& args, QString* out, QString* err) {
    return h.runClient(false, PreloadHarness::binDir() + "/smclab", args, out, 10000, {}, err);
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

        h.stopServers();
        QCOMPARE(runSmclab(h, {"stat", pid}, &out, &err), 1);
        QVERIFY2(err.contains("no libsmcr preload"), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestPreloadControl)
#include "test_preload_control.moc"
