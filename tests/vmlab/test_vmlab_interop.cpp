// libsmcr against the Linux kernel's SMC-R on the VM lab hosts: a libsmcr
// client (smclab load over the verbs fabric on rxe, vm1) and a kernel
// server (smclab serve over the ksmc transport, vm2), judged by the
// kernel's own counters (successes, fallbacks by reason) and by the
// workload's byte checks.
#include <QJsonObject>
#include <QtTest>

#include "vm_hosts.h"
#include "vmlab_session.h"

using smclab::testing::fallbackCount;
using smclab::testing::GuestRun;
using smclab::testing::VmLabSession;
namespace lab = smclab::lab;

namespace {

constexpr quint32 kPeerNoSmc = 0x03010000;  // SMC_CLC_DECL_PEERNOSMC: the SYN had no SMC option
constexpr quint32 kNoSmcDev = 0x03030000;   // SMC_CLC_DECL_NOSMCDEV: no device for what the Proposal offers

}  // namespace

class TestVmLabInterop : public QObject {
    Q_OBJECT

private:
    VmLabSession m_lab;
    int m_nextPort = 5300;

    // A kernel SMC-R server of the tcp workloads on vm2; its port.
    int startKernelServer() {
        const int port = m_nextPort++;
        const GuestRun serve = m_lab.run(
            1, QStringLiteral("setsid smclab serve tcp --transport ksmc --listen %1:%2 > /tmp/serve-%2.out 2>&1 "
                              "< /dev/null &\n"
                              "for i in $(seq 100); do grep -q listening /tmp/serve-%2.out && break; sleep 0.2; done\n"
                              "cat /tmp/serve-%2.out")
                   .arg(VmLabSession::linkAddress(1))
                   .arg(port));
        if (!serve.ok || !serve.output.contains(QLatin1String("listening"))) {
            qWarning("kernel server: %s", qPrintable(serve.output + serve.error));
            return -1;
        }
        return port;
    }

    void stopKernelServer(int port) {
        m_lab.run(1, QStringLiteral("pkill -f 'smclab serve tcp --transport ksmc --listen %1:%2'")
                         .arg(VmLabSession::linkAddress(1))
                         .arg(port));
    }

    // A libsmcr tcp_bw client on vm1, every byte checked; `wrapper` runs it (smc_synopt or nothing).
    GuestRun libsmcrLoad(int port, const QString& wrapper) {
        return m_lab.run(0,
                         QStringLiteral("%1smclab load tcp_bw --transport smcr --transport-opt fabric=verbs "
                                        "--connect %2:%3 -m 64K -t 2 --verify 2>&1")
                             .arg(wrapper, VmLabSession::linkAddress(1))
                             .arg(port),
                         120'000);
    }

private slots:
    void initTestCase() { QVERIFY2(m_lab.open(), qPrintable(m_lab.why())); }

    // smc_synopt puts the option on the SYN (a BPF sock_ops program): the
    // kernel server takes the connection for SMC (without the option it
    // falls back at once, PEERNOSMC, and hands libsmcr's Proposal to the
    // application as data), reads libsmcr's
    // Proposal (SMC-R v1, which rxe cannot carry: RoCE v2 GIDs only) and
    // declines it (NOSMCDEV); libsmcr falls back on the Decline and every
    // byte arrives over TCP.
    void withSynOptionKernelReadsTheProposalAndDeclines() {
        const GuestRun tool = m_lab.run(0, QStringLiteral("command -v smc_synopt"));
        if (!tool.ok || tool.exitCode != 0) QSKIP("smc_synopt is not built (needs clang and libbpf-dev)");
        const int port = startKernelServer();
        QVERIFY(port > 0);
        const QJsonObject before = m_lab.kernelStats(1);
        const GuestRun load = libsmcrLoad(port, QStringLiteral("smc_synopt %1 -- ").arg(port));
        stopKernelServer(port);
        QVERIFY2(load.ok && load.exitCode == 0 && load.output.contains(QLatin1String("bw")),
                 qPrintable(load.output + load.error));
        const QJsonObject after = m_lab.kernelStats(1);
        QCOMPARE(fallbackCount(after, QStringLiteral("server"), kPeerNoSmc),
                 fallbackCount(before, QStringLiteral("server"), kPeerNoSmc));  // the option arrived
        QCOMPARE(fallbackCount(after, QStringLiteral("server"), kNoSmcDev) -
                     fallbackCount(before, QStringLiteral("server"), kNoSmcDev),
                 1);
    }

    // With the VM lab's UEID (lab.ueid) libsmcr proposes SMC-Rv2 as the
    // kernel does: the kernel server accepts it, sends its CONFIRM_LINK_V2,
    // takes libsmcr's answer, and the stream runs over RDMA with every
    // byte checked. Two client processes one after the other: each is its
    // own peer (its system id in the Proposal), so the kernel gives each a
    // link group of its own rather than the ended one's. Two SMC-Rv2
    // successes more in the kernel's own counters, no fallback.
    void libsmcrV2ClientAgainstKernelServer() {
        const GuestRun tool = m_lab.run(0, QStringLiteral("command -v smc_synopt"));
        if (!tool.ok || tool.exitCode != 0) QSKIP("smc_synopt is not built (needs clang and libbpf-dev)");
        const int port = startKernelServer();
        QVERIFY(port > 0);
        const QJsonObject before = m_lab.kernelStats(1);
        for (const char* test : {"tcp_bw -m 64K", "tcp_lat -m 1"}) {
            const GuestRun load =
                m_lab.run(0,
                          QStringLiteral("smc_synopt %1 -- smclab load %2 --transport smcr "
                                         "--transport-opt fabric=verbs --transport-opt lab.ueid=%3 "
                                         "--connect %4:%1 -t 2 --verify 2>&1")
                              .arg(port)
                              .arg(QLatin1String(test), lab::vm::VmUpOptions().ueid, VmLabSession::linkAddress(1)),
                          120'000);
            QVERIFY2(load.ok && load.exitCode == 0 && load.output.contains(QLatin1String("=")),
                     qPrintable(load.output + load.error));
        }
        stopKernelServer(port);
        const QJsonObject after = m_lab.kernelStats(1);
        QCOMPARE(v2Successes(after, "server_v2_success") - v2Successes(before, "server_v2_success"), 2);
        QCOMPARE(smclab::testing::totalFallbacks(after), smclab::testing::totalFallbacks(before));
    }

    // The other way: a kernel client (smclab load over ksmc, vm1) against a
    // libsmcr server with the UEID (vm2), whose SYN-ACK smc_synopt marks:
    // libsmcr accepts the kernel's v2-only Proposal, sends its own
    // CONFIRM_LINK_V2, and the kernel counts an SMC-Rv2 client success.
    void kernelClientAgainstLibsmcrV2Server() {
        const GuestRun tool = m_lab.run(0, QStringLiteral("command -v smc_synopt"));
        if (!tool.ok || tool.exitCode != 0) QSKIP("smc_synopt is not built (needs clang and libbpf-dev)");
        const int port = m_nextPort++;
        const QString serve = QStringLiteral(
                                  "smclab serve tcp --transport smcr --transport-opt fabric=verbs "
                                  "--transport-opt lab.ueid=%1 --listen %2:%3")
                                  .arg(lab::vm::VmUpOptions().ueid, VmLabSession::linkAddress(1))
                                  .arg(port);
        const GuestRun started = m_lab.run(
            1, QStringLiteral("setsid smc_synopt %1 -- %2 > /tmp/serve-%1.out 2>&1 < /dev/null &\n"
                              "for i in $(seq 100); do grep -q listening /tmp/serve-%1.out && break; sleep 0.2; done\n"
                              "cat /tmp/serve-%1.out")
                   .arg(port)
                   .arg(serve));
        QVERIFY2(started.ok && started.output.contains(QLatin1String("listening")),
                 qPrintable(started.output + started.error));
        const QJsonObject before = m_lab.kernelStats(0);
        const GuestRun load = m_lab.run(0,
                                        QStringLiteral("smclab load tcp_bw --transport ksmc --connect %1:%2 -m 64K "
                                                       "-t 2 --verify 2>&1")
                                            .arg(VmLabSession::linkAddress(1))
                                            .arg(port),
                                        120'000);
        m_lab.run(1, QStringLiteral("pkill -f '%1'").arg(serve));  // smc_synopt detaches when it ends
        QVERIFY2(load.ok && load.exitCode == 0 && load.output.contains(QLatin1String("bw")),
                 qPrintable(load.output + load.error));
        const QJsonObject after = m_lab.kernelStats(0);
        QCOMPARE(v2Successes(after, "client_v2_success") - v2Successes(before, "client_v2_success"), 1);
        QCOMPARE(smclab::testing::totalFallbacks(after), smclab::testing::totalFallbacks(before));
    }

private:
    static qint64 v2Successes(const QJsonObject& stats, const char* name) {
        return static_cast<qint64>(stats.value(QLatin1String("smcr")).toObject().value(QLatin1String(name)).toDouble());
    }
};

QTEST_GUILESS_MAIN(TestVmLabInterop)
#include "test_vmlab_interop.moc"
