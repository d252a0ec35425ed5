// Real programs under smcr_run on loopback: a byte-exact echo stream over
// SMC-R (blocking thread-per-connection server and an edge-triggered epoll
// server), the fallbacks in both directions (a preloaded client of a plain
// server, a plain client of a preloaded server) with every byte checked,
// and qperf tcp_bw/tcp_lat with both ends preloaded. The counters files
// prove where the bytes went.
#include <algorithm>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QThread>

#include "preload_harness.h"

namespace {

constexpr const char* kStreamBytes = "3000000";

QString peer() {
    return PreloadHarness::testBin("preload_peer");
}

double num(const QJsonObject& o, const char* key) {
    return o.value(key).toDouble();
}

// The file of the process that made the client connection (the only one with smc_client).
QJsonObject clientStats(const PreloadHarness& h) {
    for (const QJsonObject& o : h.stats()) {
        if (num(o, "smc_client") > 0 || num(o, "tcp_connections") > 0) {
            if (o.value("fallbacks").toObject().keys().filter("server.").isEmpty()) return o;
        }
    }
    return {};
}

// A network namespace joined to this one by a veth pair, as the local lab
// puts its server agent (agents/locallab/wire.h; no shaping here, and made
// with `ip` directly so the preload tests do not depend on the agents).
// Removed with the object. valid() is false where the host does not allow
// it (not root, no ip).
class Netns {
public:
    Netns() {
        if (::geteuid() != 0 || !QFile::exists("/usr/sbin/ip")) return;
        const int pid = static_cast<int>(::getpid());
        m_name = QString("smclab-pl-%1").arg(pid);
        m_root = QString("splv%1r").arg(pid % 1000000);
        const QString inside = QString("splv%1s").arg(pid % 1000000);
        const QString base = QString("10.253.%1.").arg((pid >> 6) & 0xff);
        const int c = (pid & 0x3f) * 4;
        m_rootAddress = base + QString::number(c + 1);
        m_address = base + QString::number(c + 2);
        const QList<QStringList> steps = {
            {"netns", "add", m_name},
            {"link", "add", m_root, "type", "veth", "peer", "name", inside},
            {"link", "set", inside, "netns", m_name},
            {"addr", "add", m_rootAddress + "/30", "dev", m_root},
            {"link", "set", m_root, "up"},
            {"-n", m_name, "addr", "add", m_address + "/30", "dev", inside},
            {"-n", m_name, "link", "set", inside, "up"},
            {"-n", m_name, "link", "set", "lo", "up"},
        };
        for (const QStringList& step : steps) {
            if (QProcess::execute("/usr/sbin/ip", step) != 0) {
                m_error = "ip " + step.join(' ') + " failed";
                return;
            }
        }
        m_valid = true;
    }
    ~Netns() {
        if (m_name.isEmpty()) return;
        QProcess::execute("/usr/sbin/ip", {"link", "del", m_root});
        QProcess::execute("/usr/sbin/ip", {"netns", "del", m_name});
    }
    bool valid() const { return m_valid; }
    QString error() const { return m_error.isEmpty() ? "needs root and ip" : m_error; }
    QString address() const { return m_address; }  // the server's, inside
    // The command that runs a program inside.
    QStringList exec(const QString& program, const QStringList& args) const {
        return QStringList{"netns", "exec", m_name, program} + args;
    }

private:
    QString m_name;
    QString m_root;
    QString m_rootAddress;
    QString m_address;
    QString m_error;
    bool m_valid = false;
};

// Until a plain TCP connect to address:port succeeds (bounded).
bool waitListening(const QString& address, int port) {
    for (int i = 0; i < 200; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        ::inet_pton(AF_INET, address.toLatin1().constData(), &a.sin_addr);
        const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        if (ok) return true;
        QThread::msleep(50);
    }
    return false;
}

}  // namespace

class TestPreloadPrograms : public QObject {
    Q_OBJECT

private:
    void echoOverSmc(const char* serverMode) {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(true, peer(), {serverMode, QString::number(port)}, port, "listening");
        QString out;
        QString err;
        const int rc =
            h.runClient(true, peer(), {"client", QString::number(port), kStreamBytes, "11"}, &out, 30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        QVERIFY2(err.contains("SMC-R"), qPrintable(err));
        const QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_client"), 1.0);
        // Every application byte went over SMC-R (>= 90%: the rule of the issue).
        QVERIFY2(num(c, "smc_tx_bytes") >= 0.9 * num(c, "app_tx_bytes"),
                 qPrintable(QString::number(num(c, "smc_tx_bytes"))));
        QVERIFY(num(c, "app_tx_bytes") >= 3000000);
        QVERIFY(c.value("engine").toObject().value("smcr.rdma_writes").toDouble() > 0);
    }

private slots:
    void echoBlockingServer() { echoOverSmc("serve-threads"); }
    void echoEpollEdgeTriggeredServer() { echoOverSmc("serve-epoll"); }

    // A preloaded client never sends CLC bytes to a plain server: the echo
    // would carry them back and the comparison would fail.
    void preloadedClientPlainServer() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(false, peer(), {"serve-threads", QString::number(port)}, port, "listening");
        QString out;
        QString err;
        QCOMPARE(
            h.runClient(true, peer(), {"client", QString::number(port), kStreamBytes, "12"}, &out, 30000, {}, &err), 0);
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        const QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_connections"), 0.0);
        QCOMPARE(c.value("fallbacks").toObject().value("client.not_libsmcr_peer").toDouble(), 1.0);
        QCOMPARE(num(c, "tcp_tx_bytes"), 3000000.0);
    }

    // A plain client of a preloaded server is taken as TCP at accept, by
    // libsmcr's listener rules: a server fallback with the kernel's reason
    // (PEERNOSMC) in the counters, through the fast path unless
    // lab.fast_fallback is off.
    void plainClientPreloadedServer_data() {
        QTest::addColumn<bool>("fastFallback");
        QTest::newRow("fast_fallback on") << true;
        QTest::newRow("fast_fallback off") << false;
    }
    void plainClientPreloadedServer() {
        QFETCH(bool, fastFallback);
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        const QStringList env{QString("SMCR_SETTINGS=lab.fast_fallback=%1").arg(fastFallback ? 1 : 0)};
        h.startServer(true, peer(), {"serve-epoll", QString::number(port)}, port, "listening", env);
        QString out;
        QCOMPARE(h.runClient(false, peer(), {"client", QString::number(port), kStreamBytes, "13"}, &out), 0);
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        h.stopServers();  // serve-epoll returns on SIGTERM: its counters file
        QJsonObject server;
        for (const QJsonObject& o : h.stats()) {
            if (o.value("program").toString() == "preload_peer") server = o;
        }
        QVERIFY2(!server.isEmpty(), "the server wrote no counters file");
        QCOMPARE(num(server, "tcp_connections"), 1.0);
        QCOMPARE(server.value("fallbacks").toObject().value("server.PEERNOSMC").toDouble(), 1.0);
        const QJsonObject engine = server.value("engine").toObject();
        QCOMPARE(engine.value("smcr.srv_fallbacks").toDouble(), 1.0);
        QCOMPARE(engine.value("smcr.fallback.server.PEERNOSMC").toDouble(), 1.0);
        QCOMPARE(engine.value("smcr.fast_fallback_accepts").toDouble(), fastFallback ? 1.0 : 0.0);
    }

    // exec keeps the preload and its settings (LD_PRELOAD and SMCR_* stay in
    // the environment): a shell that execs the client still speaks SMC-R.
    void execKeepsPreload() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(true, peer(), {"serve-threads", QString::number(port)}, port, "listening");
        QString out;
        QString err;
        const QString command = QString("exec %1 client %2 100000 21").arg(peer()).arg(port);
        QCOMPARE(h.runClient(true, "/bin/sh", {"-c", command}, &out, 20000, {}, &err), 0);
        QCOMPARE(out.trimmed(), QString("ok 100000"));
        QVERIFY2(err.contains("preload_peer]: connect") && err.contains("SMC-R"), qPrintable(err));
    }

    // qperf on a port of its own (not 19765), both ends preloaded, no port
    // list: its server accepts the control connection, forks, closes its
    // copy and waits; the child serves the test over it and over a data
    // connection of its own. Every connection is SMC-R, every byte of the
    // server's children and of the client went over SMC-R (fork is no
    // fallback); SIGALRM ends the tests.
    void qperfBothEnds() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        QVERIFY(port != 19765);
        h.startServer(true, "/usr/bin/qperf", {"-lp", QString::number(port)}, port);
        QString out;
        QString err;
        const int rc = h.runClient(true, "/usr/bin/qperf",
                                   {"-lp", QString::number(port), "-t", "1", "127.0.0.1", "tcp_bw", "tcp_lat"}, &out,
                                   30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QVERIFY2(out.contains("bw") && out.contains("latency"), qPrintable(out));
        h.stopServers();
        // The client: two tests, a control and a data connection each.
        const QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_client"), 4.0);
        QCOMPARE(num(c, "tcp_connections"), 0.0);
        QCOMPARE(num(c, "tcp_tx_bytes") + num(c, "tcp_rx_bytes"), 0.0);
        QVERIFY(num(c, "smc_tx_bytes") > 0);
        // The server's per-test children: each used the control connection
        // its parent accepted (its engine moved with it) and took its data
        // connection over SMC-R; none of their bytes went over TCP.
        int children = 0;
        double bwSmc = 0;
        for (const QJsonObject& o : h.stats()) {
            if (o.value("program").toString() != "qperf" || num(o, "smc_client") > 0) continue;
            const QByteArray text = QJsonDocument(o).toJson();
            // The child that served the harness's readiness probe (a plain
            // TCP connection that sent nothing, answered with qperf's error
            // byte) took nothing over SMC-R.
            if (num(o, "smc_rx_bytes") + num(o, "smc_tx_bytes") == 0) {
                QVERIFY2(num(o, "app_rx_bytes") == 0 && num(o, "smc_server") == 0, text.constData());
                continue;
            }
            ++children;
            // its data connection (the control one is its parent's)
            QVERIFY2(num(o, "smc_server") == 1.0, text.constData());
            QCOMPARE(num(o, "tcp_connections"), 0.0);
            QCOMPARE(num(o, "inherited_io"), 0.0);
            QCOMPARE(num(o, "tcp_rx_bytes") + num(o, "tcp_tx_bytes"), 0.0);
            QVERIFY(num(o, "smc_rx_bytes") > 0);  // the request, read by the child over SMC-R
            bwSmc = std::max(bwSmc, num(o, "smc_rx_bytes"));
        }
        QCOMPARE(children, 2);
        QVERIFY2(bwSmc > 1e6, qPrintable(QString::number(bwSmc)));
    }

    // An accept-fork-close echo server: the parent accepts (the SMC-R
    // handshake runs there), forks and closes its copy at once; the child
    // serves. Byte-exact over SMC-R, and the parent's close sent no close
    // (the client would see an early end of stream or a reset).
    void forkingEchoServer() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        QProcess* server = h.startServer(true, peer(), {"serve-fork", QString::number(port)}, port, "listening");
        const QString fdDir = QString("/proc/%1/fd").arg(server->processId());  // smcr_run execs the program
        constexpr int kRounds = 6;
        qsizetype fdsAfterTwo = 0;
        // Later connections come after earlier children took their engines;
        // the parent lets go of each child's (its fds do not grow with them).
        for (int round = 0; round < kRounds; ++round) {
            if (round == 2) fdsAfterTwo = QDir(fdDir).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size();
            QString out;
            QString err;
            const int rc =
                h.runClient(true, peer(), {"client", QString::number(port), kStreamBytes, "31"}, &out, 30000, {}, &err);
            QVERIFY2(rc == 0, qPrintable(out + err));
            QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        }
        const qsizetype fdsAfterAll = QDir(fdDir).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size();
        QVERIFY2(fdsAfterTwo > 0 && fdsAfterAll <= fdsAfterTwo + 2,
                 qPrintable(QString("server fds %1 after 2 connections, %2 after %3")
                                .arg(fdsAfterTwo)
                                .arg(fdsAfterAll)
                                .arg(kRounds)));
        // Each child exits after its client closes: its counters file is there.
        QTRY_VERIFY_WITH_TIMEOUT(h.stats().size() >= 2 * kRounds, 10000);
        h.stopServers();
        int children = 0;
        for (const QJsonObject& o : h.stats()) {
            if (num(o, "smc_server") > 0) continue;  // the accepting parent, should it have written one
            if (num(o, "smc_client") > 0) {
                QCOMPARE(num(o, "tcp_connections"), 0.0);
                QVERIFY(num(o, "smc_tx_bytes") >= 3000000);
                continue;
            }
            ++children;
            QCOMPARE(num(o, "inherited_io"), 0.0);
            QCOMPARE(num(o, "tcp_rx_bytes") + num(o, "tcp_tx_bytes"), 0.0);
            QCOMPARE(num(o, "smc_rx_bytes"), 3000000.0);
            QCOMPARE(num(o, "smc_tx_bytes"), 3000000.0);
            QVERIFY(o.value("engine").toObject().value("smcr.rdma_writes").toDouble() > 0);
        }
        QCOMPARE(children, kRounds);
    }

    // A client that forks after connect: a tenth of the stream from the
    // process that connected, the rest from its child (the parent closes
    // its copy and waits). The server sees one SMC-R connection, byte-exact.
    void clientForksAfterConnect() {
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(true, peer(), {"serve-threads", QString::number(port)}, port, "listening");
        QString out;
        QString err;
        const int rc = h.runClient(true, peer(), {"client-fork", QString::number(port), kStreamBytes, "41"}, &out,
                                   30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        QVERIFY2(err.contains("claimed the engine"), qPrintable(err));
        double parentSmc = 0;
        double childSmc = 0;
        for (const QJsonObject& o : h.stats()) {
            if (o.value("program").toString() != "preload_peer" || num(o, "smc_server") > 0) continue;
            QCOMPARE(num(o, "tcp_connections"), 0.0);
            QCOMPARE(num(o, "inherited_io"), 0.0);
            if (num(o, "smc_client") == 1) {
                parentSmc = num(o, "smc_tx_bytes");
            } else {
                childSmc = num(o, "smc_tx_bytes");
                QCOMPARE(num(o, "tcp_tx_bytes"), 0.0);
            }
        }
        QCOMPARE(parentSmc, 300000.0);
        QCOMPARE(childSmc, 2700000.0);
    }

    // The local lab's shape: the server in a network namespace behind a
    // veth, the client in this one, the sim fabric (its shared directory)
    // common to both. The server's address is not local to the client, and
    // still the connection is SMC-R, byte-exact (its listener's registry
    // entry names the addresses it answers on). A plain server in the
    // namespace gets plain TCP at once, and a plain server on this
    // namespace's loopback with the same port as a preloaded one inside is
    // never sent a Proposal (loopback is each namespace's own).
    void acrossNetworkNamespaces() {
        Netns ns;
        if (!ns.valid()) QSKIP(qPrintable(ns.error()));
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(false, "/usr/sbin/ip",
                      ns.exec(PreloadHarness::smcrRun(), {"--stats", h.statsDir(), "-v", peer(), "serve-threads",
                                                          QString::number(port), "0.0.0.0"}),
                      port, "listening");
        QString out;
        QString err;
        int rc = h.runClient(true, peer(), {"client", QString::number(port), kStreamBytes, "51", ns.address()}, &out,
                             30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), QString("ok ") + kStreamBytes);
        QVERIFY2(err.contains("connect " + ns.address()) && err.contains("SMC-R"), qPrintable(err));
        QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_client"), 1.0);
        QCOMPARE(num(c, "tcp_connections"), 0.0);
        QVERIFY(num(c, "smc_tx_bytes") >= 3000000);

        // A plain server on this namespace's loopback, on the same port.
        PreloadHarness plain;
        plain.startServer(false, peer(), {"serve-threads", QString::number(port)}, port, "listening");
        QElapsedTimer t;
        t.start();
        rc = plain.runClient(true, peer(), {"client", QString::number(port), "200000", "52"}, &out, 30000,
                             {"SMCR_SIM_DIR=" + h.simDir()}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), QString("ok 200000"));
        QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));  // no detection wait
        c = clientStats(plain);
        QCOMPARE(num(c, "tcp_connections"), 1.0);
        QCOMPARE(c.value("fallbacks").toObject().value("client.not_libsmcr_peer").toDouble(), 1.0);

        // A plain server inside the namespace.
        const int plainPort = PreloadHarness::freePort();
        h.startServer(false, "/usr/sbin/ip", ns.exec(peer(), {"serve-threads", QString::number(plainPort), "0.0.0.0"}),
                      plainPort, "listening");
        PreloadHarness toPlain;
        rc = toPlain.runClient(true, peer(), {"client", QString::number(plainPort), "200000", "53", ns.address()}, &out,
                               30000, {"SMCR_SIM_DIR=" + h.simDir()}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QCOMPARE(out.trimmed(), QString("ok 200000"));
        QCOMPARE(num(clientStats(toPlain), "tcp_connections"), 1.0);
        plain.stopServers();
        h.stopServers();
    }

    // qperf across the namespaces, both ends preloaded: the control and the
    // data connection of the client are SMC-R, and so is the server's.
    void qperfAcrossNetworkNamespaces() {
        Netns ns;
        if (!ns.valid()) QSKIP(qPrintable(ns.error()));
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startBackground("/usr/sbin/ip",
                          ns.exec(PreloadHarness::smcrRun(),
                                  {"--stats", h.statsDir(), "-v", "/usr/bin/qperf", "-lp", QString::number(port)}));
        QVERIFY(waitListening(ns.address(), port));
        QString out;
        QString err;
        const int rc = h.runClient(true, "/usr/bin/qperf",
                                   {"-lp", QString::number(port), "-t", "1", ns.address(), "tcp_bw", "tcp_lat"}, &out,
                                   30000, {}, &err);
        QVERIFY2(rc == 0, qPrintable(out + err));
        QVERIFY2(out.contains("bw") && out.contains("latency"), qPrintable(out));
        h.stopServers();
        const QJsonObject c = clientStats(h);
        QCOMPARE(num(c, "smc_client"), 4.0);
        QCOMPARE(num(c, "tcp_connections"), 0.0);
        QCOMPARE(num(c, "tcp_tx_bytes") + num(c, "tcp_rx_bytes"), 0.0);
        int children = 0;
        for (const QJsonObject& o : h.stats()) {
            if (o.value("program").toString() != "qperf" || num(o, "smc_client") > 0) continue;
            if (num(o, "smc_rx_bytes") + num(o, "smc_tx_bytes") == 0) continue;  // waitListening's probe
            ++children;
            QCOMPARE(num(o, "smc_server"), 1.0);
            QCOMPARE(num(o, "tcp_rx_bytes") + num(o, "tcp_tx_bytes"), 0.0);
        }
        QCOMPARE(children, 2);
    }
};

QTEST_GUILESS_MAIN(TestPreloadPrograms)
#include "test_preload_programs.moc"
