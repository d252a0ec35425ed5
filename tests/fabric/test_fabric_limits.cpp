// The host limits `smclab bench fabric` prints beside its tables: each of
// the three ping-pongs (cache line, futex, pipe) really hands the turn back
// and forth between two processes and is timed (no figure is asserted: the
// host's load decides them).
#include <smcr/fabric_bench.h>

#include <QTest>

class TestFabricLimits : public QObject {
    Q_OBJECT
private slots:
    void everyPingPongIsTimed() {
        const smcr::fabric::bench::Limits l = smcr::fabric::bench::measureLimits(true, 1000);
        qInfo("one-way us, typical (min): cache line %.3f (%.3f), futex %.3f (%.3f), pipe %.3f (%.3f)",
              l.pingPongOneWayUs, l.pingPongMinUs, l.wakeFutexOneWayUs, l.wakeFutexMinUs, l.wakePipeOneWayUs,
              l.wakePipeMinUs);
        for (const auto& [typical, min] :
             {std::pair{l.pingPongOneWayUs, l.pingPongMinUs}, std::pair{l.wakeFutexOneWayUs, l.wakeFutexMinUs},
              std::pair{l.wakePipeOneWayUs, l.wakePipeMinUs}}) {
            QVERIFY(min > 0);
            QVERIFY(typical >= min);
        }
        QVERIFY(l.memcpyHotGBps > 0);
        QVERIFY(l.memcpyColdGBps > 0);
    }
};

QTEST_GUILESS_MAIN(TestFabricLimits)
#include "test_fabric_limits.moc"
