// Our kv client against the real redis-server, and the real redis-benchmark
// against our kv server.
#include <QTemporaryDir>
#include <QTest>

#include "tool_process.h"

using namespace smclab::testing;

class TestInteropRedis : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        requireToolOrSkip("redis-server");
        requireToolOrSkip("redis-benchmark");
    }

    void ourClientAgainstRedisServer() {
        QTemporaryDir dir;
        const quint16 port = freePort();
        QProcess redis;
        redis.setWorkingDirectory(dir.path());
        redis.start(findTool("redis-server"), {"--port", QString::number(port), "--bind", "127.0.0.1", "--save", "",
                                               "--appendonly", "no", "--dir", dir.path()});
        QVERIFY(redis.waitForStarted(5000));
        QVERIFY2(waitForPort(port, 10000), "redis-server did not start listening");
        const QString target = "127.0.0.1:" + QString::number(port);
        RunOutput r = runProgram(smclabProgram(), {"load", "kv", "--connect", target, "-n", "3000", "-c", "8", "-P",
                                                   "2", "-r", "100", "-d", "16", "--csv"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("\"SET\",\""));
        QVERIFY(r.out.contains("\"GET\",\""));
        // The keys our client wrote are real Redis keys: DBSIZE over RESP.
        QTcpSocket s;
        s.connectToHost("127.0.0.1", port);
        QVERIFY(s.waitForConnected(2000));
        s.write("*1\r\n$6\r\nDBSIZE\r\n*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000007\r\n");
        QByteArray reply;
        while (reply.count("\r\n") < 3 && s.waitForReadyRead(2000)) reply += s.readAll();
        QVERIFY2(reply.startsWith(":"), reply.constData());
        const int keys = reply.mid(1, reply.indexOf("\r\n") - 1).toInt();
        QVERIFY(keys > 10 && keys <= 100);
        // Our full report shows what redis-server says about persistence.
        RunOutput full =
            runProgram(smclabProgram(), {"load", "kv", "--connect", target, "-n", "500", "-c", "2", "-t", "set"});
        QCOMPARE(full.exitCode, 0);
        QVERIFY(full.out.contains("host configuration \"appendonly\": no"));
        QVERIFY(full.out.contains("Summary:\n  throughput summary: "));
        stopProcess(redis);
    }

    void redisBenchmarkAgainstOurServer() {
        QProcess server;
        const quint16 port = startServe(server, {"kv", "--listen", "127.0.0.1:0", "--threads", "2"});
        QVERIFY(port != 0);
        RunOutput q = runProgram(findTool("redis-benchmark"), {"-h", "127.0.0.1", "-p", QString::number(port), "-t",
                                                               "set,get", "-n", "3000", "-c", "8", "-q"});
        QVERIFY2(q.exitCode == 0, qPrintable(q.err + q.out));
        // Progress lines overwrite each other with CRs: keep the text after the last one.
        QString setLine, getLine;
        for (QString line : q.out.split('\n')) {
            line = line.mid(line.lastIndexOf('\r') + 1);
            if (line.startsWith("SET: ")) setLine = line;
            if (line.startsWith("GET: ")) getLine = line;
        }
        QVERIFY2(numberAfter(setLine, "SET:") > 0, qPrintable(q.out));
        QVERIFY2(numberAfter(getLine, "GET:") > 0, qPrintable(q.out));
        RunOutput csv =
            runProgram(findTool("redis-benchmark"), {"-p", QString::number(port), "-t", "set", "-n", "1000", "-c", "4",
                                                     "-P", "8", "-r", "50", "-d", "100", "--csv"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.contains("\"SET\",\""));
        stopProcess(server);
    }
};

QTEST_GUILESS_MAIN(TestInteropRedis)
#include "test_interop_redis.moc"
