// smclab serve / smclab load as processes: tool-style output and option errors.
#include <QTest>

#include "tool_process.h"

using namespace smclab::testing;

class TestCliWorkloads : public QObject {
    Q_OBJECT
private slots:
    void tcpServeAndLoadPrintQperfBlocks() {
        QProcess server;
        const quint16 port = startServe(server, {"tcp", "--listen", "127.0.0.1:0"});
        QVERIFY(port != 0);
        const QString target = "127.0.0.1:" + QString::number(port);
        RunOutput bw = runProgram(smclabProgram(), {"load", "tcp_bw", "--connect", target, "-t", "300ms", "--warmup",
                                                    "50ms", "-oo", "msg_size:1K:4K:*4", "-vu", "--verify"});
        QCOMPARE(bw.exitCode, 0);
        QCOMPARE(bw.out.count("tcp_bw:\n"), 2);
        QVERIFY(bw.out.contains(QRegularExpression("\\n    bw        =  +[0-9.,]+ [KMG]?B/sec\\n")) ||
                bw.out.contains(QRegularExpression("\\n    bw        =  +[0-9.,]+ bytes/sec\\n")));
        // The value column is as wide as the widest value of the block.
        QVERIFY(bw.out.contains(QRegularExpression("\\n    msg_size  =  +1 KiB \\(1,024\\)\\n")));
        QVERIFY(bw.out.contains(QRegularExpression("\\n    msg_size  =  +4 KiB \\(4,096\\)\\n")));
        RunOutput lat =
            runProgram(smclabProgram(), {"load", "tcp_lat", "--connect", target, "-t", "300ms", "-vl", "-vs"});
        QCOMPARE(lat.exitCode, 0);
        QVERIFY(lat.out.startsWith("tcp_lat:\n    latency "));
        QVERIFY(lat.out.contains("latency_p99"));
        QVERIFY(lat.out.contains("msg_rate"));
        stopProcess(server);
    }

    void badOptionsNameTheOption() {
        struct Case {
            QStringList args;
            int exitCode;
            QString text;
        };
        const QList<Case> cases = {
            {{"load", "tcp_bw", "--connect", "127.0.0.1:1", "-m", "0"}, 2, "-m/--msg-size: must be in"},
            {{"load", "tcp_bw", "--connect", "127.0.0.1:1", "-m", "lots"}, 2, "-m: bad size 'lots'"},
            {{"load", "tcp_lat", "--connect", "127.0.0.1:1", "-t", "soon"}, 2, "-t: bad time 'soon'"},
            {{"load", "tcp_bw", "--connect", "127.0.0.1"}, 2, "--connect: expected ADDR:PORT"},
            {{"load", "tcp_bw", "--bogus"}, 2, "unknown option '--bogus'"},
            {{"load", "tcp_bw", "-oo", "msg_size:8:1:*2", "--connect", "127.0.0.1:1"}, 2, "-oo: bad loop"},
            {{"load", "http", "--connect", "127.0.0.1:1", "-c", "0"}, 2, "-c/--connections: must be in"},
            {{"load", "http", "--connect", "127.0.0.1:1", "-d", "forever"}, 2, "-d: bad time 'forever'"},
            {{"load", "kv", "--connect", "127.0.0.1:1", "-P", "0"}, 2, "-P/--pipeline: must be in"},
            {{"load", "kv", "--connect", "127.0.0.1:1", "-t", "set,incr"}, 2, "-t/--tests: items must be among"},
            {{"load", "kv", "--connect", "127.0.0.1:1", "-k", "2"}, 2, "-k: expects 1 or 0"},
            {{"load", "nosuch"}, 2, "unknown workload 'nosuch'"},
            {{"serve", "kv", "--listen", "127.0.0.1:0", "--threads", "0"}, 2, "--threads: must be in 1..256"},
            {{"serve", "http", "--listen", "127.0.0.1:99999"}, 2, "--listen: bad port"},
            {{"serve", "ftp", "--listen", "127.0.0.1:0"}, 2, "unknown server 'ftp'"},
            {{"serve", "tcp"}, 2, "--listen ADDR:PORT is required"},
            {{"serve", "tcp", "--listen", "127.0.0.1:0", "--transport", "udp"}, 1, "unknown transport 'udp'"},
            {{"serve", "tcp", "--listen", "127.0.0.1:0", "--transport-opt", "fabric=sim"},
             1,
             "fabric: the tcp transport takes no options"},
            {{"serve", "tcp", "--listen", "127.0.0.1:0", "--transport-opt", "novalue"},
             2,
             "--transport-opt expects KEY=VALUE"},
            {{"load", "tcp_bw", "--connect", "127.0.0.1:1", "-t", "100ms"}, 1, "connection refused"},
            // An option that takes a value, given last without it: the
            // message names it (the parsers once read past the last word).
            {{"bench", "kv", "--preset", "credits", "-c"}, 2, "option -c needs a value"},
            {{"bench", "stream", "-t"}, 2, "option -t needs a value"},
            {{"bench", "fabric", "--sizes"}, 2, "option --sizes needs a value"},
            {{"demo", "--db"}, 2, "option --db needs a value"},
            {{"load", "tcp_lat", "--connect"}, 2, "needs a value"},
            {{"serve", "kv", "--listen", "127.0.0.1:0", "--threads"}, 2, "needs a value"},
        };
        for (const Case& c : cases) {
            RunOutput r = runProgram(smclabProgram(), c.args);
            QVERIFY2(r.exitCode == c.exitCode,
                     qPrintable(c.args.join(' ') + " -> " + QString::number(r.exitCode) + ": " + r.err));
            QVERIFY2(r.err.contains(c.text), qPrintable(c.args.join(' ') + " -> " + r.err));
        }
        // ksmc: either it works here, or it says why not.
        RunOutput ksmc =
            runProgram(smclabProgram(),
                       {"serve", "tcp", "--listen", "127.0.0.1:0", "--transport", "ksmc", "--max-tests", "0"}, 1500);
        if (ksmc.exitCode == 1) QVERIFY(ksmc.err.contains("kernel SMC not available"));
    }

    void helpIsAvailable() {
        for (const QStringList& args :
             {QStringList{"serve", "--help"}, QStringList{"load", "--help"}, QStringList{"load", "tcp_bw", "--help"},
              QStringList{"load", "http", "--help"}, QStringList{"load", "kv", "--help"}}) {
            RunOutput r = runProgram(smclabProgram(), args);
            QCOMPARE(r.exitCode, 0);
            QVERIFY(r.out.contains("usage: smclab"));
        }
    }

    void httpAndKvThroughTheCli() {
        QProcess http;
        const quint16 httpPort = startServe(http, {"http", "--listen", "127.0.0.1:0", "--threads", "2"});
        QVERIFY(httpPort != 0);
        RunOutput wrkLike =
            runProgram(smclabProgram(), {"load", "http", "http://127.0.0.1:" + QString::number(httpPort) + "/4k.html",
                                         "-t", "1", "-c", "2", "-d", "300ms", "--latency"});
        QCOMPARE(wrkLike.exitCode, 0);
        QVERIFY(wrkLike.out.startsWith("Running 300ms test @ http://127.0.0.1:"));
        QVERIFY(wrkLike.out.contains("  1 threads and 2 connections\n"));
        QVERIFY(wrkLike.out.contains("  Latency Distribution\n"));
        QVERIFY(numberAfter(wrkLike.out, "Requests/sec:") > 0);
        QVERIFY(!wrkLike.out.contains("Socket errors"));
        stopProcess(http);

        QProcess kv;
        const quint16 kvPort = startServe(kv, {"kv", "--listen", "127.0.0.1:0"});
        QVERIFY(kvPort != 0);
        RunOutput quiet = runProgram(
            smclabProgram(),
            {"load", "kv", "--connect", "127.0.0.1:" + QString::number(kvPort), "-n", "2000", "-c", "4", "-q"});
        QCOMPARE(quiet.exitCode, 0);
        QVERIFY(
            quiet.out.contains(QRegularExpression("^SET: [0-9.]+ requests per second, p50=[0-9.]+ msec\\n"
                                                  "GET: [0-9.]+ requests per second, p50=[0-9.]+ msec\\n$")));
        RunOutput csv = runProgram(smclabProgram(), {"load", "kv", "--connect", "127.0.0.1:" + QString::number(kvPort),
                                                     "-n", "500", "-c", "2", "--csv", "-t", "get"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.startsWith("\"test\",\"rps\",\"avg_latency_ms\""));
        QVERIFY(csv.out.contains("\n\"GET\",\""));
        stopProcess(kv);
    }
};

QTEST_GUILESS_MAIN(TestCliWorkloads)
#include "test_cli_workloads.moc"
