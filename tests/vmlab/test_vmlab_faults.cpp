// VM lab bring-up that cannot succeed says why at once, names the host,
// leaves nothing running and records nothing: a kernel package apt does
// not have, a guest that misses its deadline (the console's last lines
// come with the error).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "lab_file.h"
#include "vm_hosts.h"
#include "vmlab_session.h"

namespace lab = smclab::lab;

using smclab::testing::Outcome;
using smclab::testing::runSmclab;

class TestVmLabFaults : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString labFile() const { return m_dir.filePath(QStringLiteral("lab.json")); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void unknownKernelPackageSaysSo() {
        const Outcome up = runSmclab(
            {QStringLiteral("lab"), QStringLiteral("vm"), QStringLiteral("up"), QStringLiteral("1"),
             QStringLiteral("--kernel"), QStringLiteral("0.0.0-smclab-none-amd64"), QStringLiteral("--lab"), labFile()},
            120'000);
        QCOMPARE(up.exitCode, 1);
        QVERIFY2(up.err.contains(QLatin1String("apt-get download linux-image-0.0.0-smclab-none-amd64 failed")),
                 qPrintable(up.err));
        QVERIFY(!QFile::exists(labFile()));  // nothing recorded
    }

    void guestPastItsDeadlineIsStoppedWithItsConsole() {
        const Outcome up =
            runSmclab({QStringLiteral("lab"), QStringLiteral("vm"), QStringLiteral("up"), QStringLiteral("1"),
                       QStringLiteral("--timeout"), QStringLiteral("1"), QStringLiteral("--lab"), labFile()},
                      600'000);
        QCOMPARE(up.exitCode, 1);
        QVERIFY2(up.err.contains(QLatin1String("vm1: not ready within 1 s")), qPrintable(up.err));
        QVERIFY2(up.err.contains(QLatin1String("console")), qPrintable(up.err));
        // The guest was powered off, and the lab file has no VM host.
        lab::LabHost ghost;
        ghost.host = QStringLiteral("vm1");
        ghost.mode = QStringLiteral("vm");
        ghost.vmDir = labFile() + QStringLiteral(".vm/vm1");
        QVERIFY(QTest::qWaitFor([&] { return !lab::vm::vmState(ghost).running; }, 10'000));
        QString why;
        const auto lab = lab::loadLab(labFile(), &why);
        QVERIFY(lab.has_value());
        QVERIFY(lab->hosts.isEmpty());
    }

    void execOnAHostThatIsNotAVmFails() {
        const Outcome exec =
            runSmclab({QStringLiteral("lab"), QStringLiteral("vm"), QStringLiteral("exec"), QStringLiteral("vm9"),
                       QStringLiteral("--lab"), labFile(), QStringLiteral("--"), QStringLiteral("true")},
                      30'000);
        QCOMPARE(exec.exitCode, 1);
        QVERIFY2(exec.err.contains(QLatin1String("vm9 is not a VM lab host")), qPrintable(exec.err));
    }
};

QTEST_GUILESS_MAIN(TestVmLabFaults)
#include "test_vmlab_faults.moc"
