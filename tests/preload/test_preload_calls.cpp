// The interposed calls one scenario at a time (preload_calls.cpp), each run
// under smcr_run with both ends preloaded; the counters prove SMC-R carried
// the connection.
#include <QTest>

#include "preload_harness.h"

class TestPreloadCalls : public QObject {
    Q_OBJECT

private slots:
    void scenario_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"peek_waitall", "dup", "sendfile", "shutdown", "eintr", "nonblocking", "select",
                              "epoll_oneshot", "epoll_et", "fork", "cancel", "peer_killed", "epoll_before_connect",
                              "vfork", "close_range", "syscall", "nested_epoll", "limit_smc_hs", "fork_closed_copy"}) {
            QTest::newRow(n) << QString(n);
        }
    }
    void scenario() {
        QFETCH(QString, name);
        PreloadHarness h;
        QString out;
        QString err;
        const int rc = h.runClient(true, PreloadHarness::testBin("preload_calls"), {name}, &out, 30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), "ok " + name);
        QVERIFY2(err.contains("connect") && err.contains("SMC-R"), qPrintable(err));
        if (name == "fork_closed_copy") QVERIFY2(err.contains("claimed the engine"), qPrintable(err));
        if (name == "limit_smc_hs") {
            // Two of the three accepted had connections queued behind them.
            const QStringList accepts = err.split('\n').filter("]: accept ");
            QVERIFY2(accepts.filter("TCP (PEERNOSMC)").size() == 2 && accepts.filter("SMC-R").size() == 1,
                     qPrintable(err));
        }
    }
};

QTEST_GUILESS_MAIN(TestPreloadCalls)
#include "test_preload_calls.moc"
