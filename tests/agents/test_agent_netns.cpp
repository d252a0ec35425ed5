// Two smclab-agents in two network namespaces joined by a veth pair, driven
// from the root namespace (each namespace also has a veth to the root one
// for the control connection). tcp_bw runs between the namespaces over the
// A-B link, a live tcp_autocorking change inside namespace A is applied and
// put back at the end of the run, and agent A refuses a peer outside its
// --allow-peer list. Addresses are private (10.x) and exist only inside
// these namespaces; names carry the pid so concurrent runs never collide.
// Then every workload (tcp_bw, tcp_lat, http, kv) crosses the pair over tcp
// and over smcr (sim).
// Exits 77 (skipped) where namespaces cannot be made (not root, no `ip`).
#include <cstdio>

#include <unistd.h>

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include "agent_harness.h"

using namespace smclab;
using namespace smclab::protocol;
using namespace smclab::test;

namespace {

bool runIp(const QStringList& args, QString* output = nullptr) {
    QProcess ip;
    ip.start("ip", args);
    if (!ip.waitForFinished(10'000)) return false;
    if (output != nullptr) *output = QString::fromUtf8(ip.readAllStandardOutput() + ip.readAllStandardError());
    return ip.exitStatus() == QProcess::NormalExit && ip.exitCode() == 0;
}

// The lab: namespaces A and B, veths root<->A, root<->B (control), A<->B (traffic).
class Netns {
public:
    Netns() {
        const int pid = static_cast<int>(::getpid());
        m_suffix = QString::number(pid);
        nsA = "smcl-" + m_suffix + "-a";
        nsB = "smcl-" + m_suffix + "-b";
        // A /28 per pid keeps concurrent runs' root-namespace routes apart.
        const QString base = QString("10.%1.%2.").arg(100 + (pid >> 8) % 100).arg(pid & 0xff);
        rootA = base + "1";
        ctlA = base + "2";
        rootB = base + "5";
        ctlB = base + "6";
        dataA = base + "9";
        dataB = base + "10";
        m_prefix = base;
    }
    ~Netns() { destroy(); }

    bool create(QString* why) {
        destroy();
        const QString vA = "vr" + m_suffix + "a";
        const QString vB = "vr" + m_suffix + "b";
        const QString vX = "vx" + m_suffix;
        const QList<QStringList> steps{
            {"netns", "add", nsA},
            {"netns", "add", nsB},
            {"link", "add", vA, "type", "veth", "peer", "name", "ctl0", "netns", nsA},
            {"link", "add", vB, "type", "veth", "peer", "name", "ctl0", "netns", nsB},
            {"link", "add", vX, "netns", nsA, "type", "veth", "peer", "name", "data0", "netns", nsB},
            {"addr", "add", rootA + "/30", "dev", vA},
            {"addr", "add", rootB + "/30", "dev", vB},
            {"link", "set", vA, "up"},
            {"link", "set", vB, "up"},
            {"-n", nsA, "link", "set", vX, "name", "data0"},
            {"-n", nsA, "addr", "add", ctlA + "/30", "dev", "ctl0"},
            {"-n", nsA, "addr", "add", dataA + "/30", "dev", "data0"},
            {"-n", nsB, "addr", "add", ctlB + "/30", "dev", "ctl0"},
            {"-n", nsB, "addr", "add", dataB + "/30", "dev", "data0"},
        };
        m_created = true;
        for (const QStringList& step : steps) {
            QString output;
            if (!runIp(step, &output)) {
                *why = "ip " + step.join(' ') + ": " + output.trimmed();
                return false;
            }
        }
        for (const QString& ns : {nsA, nsB}) {
            for (const char* dev : {"lo", "ctl0", "data0"}) {
                QString output;
                if (!runIp({"-n", ns, "link", "set", dev, "up"}, &output)) {
                    *why = output;
                    return false;
                }
            }
        }
        return true;
    }

    // Always run, even after a failed create: deleting a namespace removes its veths.
    void destroy() {
        if (!m_created) return;
        runIp({"netns", "del", nsA});
        runIp({"netns", "del", nsB});
        m_created = false;
    }

    QString nsA, nsB, rootA, ctlA, rootB, ctlB, dataA, dataB;

    QString dataSubnet() const { return m_prefix + "8/30"; }

private:
    QString m_suffix;
    QString m_prefix;
    bool m_created = false;
};

QString readSysctlIn(const QString& ns, const QString& path) {
    QProcess cat;
    cat.start("ip", {"netns", "exec", ns, "cat", path});
    cat.waitForFinished(5000);
    return QString::fromUtf8(cat.readAllStandardOutput()).trimmed();
}

}  // namespace

class TestAgentNetns : public QObject {
    Q_OBJECT

private:
    Netns m_lab;
    TokenFile m_token;
    AgentProcess m_agentA;
    AgentProcess m_agentB;

private slots:
    void initTestCase() {
        QString why;
        QVERIFY2(m_lab.create(&why), qPrintable(why));
        QVERIFY2(m_agentA.start(m_token, {"--allow-peer", m_lab.dataSubnet()}, m_lab.ctlA + ":0",
                                {"ip", "netns", "exec", m_lab.nsA}),
                 qPrintable(m_agentA.error()));
        QVERIFY2(m_agentB.start(m_token, {}, m_lab.ctlB + ":0", {"ip", "netns", "exec", m_lab.nsB}),
                 qPrintable(m_agentB.error()));
    }

    void tcpBwBetweenNamespaces() {
        TestController a;
        TestController b;
        QVERIFY2(a.connectTo(m_lab.ctlA, m_agentA.port(), m_token.token()),
                 qPrintable(a.connectionFailures.join("; ")));
        QVERIFY2(b.connectTo(m_lab.ctlB, m_agentB.port(), m_token.token()),
                 qPrintable(b.connectionFailures.join("; ")));
        // Each agent sees its own namespace: B's NICs include data0 with B's data address.
        bool bHasDataAddress = false;
        for (const NicInfo& nic : b.client.hello().capabilities.nics) {
            bHasDataAddress |= nic.name == "data0" && nic.addresses.contains(m_lab.dataB + "/30");
        }
        QVERIFY2(bHasDataAddress, "agent B reports its own namespace's NICs");

        StartRun server = serverRun("ns-s", "tcp_bw", 20'000, {{"max_tests", 1}});
        server.listen.address = QHostAddress(m_lab.dataB);
        QCOMPARE(b.startRun(server).value("type").toString(), QString("run_accepted"));
        const auto ready = b.waitForReady("ns-s");
        QVERIFY(ready);
        QCOMPARE(ready->address, m_lab.dataB);

        // A peer outside A's --allow-peer (B's control address) is refused.
        const QJsonObject refused = a.startRun(clientRun("ns-bad", "tcp_bw", m_lab.ctlB, ready->port, 500));
        QCOMPARE(refused.value("code").toString(), QString("peer_not_allowed"));
        QCOMPARE(refused.value("field").toString(), QString("peer"));

        const QString before = readSysctlIn(m_lab.nsA, "/proc/sys/net/ipv4/tcp_autocorking");
        StartRun client = clientRun("ns-c", "tcp_bw", m_lab.dataB, ready->port, 1500, {{"msg_size", 1024}});
        client.warmupMs = 0;
        QCOMPARE(a.startRun(client).value("type").toString(), QString("run_accepted"));
        QVERIFY(a.waitForSamples("ns-c", 2));
        if (!before.isEmpty()) {
            // Live change inside namespace A only (the sysctl is per network namespace).
            const int flipped = before == "1" ? 0 : 1;
            const QJsonObject ack = a.request([&](auto h) {
                return a.client.setSettings("ns-c", {{"tcp_autocorking", flipped}}, h);
            });
            QCOMPARE(ack.value("type").toString(), QString("settings_applied"));
            QVERIFY(ack.value("at_ms").toInteger() > 0);
            QCOMPARE(readSysctlIn(m_lab.nsA, "/proc/sys/net/ipv4/tcp_autocorking"), QString::number(flipped));
        }
        const auto clientResult = a.waitForResult("ns-c");
        const auto serverResult = b.waitForResult("ns-s");
        QVERIFY(clientResult && serverResult);
        QCOMPARE(runStateName(clientResult->state), QString("finished"));
        QVERIFY2(clientResult->summary.value("bw_MBps").toDouble() > 1.0,
                 qPrintable(QJsonDocument(clientResult->summary).toJson()));
        QVERIFY(serverResult->summary.value("tests").toArray().size() == 1);
        if (!before.isEmpty()) {
            QCOMPARE(clientResult->settings.value("tcp_autocorking").toString(), before == "1" ? "0" : "1");
            QCOMPARE(readSysctlIn(m_lab.nsA, "/proc/sys/net/ipv4/tcp_autocorking"), before);
        }
        QVERIFY(a.samplesOf("ns-c").size() >= 3);
    }

    // Every workload crosses the veth pair over tcp and over smcr (sim: the
    // engine's CLC handshake runs over the namespaces' TCP, the sim RNIC is
    // shared memory both namespaces see).
    void eachWorkloadBetweenNamespaces_data() {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("transport");
        for (const char* transport : {"tcp", "smcr"}) {
            for (const char* workload : {"tcp_bw", "tcp_lat", "http", "kv"}) {
                QTest::newRow(qPrintable(QString("%1/%2").arg(workload, transport))) << workload << transport;
            }
        }
    }

    void eachWorkloadBetweenNamespaces() {
        QFETCH(QString, workload);
        QFETCH(QString, transport);
        TestController a;
        TestController b;
        QVERIFY(a.connectTo(m_lab.ctlA, m_agentA.port(), m_token.token()));
        QVERIFY(b.connectTo(m_lab.ctlB, m_agentB.port(), m_token.token()));
        QVERIFY2(b.client.hello().capabilities.transportAvailable(transport),
                 qPrintable(transport + " is built in but the agent does not offer it"));
        const QString id = QString("%1-%2").arg(workload, transport).replace('_', '-');
        const bool tcpTest = workload.startsWith("tcp_");
        StartRun server =
            serverRun(id + "-s", workload, 20'000, tcpTest ? QJsonObject{{"max_tests", 1}} : QJsonObject{});
        server.listen.address = QHostAddress(m_lab.dataB);
        QJsonObject clientParams;
        if (workload == "http") clientParams = {{"threads", 1}, {"connections", 2}};
        if (workload == "kv") clientParams = {{"clients", 2}, {"requests", 1000}, {"tests", QJsonArray{"set", "get"}}};
        if (transport == "smcr") {
            server.transport = "smcr";
            server.transportOptions = {{"fabric", "sim"}};
        }
        QCOMPARE(b.startRun(server).value("type").toString(), QString("run_accepted"));
        const auto ready = b.waitForReady(id + "-s");
        QVERIFY(ready);
        StartRun client =
            clientRun(id + "-c", workload, m_lab.dataB, ready->port, workload == "kv" ? 10'000 : 600, clientParams);
        if (workload != "kv") client.warmupMs = 0;
        if (transport == "smcr") {
            client.transport = "smcr";
            client.transportOptions = {{"fabric", "sim"}};
        }
        QCOMPARE(a.startRun(client).value("type").toString(), QString("run_accepted"));
        const auto clientResult = a.waitForResult(id + "-c");
        QVERIFY(clientResult);
        QVERIFY2(runStateName(clientResult->state) == "finished", qPrintable(clientResult->error));
        if (!tcpTest) (void)b.request([&](auto h) { return b.client.stopRun(id + "-s", h); });
        const auto serverResult = b.waitForResult(id + "-s");
        QVERIFY(serverResult);
        const QJsonObject& sum = clientResult->summary;
        if (workload == "tcp_bw") {
            QVERIFY2(sum.value("bw_MBps").toDouble() > 0, qPrintable(QJsonDocument(sum).toJson()));
        } else if (workload == "tcp_lat") {
            QVERIFY(sum.value("latency_us").toDouble() > 0);
            QVERIFY(sum.value("p99_us").toDouble() >= sum.value("p50_us").toDouble());
        } else if (workload == "http") {
            QVERIFY(sum.value("requests").toDouble() > 0);
            QCOMPARE(sum.value("errors").toObject().value("status").toDouble(), 0.0);
            QVERIFY(serverResult->summary.value("requests").toDouble() >= sum.value("requests").toDouble());
        } else {
            QCOMPARE(sum.value("tests").toArray().size(), 2);
            QVERIFY(sum.value("ops").toDouble() >= 2000.0);
        }
    }

    void cleanupTestCase() {
        QCOMPARE(m_agentA.terminate(), 0);
        QCOMPARE(m_agentB.terminate(), 0);
        m_lab.destroy();
        QString output;
        runIp({"netns", "list"}, &output);
        QVERIFY2(!output.contains(m_lab.nsA) && !output.contains(m_lab.nsB), "namespaces removed");
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (::geteuid() != 0) {
        std::printf("SKIP: network namespaces need root (ip netns add); not running as root\n");
        return 77;
    }
    if (QStandardPaths::findExecutable("ip").isEmpty()) {
        std::printf("SKIP: the 'ip' tool (iproute2) is not installed\n");
        return 77;
    }
    const QString probe = QString("smcl-%1-probe").arg(::getpid());
    QString output;
    if (!runIp({"netns", "add", probe}, &output)) {
        std::printf("SKIP: cannot create a network namespace here: %s\n", qPrintable(output.trimmed()));
        return 77;
    }
    runIp({"netns", "del", probe});
    TestAgentNetns test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_agent_netns.moc"
