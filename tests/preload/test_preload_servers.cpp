// Well-known servers and clients under smcr_run on loopback, each side
// preloaded: redis-server with I/O threads and redis-benchmark (pipelined
// and not), nginx with two workers (sendfile on/off, keep-alive and
// Connection: close) fetched by curl with the file's checksum compared, and
// wrk against it. Durations are a second or two; no numbers are judged.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

#include "preload_harness.h"

namespace {

double num(const QJsonObject& o, const char* key) {
    return o.value(key).toDouble();
}

QByteArray sha256(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// Sums the counters of every file written by processes named `program`.
struct Totals {
    double smcConnections = 0;
    double appTx = 0;
    double smcTx = 0;
    int files = 0;
};
Totals totalsOf(const PreloadHarness& h, const QString& program) {
    Totals t;
    for (const QJsonObject& o : h.stats()) {
        if (o.value("program").toString() != program) continue;
        ++t.files;
        t.smcConnections += num(o, "smc_connections");
        t.appTx += num(o, "app_tx_bytes");
        t.smcTx += num(o, "smc_tx_bytes");
    }
    return t;
}

void requireProgram(const QString& path) {
    if (!QFile::exists(path)) QSKIP(qPrintable(path + " is not installed (packaging/install-deps.sh)"));
}

QString nginxConfig(const PreloadHarness& h, int port, bool sendfile) {
    const QString d = h.path("nginx");
    return QString(
               "worker_processes 2;\n"
               "error_log %1/error.log warn;\n"
               "pid %1/nginx.pid;\n"
               "events { worker_connections 1024; }\n"
               "http {\n"
               "  access_log off;\n"
               "  sendfile %3; tcp_nopush on; keepalive_timeout 30;\n"
               "  client_body_temp_path %1; proxy_temp_path %1; fastcgi_temp_path %1;\n"
               "  uwsgi_temp_path %1; scgi_temp_path %1;\n"
               "  server { listen 127.0.0.1:%2; root %1/www; }\n"
               "}\n")
        .arg(d)
        .arg(port)
        .arg(sendfile ? "on" : "off");
}

}  // namespace

class TestPreloadServers : public QObject {
    Q_OBJECT

private:
    void nginxServes(bool sendfile) {
        requireProgram("/usr/sbin/nginx");
        requireProgram("/usr/bin/curl");
        PreloadHarness h;
        QDir().mkpath(h.path("nginx/www"));
        QFile::setPermissions(h.path("nginx"), QFile::permissions(h.statsDir()));
        QFile::setPermissions(h.path("nginx/www"), QFile::permissions(h.statsDir()));
        // An odd size, so the last sendfile piece is short.
        QByteArray body(777777, Qt::Uninitialized);
        QRandomGenerator gen(42);
        for (char& c : body) c = static_cast<char>(gen.generate() & 0xff);
        QFile f(h.path("nginx/www/rand.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body);
        f.close();
        QFile::setPermissions(f.fileName(), QFileDevice::ReadOwner | QFileDevice::ReadOther | QFileDevice::ReadGroup);
        const int port = PreloadHarness::freePort();
        QFile conf(h.path("nginx/nginx.conf"));
        QVERIFY(conf.open(QIODevice::WriteOnly));
        conf.write(nginxConfig(h, port, sendfile).toUtf8());
        conf.close();
        h.startServer(true, "/usr/sbin/nginx", {"-p", h.path("nginx"), "-c", conf.fileName(), "-g", "daemon off;"},
                      port);
        const QString url = QString("http://127.0.0.1:%1/rand.bin").arg(port);

        // Keep-alive: two fetches on one connection; then Connection: close.
        const QString out1 = h.path("one.bin");
        const QString out2 = h.path("two.bin");
        QString out;
        QString err;
        QCOMPARE(h.runClient(true, "/usr/bin/curl", {"-sS", "-o", out1, url, "-o", out2, url}, &out, 20000, {}, &err),
                 0);
        for (const QString& file : {out1, out2}) {
            QFile got(file);
            QVERIFY(got.open(QIODevice::ReadOnly));
            QCOMPARE(sha256(got.readAll()), sha256(body));
        }
        QVERIFY2(err.count("SMC-R") == 1, qPrintable(err));  // one connection, kept alive
        const QString out3 = h.path("three.bin");
        QCOMPARE(h.runClient(true, "/usr/bin/curl", {"-sS", "-H", "Connection: close", "-o", out3, url}, &out), 0);
        QFile got(out3);
        QVERIFY(got.open(QIODevice::ReadOnly));
        QCOMPARE(sha256(got.readAll()), sha256(body));

        if (QFile::exists("/usr/bin/wrk")) {
            QCOMPARE(h.runClient(true, "/usr/bin/wrk", {"-t2", "-c16", "-d1", url}, &out, 30000), 0);
            QVERIFY2(out.contains("Requests/sec") && !out.contains("Socket errors") && !out.contains("Non-2xx"),
                     qPrintable(out));
        }
        h.stopServers();  // SIGTERM: the workers exit and write their counters
        QTest::qWait(300);
        const Totals workers = totalsOf(h, "nginx");
        QVERIFY2(workers.smcConnections >= 2, qPrintable(QString::number(workers.smcConnections)));
        QVERIFY2(workers.smcTx >= 0.9 * workers.appTx,
                 qPrintable(QString("%1 of %2").arg(workers.smcTx).arg(workers.appTx)));
        QVERIFY(workers.appTx >= 3.0 * body.size());
    }

private slots:
    void redisBenchmark() {
        requireProgram("/usr/bin/redis-server");
        requireProgram("/usr/bin/redis-benchmark");
        PreloadHarness h;
        const int port = PreloadHarness::freePort();
        h.startServer(true, "/usr/bin/redis-server",
                      {"--port", QString::number(port), "--save", "", "--appendonly", "no", "--io-threads", "2",
                       "--io-threads-do-reads", "yes", "--dir", h.path("")},
                      port);
        for (const char* pipeline : {"16", "1"}) {
            QString out;
            QString err;
            const int rc = h.runClient(true, "/usr/bin/redis-benchmark",
                                       {"-p", QString::number(port), "-n", "4000", "-c", "8", "--threads", "2", "-P",
                                        pipeline, "-t", "set,get", "-q"},
                                       &out, 60000, {}, &err);
            QVERIFY2(rc == 0, qPrintable(out + err));
            QVERIFY2(out.contains("SET:") && out.contains("GET:") && out.contains("requests per second"),
                     qPrintable(out));
        }
        // A value through SET and GET intact.
        if (QFile::exists("/usr/bin/redis-cli")) {
            QString value;
            QRandomGenerator gen(7);
            for (int i = 0; i < 5000; ++i) value += QChar('a' + static_cast<int>(gen.bounded(26)));
            QString out;
            QCOMPARE(h.runClient(true, "/usr/bin/redis-cli", {"-p", QString::number(port), "set", "k", value}, &out),
                     0);
            QCOMPARE(h.runClient(true, "/usr/bin/redis-cli", {"-p", QString::number(port), "get", "k"}, &out), 0);
            QCOMPARE(out.trimmed(), value);
            // BGSAVE forks a child that inherits the SMC-R client fds; the
            // server carries on and the child's save succeeds.
            QCOMPARE(h.runClient(true, "/usr/bin/redis-cli", {"-p", QString::number(port), "bgsave"}, &out), 0);
            bool saved = false;
            for (int i = 0; i < 50 && !saved; ++i) {
                QTest::qWait(100);
                QCOMPARE(
                    h.runClient(true, "/usr/bin/redis-cli", {"-p", QString::number(port), "info", "persistence"}, &out),
                    0);
                saved = out.contains("rdb_bgsave_in_progress:0") && out.contains("rdb_last_bgsave_status:ok");
            }
            QVERIFY2(saved, qPrintable(out));
            QCOMPARE(h.runClient(true, "/usr/bin/redis-cli", {"-p", QString::number(port), "get", "k"}, &out), 0);
            QCOMPARE(out.trimmed(), value);
        }
        const Totals bench = totalsOf(h, "redis-benchmark");
        QCOMPARE(bench.files, 2);
        QVERIFY(bench.smcConnections >= 16);
        QVERIFY2(bench.smcTx >= 0.9 * bench.appTx, qPrintable(QString("%1 of %2").arg(bench.smcTx).arg(bench.appTx)));
    }

    // Python's http.server: a thread per connection, serve_forever's poll
    // loop on the listener, socket.sendfile (os.sendfile) for the body.
    void pythonHttpServer() {
        requireProgram("/usr/bin/python3");
        requireProgram("/usr/bin/curl");
        PreloadHarness h;
        QDir().mkpath(h.path("www"));
        QByteArray body(333333, Qt::Uninitialized);
        QRandomGenerator gen(3);
        for (char& c : body) c = static_cast<char>(gen.generate() & 0xff);
        QFile f(h.path("www/r.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body);
        f.close();
        const int port = PreloadHarness::freePort();
        h.startServer(true, "/usr/bin/python3",
                      {"-m", "http.server", QString::number(port), "--bind", "127.0.0.1", "--directory", h.path("www")},
                      port);
        const QString out1 = h.path("got.bin");
        QString out;
        QString err;
        QCOMPARE(h.runClient(true, "/usr/bin/curl", {"-sS", "-o", out1, QString("http://127.0.0.1:%1/r.bin").arg(port)},
                             &out, 20000, {}, &err),
                 0);
        QVERIFY2(err.contains("SMC-R"), qPrintable(err));
        QFile got(out1);
        QVERIFY(got.open(QIODevice::ReadOnly));
        QCOMPARE(sha256(got.readAll()), sha256(body));
    }

    void nginxSendfileOn() { nginxServes(true); }
    void nginxSendfileOff() { nginxServes(false); }
};

QTEST_GUILESS_MAIN(TestPreloadServers)
#include "test_preload_servers.moc"
