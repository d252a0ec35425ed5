// The Hosts page's form of a real VM lab host: the hello its agent sends
// (kernel SMC-R as the guest's kernel reports it) read as the user reads it.
#include <QtTest>

#include "data/capabilities_text.h"
#include "vm_hosts.h"
#include "vmlab_session.h"

using smclab::testing::VmLabSession;

class TestVmLabHostsForm : public QObject {
    Q_OBJECT

private:
    VmLabSession m_lab;

private slots:
    void initTestCase() { QVERIFY2(m_lab.open(), qPrintable(m_lab.why())); }

    // Each host's form names its kernel, its rxe device and the kernel
    // SMC-R set-up of the guest (its UEID, one pnet line), and does not
    // flag it as lacking a UEID.
    void formShowsTheGuestsKernelSmcr() {
        const smclab::lab::vm::VmUpOptions defaults;
        for (int index : {0, 1}) {
            const auto hello = m_lab.hello(index);
            QVERIFY2(bool(hello), hello ? "" : hello.error().message.c_str());
            const QString form = smclab::gui::capabilitiesHtml(m_lab.host(index).host, *hello);
            for (const QString& part : {QStringLiteral("Kernel SMC-R"), QStringLiteral("UEID ") + defaults.ueid,
                                        QStringLiteral("pnet ") + defaults.pnet + QStringLiteral(": eth0, rxe0 port 1"),
                                        QStringLiteral("rxe0"), hello->capabilities.host.kernelRelease})
                QVERIFY2(form.contains(part), qPrintable(part + QStringLiteral(" not in:\n") + form));
            QVERIFY2(!form.contains(QStringLiteral("no UEID")), qPrintable(form));
        }
    }
};

QTEST_GUILESS_MAIN(TestVmLabHostsForm)
#include "test_vmlab_hosts_form.moc"
