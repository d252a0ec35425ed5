// The real SMC-R in the lab: kernel SMC-R between two VM lab hosts, over
// soft-RoCE, judged by the kernels' own counters; and rdma-core verbs over
// rxe under libsmcr's fabric conformance suite.
#include <csignal>

#include <QFile>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "protocol/agent_client.h"
#include "vm_hosts.h"
#include "vmlab_session.h"

using smclab::AgentClient;
using smclab::AgentConnectOptions;
using smclab::testing::GuestRun;
using smclab::testing::Outcome;
using smclab::testing::runSmclab;
using smclab::testing::VmLabSession;
using smclab::testing::writeText;
namespace lab = smclab::lab;
namespace protocol = smclab::protocol;

namespace {

constexpr quint32 kPeerNoSmc = 0x03010000;  // SMC_CLC_DECL_PEERNOSMC: the peer's SYN had no SMC option

// A receiver that hashes everything until EOF and sends the digest back;
// a sender of random bytes that prints its own digest and the echoed one.
const char kReceiver[] = R"(import hashlib, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
h = hashlib.sha256()
n = 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    h.update(b)
    n += len(b)
print("received", n, h.hexdigest(), flush=True)
c.sendall(h.hexdigest().encode())
c.close()
)";

const char kSender[] = R"(import hashlib, os, socket, sys
data = os.urandom(int(sys.argv[3]))
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.sendall(data)
s.shutdown(socket.SHUT_WR)
echo = b""
while True:
    b = s.recv(256)
    if not b:
        break
    echo += b
print("sent", len(data), hashlib.sha256(data).hexdigest(), echo.decode(), flush=True)
)";

QString writeScripts() {
    return QStringLiteral("cat > /tmp/rx.py <<'PY'\n%1PY\ncat > /tmp/tx.py <<'PY'\n%2PY\n")
        .arg(QLatin1String(kReceiver), QLatin1String(kSender));
}

qint64 counter(const QJsonObject& stats, const char* tech, const char* name) {
    return static_cast<qint64>(stats.value(QLatin1String(tech)).toObject().value(QLatin1String(name)).toDouble());
}

}  // namespace

class TestVmLabKernel : public QObject {
    Q_OBJECT

private:
    VmLabSession m_lab;
    int m_nextPort = 5100;

    // Starts the receiver on vm2 (under ksmc_run when `smc`) and waits until it listens.
    bool startReceiver(int port, bool smc) {
        const QString wrapper = smc ? QStringLiteral("ksmc_run ") : QString();
        const GuestRun started =
            m_lab.run(1, writeScripts() +
                             QStringLiteral("setsid %1python3 /tmp/rx.py %2 %3 > /tmp/rx-%3.out 2>&1 < /dev/null &\n")
                                 .arg(wrapper, VmLabSession::linkAddress(1))
                                 .arg(port));
        if (!started.ok || started.exitCode != 0) return false;
        for (int i = 0; i < 150; ++i) {
            const GuestRun out = m_lab.run(1, QStringLiteral("cat /tmp/rx-%1.out").arg(port));
            if (out.output.contains(QLatin1String("listening"))) return true;
            if (out.output.contains(QLatin1String("Error"))) {
                qWarning("receiver: %s", qPrintable(out.output));
                return false;
            }
            QTest::qWait(200);
        }
        return false;
    }

    // Sends `bytes` random bytes from vm1; returns "sent N DIGEST ECHO" and vm2's "received N DIGEST".
    QPair<QString, QString> stream(int port, qint64 bytes, bool smc) {
        const QString wrapper = smc ? QStringLiteral("ksmc_run ") : QString();
        const GuestRun sent = m_lab.run(0,
                                        writeScripts() + QStringLiteral("%1python3 /tmp/tx.py %2 %3 %4")
                                                             .arg(wrapper, VmLabSession::linkAddress(1))
                                                             .arg(port)
                                                             .arg(bytes),
                                        300'000);
        QString received;
        for (int i = 0; i < 100 && !received.contains(QLatin1String("received")); ++i) {
            received = m_lab.run(1, QStringLiteral("cat /tmp/rx-%1.out").arg(port)).output;
            if (!received.contains(QLatin1String("received"))) QTest::qWait(200);
        }
        return {sent.ok ? sent.output : sent.error, received};
    }

    static void checkSameBytes(const QString& sent, const QString& received, qint64 bytes) {
        static const QRegularExpression kSent(QStringLiteral("sent (\\d+) ([0-9a-f]{64}) ([0-9a-f]{64})"));
        static const QRegularExpression kReceived(QStringLiteral("received (\\d+) ([0-9a-f]{64})"));
        const auto s = kSent.match(sent);
        const auto r = kReceived.match(received);
        QVERIFY2(s.hasMatch(), qPrintable(QStringLiteral("sender said: ") + sent));
        QVERIFY2(r.hasMatch(), qPrintable(QStringLiteral("receiver said: ") + received));
        QCOMPARE(s.captured(1).toLongLong(), bytes);
        QCOMPARE(r.captured(1).toLongLong(), bytes);
        QCOMPARE(r.captured(2), s.captured(2));  // the receiver hashed what the sender sent
        QCOMPARE(s.captured(3), s.captured(2));  // and the digest came back intact
    }

    // The kernel's SMC-R link groups on host `index` in `role`, as `smclab
    // ksmc linkgroup` lists them: at least one (a group outlives its last
    // connection by minutes), each SMC-Rv2 with one link and the limits the
    // guests were booted with (Max-Links 1; Max-Conns the sysctl, 255 by
    // default, on both kernels: a field read from the wrong attribute shows).
    void checkLinkGroups(int index, const QString& role) {
        bool ok = false;
        const auto groups = m_lab.kernelLinkGroups(index, &ok);
        QVERIFY2(ok, "smclab ksmc linkgroup --json failed");
        const GuestRun conns = m_lab.run(index, QStringLiteral("sysctl -n net.smc.smcr_max_conns_per_lgr"));
        const int maxConns = conns.output.trimmed().toInt();
        QVERIFY2(maxConns >= 16, qPrintable(conns.output + conns.error));
        int inRole = 0;
        for (const QJsonObject& g : groups) {
            if (g[QLatin1String("role")].toString() != role) continue;
            ++inRole;
            const QByteArray shown = QJsonDocument(g).toJson(QJsonDocument::Compact);
            QVERIFY2(g[QLatin1String("smc_version")].toInt() == 2 &&
                         g[QLatin1String("type")].toString() == QLatin1String("SINGLE") &&
                         g[QLatin1String("max_links")].toInt() == 1 &&
                         g[QLatin1String("max_conns")].toInt() == maxConns &&
                         !g[QLatin1String("eid")].toString().isEmpty(),
                     shown.constData());
        }
        QVERIFY2(inRole >= 1, qPrintable(QStringLiteral("no %1 link group on vm%2").arg(role).arg(index + 1)));
    }

private slots:
    void initTestCase() { QVERIFY2(m_lab.open(), qPrintable(m_lab.why())); }

    // What each guest's agent says of its kernel SMC-R in the hello, read
    // from the real kernel's netlink families: the UEID and pnet entries
    // the guest set up at boot (vm up's defaults), and nothing unreadable.
    void helloReportsKernelSmcr() {
        const lab::vm::VmUpOptions defaults;
        for (int index : {0, 1}) {
            const auto hello = m_lab.hello(index);
            QVERIFY2(bool(hello), hello ? "" : hello.error().message.c_str());
            const protocol::KernelSmcrState& k = hello->capabilities.kernelSmcr;
            const QString shown =
                QStringLiteral("%1: ueids [%2] pnet [%3] fallbacks [%4] error '%5'")
                    .arg(m_lab.host(index).host, k.ueids.join(QStringLiteral(", ")), k.pnet.join(QStringLiteral(", ")),
                         k.fallbacks.join(QStringLiteral(", ")), k.error);
            QVERIFY2(k.reported, qPrintable(shown));
            QVERIFY2(k.error.isEmpty(), qPrintable(shown));
            QVERIFY2(k.ueids.contains(defaults.ueid), qPrintable(shown));
            // One line for the PNETID: the kernel dumps its netdev and its
            // RDMA port as two entries. A second link adds eth2 and rxe1.
            const GuestRun devices = m_lab.run(index, QStringLiteral("ls /sys/class/infiniband"));
            QVERIFY2(devices.ok, qPrintable(devices.error));
            const QString tied = devices.output.contains(QLatin1String("rxe1"))
                                     ? QStringLiteral(": eth0, eth2, rxe0 port 1, rxe1 port 1")
                                     : QStringLiteral(": eth0, rxe0 port 1");
            QVERIFY2(k.pnet == QStringList{defaults.pnet + tied}, qPrintable(shown));
        }
    }

    // Tens of MiB of random bytes over AF_SMC sockets in two kernels: the
    // same digest on both ends, an SMC-Rv2 success on each side (client on
    // vm1, server on vm2), no fallback, and the bytes on rxe as RoCEv2.
    void kernelSmcrStreamIsByteExact() {
        constexpr qint64 kBytes = 32LL << 20;
        const QJsonObject clientBefore = m_lab.kernelStats(0);
        const QJsonObject serverBefore = m_lab.kernelStats(1);
        QVERIFY(!clientBefore.isEmpty() && !serverBefore.isEmpty());
        const qint64 packetsBefore = m_lab.rxeCounter(1, QStringLiteral("rcvd_pkts"));
        QVERIFY(packetsBefore >= 0);
        const int port = m_nextPort++;
        QVERIFY(startReceiver(port, true));
        const auto [sent, received] = stream(port, kBytes, true);
        checkSameBytes(sent, received, kBytes);
        if (QTest::currentTestFailed()) return;

        const QJsonObject clientAfter = m_lab.kernelStats(0);
        const QJsonObject serverAfter = m_lab.kernelStats(1);
        checkLinkGroups(0, QStringLiteral("CLNT"));
        checkLinkGroups(1, QStringLiteral("SERV"));
        QCOMPARE(counter(clientAfter, "smcr", "client_v2_success") - counter(clientBefore, "smcr", "client_v2_success"),
                 1);
        QCOMPARE(counter(serverAfter, "smcr", "server_v2_success") - counter(serverBefore, "smcr", "server_v2_success"),
                 1);
        QCOMPARE(smclab::testing::totalFallbacks(clientAfter), smclab::testing::totalFallbacks(clientBefore));
        QCOMPARE(smclab::testing::totalFallbacks(serverAfter), smclab::testing::totalFallbacks(serverBefore));
        QVERIFY(counter(serverAfter, "smcr", "rx_bytes") - counter(serverBefore, "smcr", "rx_bytes") >= kBytes);
        // RDMA writes of at most the path MTU each: at least one RoCEv2
        // packet per 4 KiB arrived at vm2's rxe.
        const qint64 packets = m_lab.rxeCounter(1, QStringLiteral("rcvd_pkts")) - packetsBefore;
        QVERIFY2(packets >= kBytes / 4096, qPrintable(QStringLiteral("rxe0 received %1 packets").arg(packets)));
    }

    // The lab's own workloads over the ksmc transport, every byte checked.
    void workloadsOverKsmcCheckEveryByte() {
        const QJsonObject before = m_lab.kernelStats(1);
        const int port = m_nextPort++;
        const GuestRun serve = m_lab.run(
            1, QStringLiteral("setsid smclab serve tcp --transport ksmc --listen %1:%2 > /tmp/serve-%2.out 2>&1 "
                              "< /dev/null &\n"
                              // A fresh TCG guest took over 2 s to start it.
                              "for i in $(seq 300); do grep -q listening /tmp/serve-%2.out && break; sleep 0.1; done\n"
                              "cat /tmp/serve-%2.out")
                   .arg(VmLabSession::linkAddress(1))
                   .arg(port));
        QVERIFY2(serve.ok && serve.output.contains(QLatin1String("listening")), qPrintable(serve.output + serve.error));
        // Each test with every byte checked, and the figure it prints.
        const struct {
            const char* test;
            const char* size;
            const char* figure;
        } kLoads[] = {{"tcp_bw", "64K", "bw"}, {"tcp_lat", "1", "latency"}};
        for (const auto& load : kLoads) {
            const GuestRun r = m_lab.run(0,
                                         QStringLiteral("smclab load %1 --transport ksmc --connect %2:%3 -m %4 -t 2 "
                                                        "--verify")
                                             .arg(QLatin1String(load.test), VmLabSession::linkAddress(1))
                                             .arg(port)
                                             .arg(QLatin1String(load.size)),
                                         120'000);
            QVERIFY2(r.ok && r.exitCode == 0 && r.output.contains(QLatin1String(load.figure)),
                     qPrintable(r.output + r.error));
        }
        m_lab.run(1, QStringLiteral("pkill -f 'smclab serve tcp --transport ksmc --listen %1:%2'")
                         .arg(VmLabSession::linkAddress(1))
                         .arg(port));
        const QJsonObject after = m_lab.kernelStats(1);
        QVERIFY(counter(after, "smcr", "server_v2_success") - counter(before, "smcr", "server_v2_success") >= 2);
        QCOMPARE(smclab::testing::totalFallbacks(after), smclab::testing::totalFallbacks(before));
    }

    // An AF_SMC client against a plain TCP server: the kernel falls back
    // (PEERNOSMC, counted with its reason), and every byte still arrives.
    void plainTcpPeerFallsBackByteExact() {
        constexpr qint64 kBytes = 4LL << 20;
        const QJsonObject before = m_lab.kernelStats(0);
        const int port = m_nextPort++;
        QVERIFY(startReceiver(port, false));
        const auto [sent, received] = stream(port, kBytes, true);
        checkSameBytes(sent, received, kBytes);
        const QJsonObject after = m_lab.kernelStats(0);
        QCOMPARE(smclab::testing::fallbackCount(after, QStringLiteral("client"), kPeerNoSmc) -
                     smclab::testing::fallbackCount(before, QStringLiteral("client"), kPeerNoSmc),
                 1);
        QCOMPARE(counter(after, "smcr", "client_v2_success"), counter(before, "smcr", "client_v2_success"));
    }

    // One campaign, three real transports between the two kernels: kernel
    // TCP, the kernel's SMC-R (judged by its own counters: a fallback would
    // mark the cell and end the run with status 3) and libsmcr on rdma-core
    // verbs over rxe; the tables say what each column crossed, and that the
    // hosts' timings are emulated; a kernel sysctl is a column's setting.
    void threeTransportCampaign() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString campaign = dir.filePath(QStringLiteral("three.json"));
        QVERIFY(writeText(campaign, QStringLiteral(R"({"name": "vm-three-transports",
            "workloads": ["tcp_bw", "tcp_lat"],
            "columns": [{"label": "TCP", "transport": "tcp"},
                        {"label": "kernel SMC-R", "transport": "ksmc"},
                        {"label": "ksmc no autocork", "transport": "ksmc", "settings": {"autocorking_size": 0}},
                        {"label": "libsmcr verbs", "transport": "smcr"}],
            "sizes": [64, 65536], "duration": "1s", "transportOptions": {"fabric": "verbs"}})")));
        const Outcome run = runSmclab(
            {QStringLiteral("run"), campaign, QStringLiteral("--lab"), qEnvironmentVariable("SMCLAB_VMLAB_FILE"),
             QStringLiteral("--db"), dir.filePath(QStringLiteral("results.db"))},
            300'000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        for (const char* label : {"TCP", "kernel SMC-R", "libsmcr verbs"})
            QVERIFY2(run.out.contains(QLatin1String(label)), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("kernel SMC-R over the hosts' RDMA devices")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("SMC-R over the verbs fabric")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("QEMU TCG: emulated timings")) ||
                     run.out.contains(QLatin1String("QEMU KVM")),
                 qPrintable(run.out));
        QVERIFY2(run.err.contains(QLatin1String("16 cells ran, 0 failed")), qPrintable(run.err));
        // A kernel sysctl as a column's setting, under its kernel name, in the
        // settings snapshot stored with the runs (the agent set and restored it).
        const Outcome shown = runSmclab({QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"),
                                         dir.filePath(QStringLiteral("results.db"))},
                                        60'000);
        static const QRegularExpression kSetting(QStringLiteral("autocorking_size +- +65536 +0 "));
        QVERIFY2(kSetting.match(shown.out).hasMatch(), qPrintable(shown.out + shown.err));
    }

    // A live change of a net.smc sysctl on a ksmc run, sent as the Run page
    // sends it (set_settings on the run): the guest's sysctl takes the value
    // while the run goes, the agent acknowledges it, and puts the old value
    // back when the run ends.
    void liveSysctlChangeOnKsmcRun() {
        auto sysctl = [this] {
            return m_lab.run(1, QStringLiteral("cat /proc/sys/net/smc/autocorking_size")).output.trimmed();
        };
        const QString before = sysctl();
        QVERIFY2(!before.isEmpty(), "no net.smc.autocorking_size in the guest");
        const QString wanted = before == QLatin1String("4096") ? QStringLiteral("8192") : QStringLiteral("4096");
        const lab::LabHost& h = m_lab.host(1);
        QFile tokenFile(h.tokenFile);
        QVERIFY(tokenFile.open(QIODevice::ReadOnly));
        AgentConnectOptions options;
        options.token = QString::fromUtf8(tokenFile.readAll()).trimmed();
        AgentClient client;
        QSignalSpy ready(&client, &AgentClient::helloReceived);
        client.connectToAgent(h.dialHost(), h.agentPort, options);
        QVERIFY(ready.wait(20'000));
        protocol::StartRun start;
        start.runId = QStringLiteral("vm-live-sysctl");
        start.role = smcr::Side::server;
        start.workload = QStringLiteral("tcp_bw");
        start.transport = QStringLiteral("ksmc");
        start.listen = {QHostAddress(VmLabSession::linkAddress(1)), static_cast<quint16>(m_nextPort++)};
        start.durationMs = 60'000;
        QString runId;
        QString refused;
        client.startRun(start, [&](const QJsonObject& reply) {
            runId = reply.value(QStringLiteral("run_id")).toString();
            if (runId.isEmpty()) refused = QString::fromUtf8(QJsonDocument(reply).toJson(QJsonDocument::Compact));
        });
        QVERIFY2(QTest::qWaitFor([&] { return !runId.isEmpty() || !refused.isEmpty(); }, 30'000), "no run_accepted");
        QVERIFY2(refused.isEmpty(), qPrintable(refused));
        QJsonObject applied;
        client.setSettings(runId, QJsonObject{{QStringLiteral("autocorking_size"), wanted.toInt()}},
                           [&](const QJsonObject& reply) { applied = reply; });
        QVERIFY(QTest::qWaitFor([&] { return !applied.isEmpty(); }, 30'000));
        QVERIFY2(applied.value(QStringLiteral("type")).toString() == QLatin1String("settings_applied"),
                 qPrintable(QString::fromUtf8(QJsonDocument(applied).toJson(QJsonDocument::Compact))));
        QCOMPARE(sysctl(), wanted);
        QSignalSpy result(&client, &AgentClient::resultReceived);
        client.stopRun(runId);
        QVERIFY(result.wait(60'000));
        QCOMPARE(sysctl(), before);
    }

    // libsmcr's fabric conformance suite on rdma-core verbs over rxe.
    void verbsConformanceOverRxe() {
        const QString binary = qEnvironmentVariable("SMCLAB_TEST_FABRIC_VERBS");
        QVERIFY(!binary.isEmpty());
        const GuestRun r = m_lab.run(
            0, QStringLiteral("SMCLAB_FABRIC_BACKEND=verbs %1 -maxwarnings 0 2>&1 | tail -n 40").arg(binary), 480'000);
        // The suite drives rxe's error paths on purpose (remote access, RNR
        // and retry exhaustion), and 6.12's rxe can corrupt the guest's
        // memory there: a double fault in the slab allocator seconds later
        // took the host down in a later test. `vm up` boots both hosts
        // afresh (new tokens in the lab file) before anything else runs.
        const Outcome up =
            runSmclab({QStringLiteral("lab"), QStringLiteral("vm"), QStringLiteral("up"), QStringLiteral("--lab"),
                       qEnvironmentVariable("SMCLAB_VMLAB_FILE"), QStringLiteral("--timeout"), QStringLiteral("300")},
                      400'000);
        QVERIFY2(up.exitCode == 0, qPrintable(up.out + up.err));
        QVERIFY2(r.ok, qPrintable(r.error));
        static const QRegularExpression kTotals(QStringLiteral("Totals: (\\d+) passed, (\\d+) failed, (\\d+) skipped"));
        const auto m = kTotals.match(r.output);
        QVERIFY2(m.hasMatch(), qPrintable(r.output));
        QVERIFY2(m.captured(2).toInt() == 0, qPrintable(r.output));
        QVERIFY2(m.captured(1).toInt() >= 10, qPrintable(r.output));
    }

    // Last, since it kills a host: a VM lab host that dies mid-campaign
    // stops the campaign with an error naming it, nothing hangs, the runs
    // stored so far stay, `vm status` says which host is down, and after
    // `vm up` the campaign resumes to its end.
    void vmKilledMidCampaignResumes() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString labFile = qEnvironmentVariable("SMCLAB_VMLAB_FILE");
        const QString campaign = dir.filePath(QStringLiteral("loss.json"));
        const QString db = dir.filePath(QStringLiteral("results.db"));
        QVERIFY(writeText(campaign, QStringLiteral(R"({"name": "vm-loss", "workloads": ["tcp_bw"],
            "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [64, 1024, 4096, 16384, 65536],
            "duration": "1s", "onAgentLoss": "pause"})")));
        QProcess run;
        run.start(qEnvironmentVariable("SMCLAB_BIN_DIR") + QStringLiteral("/smclab"),
                  {QStringLiteral("run"), campaign, QStringLiteral("--lab"), labFile, QStringLiteral("--db"), db});
        QString err;
        QVERIFY(QTest::qWaitFor(
            [&] {
                err += QString::fromUtf8(run.readAllStandardError());
                return err.contains(QLatin1String("cell 2/5"));
            },
            120'000));
        const qint64 pid = smclab::lab::vm::vmState(m_lab.host(1)).pid;
        QVERIFY(pid > 0);
        QCOMPARE(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
        QVERIFY2(run.waitForFinished(120'000), "the campaign hung after its server's VM died");
        err += QString::fromUtf8(run.readAllStandardError());
        QCOMPARE(run.exitCode(), 1);
        QVERIFY2(err.contains(QLatin1String("vm2 (127.0.0.1:")), qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("--resume 1")), qPrintable(err));

        const Outcome status = runSmclab(
            {QStringLiteral("lab"), QStringLiteral("vm"), QStringLiteral("status"), QStringLiteral("--lab"), labFile},
            60'000);
        QCOMPARE(status.exitCode, 1);
        QVERIFY2(status.out.contains(QLatin1String("vm2: stopped")), qPrintable(status.out));
        const GuestRun gone = m_lab.run(1, QStringLiteral("true"));
        QVERIFY(!gone.ok && gone.error.contains(QLatin1String("not running")));

        const Outcome up =
            runSmclab({QStringLiteral("lab"), QStringLiteral("vm"), QStringLiteral("up"), QStringLiteral("--lab"),
                       labFile, QStringLiteral("--timeout"), QStringLiteral("300")},
                      400'000);
        QVERIFY2(up.exitCode == 0, qPrintable(up.out + up.err));
        const Outcome resumed = runSmclab({QStringLiteral("run"), QStringLiteral("--resume"), QStringLiteral("1"),
                                           QStringLiteral("--lab"), labFile, QStringLiteral("--db"), db},
                                          300'000);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.out + resumed.err));
        const Outcome shown =
            runSmclab({QStringLiteral("show"), QStringLiteral("1"), QStringLiteral("--db"), db}, 60'000);
        QVERIFY2(shown.exitCode == 0, qPrintable(shown.out + shown.err));
    }
};

QTEST_GUILESS_MAIN(TestVmLabKernel)
#include "test_vmlab_kernel.moc"
