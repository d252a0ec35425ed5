#include <smcr/result.h>

#include <QTest>

// Result<T> is the error-as-value type used at every engine module border.
class TestResult : public QObject {
    Q_OBJECT
private slots:
    void valueIsKept() {
        smcr::Result<int> r = 42;
        QVERIFY(r.ok());
        QCOMPARE(r.value(), 42);
        QCOMPARE(r.valueOr(7), 42);
    }
    void errorIsKept() {
        smcr::Result<int> r = smcr::fail(smcr::Errc::malformed, "clc.length: 3 < 8");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, smcr::Errc::malformed);
        QCOMPARE(QString::fromStdString(r.error().toString()), QString("malformed: clc.length: 3 < 8"));
        QCOMPARE(r.valueOr(7), 7);
    }
    void statusDefaultsToOk() {
        smcr::Status s;
        QVERIFY(s.ok());
        smcr::Status bad = smcr::fail(smcr::makeSystemError("socket", ECONNREFUSED));
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().sysErrno, ECONNREFUSED);
        QVERIFY(QString::fromStdString(bad.error().message).startsWith("socket: "));
    }
    void fatalClassification() {
        QVERIFY(smcr::isFatal(smcr::Errc::connectionReset));
        QVERIFY(!smcr::isFatal(smcr::Errc::wouldBlock));
    }
};

QTEST_APPLESS_MAIN(TestResult)
#include "test_result.moc"
