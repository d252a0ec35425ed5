// The local lab's wire: a server namespace behind a veth shaped to a link
// model. TCP through it never exceeds the model's rate, the recorded wire is
// what tc shows on both ends, the namespace goes with the object, the
// loopback fall-back says why, and the local lab puts its server agent
// behind the wire. Exits 77 (skipped) where namespaces cannot be made (not
// root, no `ip`); CI runs as root.
#include <algorithm>
#include <cerrno>
#include <csignal>

#include <unistd.h>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include "local_lab.h"
#include "wire.h"
#include "wire_bench.h"

using namespace smclab::locallab;

namespace {

QString run(const QString& program, const QStringList& args, int timeoutMs = 20'000) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    return QString::fromLocal8Bit(p.readAll());
}

QString binary(const char* name) {
    return qEnvironmentVariable("SMCLAB_BIN_DIR") + QLatin1Char('/') + name;
}

// A model with a rate low enough that this host's TCP over a veth exceeds it by far.
smcr::fabric::sim::LinkModel slowModel() {
    smcr::fabric::sim::LinkModel m;
    m.name = "test-400mbit";
    m.bandwidthGbps = 0.4;  // 50 MB/s
    m.wireLatencyNs = 0;
    m.mtu = smcr::fabric::PathMtu::mtu1024;
    return m;
}

}  // namespace

class TestLocalWire : public QObject {
    Q_OBJECT
private slots:
    void shapedWireBoundsTcpRate() {
        auto wire = NamespaceWire::create(slowModel());
        QVERIFY2(wire.ok(), wire.ok() ? "" : wire.error().message.c_str());
        NamespaceWire& w = *wire.value();
        QCOMPARE(w.record().tcpPath, QStringLiteral("veth between network namespaces"));
        QCOMPARE(w.record().tcpRate, QStringLiteral("tbf 400mbit on both veth ends"));
        QCOMPARE(w.record().ethernetMtu, kVethMtu);
        QVERIFY(w.record().note.contains(QStringLiteral("test-400mbit")));
        // The lab's own probe crossed the shaped veth: above zero, within the rate.
        QVERIFY2(w.record().tcpCapacityGbps > 0, qPrintable(w.record().tcpCapacity));
        QVERIFY2(w.record().tcpCapacityGbps <= 0.4 * 1.10, qPrintable(w.record().tcpCapacity));
        QVERIFY(w.record().note.contains(w.record().tcpCapacity));
        // The recorded wire is what the kernel has on both ends.
        const QString rootQdisc = run("tc", {"qdisc", "show"});
        const QString nsQdisc = run("tc", {"-n", w.serverNamespace(), "qdisc", "show"});
        QVERIFY2(rootQdisc.contains(QStringLiteral("rate 400Mbit")), qPrintable(rootQdisc));
        QVERIFY2(nsQdisc.contains(QStringLiteral("rate 400Mbit")), qPrintable(nsQdisc));
        QVERIFY2(nsQdisc.contains(QStringLiteral("mtu 65535")) ||
                     run("ip", {"-n", w.serverNamespace(), "link"}).contains("mtu 65535"),
                 "the veth carries loopback's order of MTU");

        // A TCP stream from here to a server in the namespace, for 1 s.
        QProcess server;
        server.setProgram("ip");
        server.setArguments({"netns", "exec", w.serverNamespace(), binary("smclab"), "serve", "tcp", "--listen",
                             w.serverAddress() + ":0", "--max-tests", "1"});
        server.start();
        QVERIFY(server.waitForStarted());
        QString port;
        for (int i = 0; i < 100 && port.isEmpty(); ++i) {
            server.waitForReadyRead(100);
            const QString line = QString::fromLocal8Bit(server.readAllStandardOutput());
            const int at = line.indexOf(QStringLiteral("listening on "));
            // "listening on ADDR:PORT (transport tcp)"
            if (at >= 0) port = line.mid(at + 13).section(QLatin1Char(' '), 0, 0).section(QLatin1Char(':'), -1);
        }
        QVERIFY2(!port.isEmpty(), "the server in the namespace printed its port");
        const QString out = run(binary("smclab"), {"load", "tcp_bw", "--connect", w.serverAddress() + ":" + port, "-m",
                                                   "64K", "-t", "1", "--json"});
        if (!server.waitForFinished(10'000)) server.kill();
        server.waitForFinished();
        const QJsonObject result = QJsonDocument::fromJson(out.toUtf8()).object();
        const double mbps = result.value("summary").toObject().value("bw_MBps").toDouble();
        QVERIFY2(mbps > 1, qPrintable(out));
        // 50 MB/s is the model's rate; tbf's bucket lets a little more through in the first tick.
        QVERIFY2(mbps <= 50 * 1.10, qPrintable(QStringLiteral("TCP ran at %1 MB/s over a 50 MB/s wire").arg(mbps)));
    }

    void namespaceGoesWithTheWire() {
        QString name;
        {
            auto wire = NamespaceWire::create(slowModel());
            QVERIFY(wire.ok());
            name = wire.value()->serverNamespace();
            QVERIFY(run("ip", {"netns", "list"}).contains(name));
        }
        QVERIFY(!run("ip", {"netns", "list"}).contains(name));
    }

    void netemMissingIsRecorded() {
        // The model's delay: netem where the kernel has it, else said so.
        auto model = linkModel(QStringLiteral("cx4-25g"));
        QVERIFY(model.ok());
        auto wire = NamespaceWire::create(*model);
        QVERIFY(wire.ok());
        const WireRecord& r = wire.value()->record();
        // tbf only where the host moves more than the model's rate.
        QVERIFY2(r.tcpCapacityGbps > 0, qPrintable(r.tcpCapacity));
        if (r.tcpRate.startsWith(QStringLiteral("tbf"))) {
            QCOMPARE(r.tcpRate, QStringLiteral("tbf 25gbit on both veth ends"));
        } else {
            QVERIFY2(r.tcpRate.startsWith(QStringLiteral("unshaped (this host moves less than the model's 25")),
                     qPrintable(r.tcpRate));
        }
        const bool netem = run("tc", {"qdisc", "show"}).contains(QStringLiteral("netem"));
        if (netem) {
            QCOMPARE(r.tcpDelay, QStringLiteral("netem 1250 ns each way"));
        } else {
            QVERIFY2(r.tcpDelay.startsWith(QStringLiteral("not applied")), qPrintable(r.tcpDelay));
        }
        QCOMPARE(WireRecord::fromJson(r.toJson()).note, r.note);
        QCOMPARE(WireRecord::fromJson(r.toJson()).tcpCapacityGbps, r.tcpCapacityGbps);
        // Host-limited exactly when the probe fell below the model's rate
        // (below 90% of it through tbf, whose own shortfall is not the host's).
        const bool shaped = r.tcpRate.startsWith(QStringLiteral("tbf"));
        const bool limited = r.tcpCapacityGbps < (shaped ? 0.9 : 1.0) * model->bandwidthGbps;
        QVERIFY2(r.tcpCapacity.contains(QStringLiteral("HOST-LIMITED")) == limited, qPrintable(r.tcpCapacity));
        QCOMPARE(r.tcpHostLimited, limited);
        QCOMPARE(WireRecord::fromJson(r.toJson()).tcpHostLimited, limited);
    }

    void staleNamespacesGo() {
        // A lab process killed outright leaves its namespace and veth; the
        // next wire removes those of dead processes and keeps a live one's.
        pid_t dead = 0;
        for (pid_t pid = 32767; pid > 300 && dead == 0; --pid) {
            if (::kill(pid, 0) != 0 && errno == ESRCH) dead = pid;
        }
        QVERIFY(dead != 0);
        const QString stale = QStringLiteral("smclab-%1-7").arg(dead);
        const QString live = QStringLiteral("smclab-%1-99").arg(::getpid());
        QVERIFY(run("ip", {"netns", "add", stale}).isEmpty());
        QVERIFY(run("ip", {"netns", "add", live}).isEmpty());
        {
            auto wire = NamespaceWire::create(slowModel());
            QVERIFY(wire.ok());
        }
        const QString left = run("ip", {"netns", "list"});
        (void)run("ip", {"netns", "del", live});
        QVERIFY2(!left.contains(stale), qPrintable(left));
        QVERIFY2(left.contains(live), qPrintable(left));
    }

    void rateAboveTheHostIsNotShaped() {
        // No host moves 10 Tbit/s over a veth: tbf would bind nothing, so
        // there is none, and the record says the host is the limit.
        smcr::fabric::sim::LinkModel model = slowModel();
        model.name = "test-10tbit";
        model.bandwidthGbps = 10'000;
        auto wire = NamespaceWire::create(model);
        QVERIFY2(wire.ok(), wire.ok() ? "" : wire.error().message.c_str());
        const WireRecord& r = wire.value()->record();
        QVERIFY2(r.tcpRate.startsWith(QStringLiteral("unshaped (this host moves less")), qPrintable(r.tcpRate));
        QVERIFY(r.tcpHostLimited);
        QVERIFY2(r.tcpCapacity.startsWith(QStringLiteral("TCP HOST-LIMITED")), qPrintable(r.tcpCapacity));
        const QString rootQdisc = run("tc", {"qdisc", "show", "dev", wire.value()->rootDevice()});
        QVERIFY2(!rootQdisc.contains(QStringLiteral("tbf")), qPrintable(rootQdisc));
    }

    void receiveSteeringIsPinned() {
        // Both ends' receive queues steer to the CPU asked for, so a sender
        // that moves between CPUs cannot reorder the stream.
        VethOptions options;
        options.receiveCpu = 0;
        auto wire = NamespaceWire::create(slowModel(), options);
        QVERIFY(wire.ok());
        const NamespaceWire& w = *wire.value();
        QCOMPARE(w.record().tcpSteering, QStringLiteral("receive steering of both ends on CPU 0"));
        const auto mask = [](QString text) { return text.remove(QLatin1Char(',')).trimmed().toULongLong(nullptr, 16); };
        const QString root = run("cat", {QStringLiteral("/sys/class/net/%1/queues/rx-0/rps_cpus").arg(w.rootDevice())});
        QCOMPARE(mask(root), 1ull);
        const QString server =
            run("ip", {"netns", "exec", w.serverNamespace(), "cat",
                       QStringLiteral("/sys/class/net/%1/queues/rx-0/rps_cpus").arg(w.serverDevice())});
        QCOMPARE(mask(server), 1ull);
    }

    void vethTcpIsTheHostsTcp() {
        // TCP over the lab's veth against loopback at 1 KiB: qperf's and our
        // tcp_bw's medians over interleaved rounds, a ratio (never a time),
        // measured again when a busy host spoilt a round.
        if (QStandardPaths::findExecutable("qperf").isEmpty()) QSKIP("qperf is not installed (Debian package qperf)");
        WireBenchOptions options;
        options.linkModel = QStringLiteral("cx4lx-vf");
        options.sizes = {1024};
        options.repetitions = 3;
        options.smclabProgram = binary("smclab");
        double qperfRatio = 0;
        double oursRatio = 0;
        QString seen;
        for (int attempt = 0; attempt < 3 && (qperfRatio < 0.8 || oursRatio < 0.8); ++attempt) {
            auto result = benchWire(options);
            QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
            const WireBenchRow& row = result->rows.at(0);
            const auto median = [](QList<double> v) {
                std::sort(v.begin(), v.end());
                return v.at(v.size() / 2);
            };
            const auto at = [&](WirePath p) { return median(row.mbps[static_cast<size_t>(p)]); };
            qperfRatio = at(WirePath::qperfVeth) / at(WirePath::qperfLoopback);
            oursRatio = at(WirePath::tcpBwVeth) / at(WirePath::tcpBwLoopback);
            seen += QStringLiteral(" qperf %1/%2, tcp_bw %3/%4 MB/s;")
                        .arg(at(WirePath::qperfVeth))
                        .arg(at(WirePath::qperfLoopback))
                        .arg(at(WirePath::tcpBwVeth))
                        .arg(at(WirePath::tcpBwLoopback));
        }
        QVERIFY2(qperfRatio >= 0.8, qPrintable(QStringLiteral("veth/loopback, 1 KiB:") + seen));
        QVERIFY2(oursRatio >= 0.8, qPrintable(QStringLiteral("veth/loopback, 1 KiB:") + seen));
    }

    void qperfOutputIsRead() {
        QCOMPARE(parseQperfBandwidth(QStringLiteral("tcp_bw:\n    bw  =  1.25 GB/sec\n")).value_or(0), 1250.0);
        QCOMPARE(parseQperfBandwidth(QStringLiteral("tcp_bw:\n    bw  =  240 KB/sec\n")).value_or(0), 0.24);
        QCOMPARE(parseQperfBandwidth(QStringLiteral("    bw  =  142 MB/sec")).value_or(0), 142.0);
        QVERIFY(!parseQperfBandwidth(QStringLiteral("failed to receive port: server not responding")));
    }

    void loopbackRecordSaysWhy() {
        auto shaped = linkModel(QStringLiteral("cx4-25g"));
        QVERIFY(shaped.ok());
        const WireRecord r = loopbackRecord(*shaped, QStringLiteral("network namespaces need root"));
        QCOMPARE(r.tcpPath, QStringLiteral("loopback"));
        QVERIFY(r.note.contains(QStringLiteral("UNSHAPED")));
        QVERIFY(r.note.contains(QStringLiteral("network namespaces need root")));
        auto ideal = linkModel(QStringLiteral("ideal"));
        QVERIFY(ideal.ok());
        QVERIFY(loopbackRecord(*ideal, {}).note.contains(QStringLiteral("both unshaped")));
        QVERIFY(!linkModel(QStringLiteral("no-such-link")).ok());
    }

    void localLabPutsTheServerBehindTheWire() {
        LocalLab lab;
        QVERIFY(lab.start(QStringLiteral("cx4-25g"), 2, binary("smclab-agent")).ok());
        QVERIFY(lab.shaped());
        QVERIFY2(lab.agents().addresses().at(0).startsWith(QStringLiteral("10.")),
                 qPrintable(lab.agents().addresses().at(0)));
        QVERIFY(lab.agents().addresses().at(1).startsWith(QStringLiteral("127.0.0.1:")));
        lab.stop();
        LocalLab ideal;
        QVERIFY(ideal.start(QStringLiteral("ideal"), 2, binary("smclab-agent")).ok());
        QVERIFY(!ideal.shaped());
        QVERIFY(ideal.agents().addresses().at(0).startsWith(QStringLiteral("127.0.0.1:")));
        QCOMPARE(ideal.wire().tcpPath, QStringLiteral("loopback"));
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (::geteuid() != 0) {
        std::printf("SKIP: network namespaces need root (ip netns add); not running as root\n");
        return 77;
    }
    if (QStandardPaths::findExecutable("ip").isEmpty() || QStandardPaths::findExecutable("tc").isEmpty()) {
        std::printf("SKIP: ip and tc (iproute2) are not installed\n");
        return 77;
    }
    TestLocalWire test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_local_wire.moc"
