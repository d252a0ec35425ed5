// The real wrk against our http server, and our http client against the real nginx.
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "tool_process.h"

using namespace smclab::testing;

class TestInteropHttp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        requireToolOrSkip("wrk");
        requireToolOrSkip("nginx");
    }

    void wrkAgainstOurServer() {
        QProcess server;
        const quint16 port = startServe(server, {"http", "--listen", "127.0.0.1:0"});
        QVERIFY(port != 0);
        const QString url = "http://127.0.0.1:" + QString::number(port) + "/4k.html";
        RunOutput r = runProgram(findTool("wrk"), {"-t1", "-c4", "-d1s", "--latency", url});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(numberAfter(r.out, "Requests/sec:") > 0);
        QVERIFY2(!r.out.contains("Socket errors") && !r.out.contains("Non-2xx"), qPrintable(r.out));
        // Keep-alive off: every request on a new connection.
        RunOutput closing = runProgram(findTool("wrk"), {"-t1", "-c2", "-d1s", "-H", "Connection: close", url});
        QCOMPARE(closing.exitCode, 0);
        QVERIFY(numberAfter(closing.out, "Requests/sec:") > 0);
        QVERIFY2(!closing.out.contains("Non-2xx"), qPrintable(closing.out));
        stopProcess(server);
    }

    void ourClientAgainstNginx() {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("www"));
        QFile page(dir.filePath("www/4k.html"));
        QVERIFY(page.open(QIODevice::WriteOnly));
        page.write(QByteArray(4096, 'n'));
        page.close();
        const quint16 port = freePort();
        const QString d = dir.path();
        QFile conf(dir.filePath("nginx.conf"));
        QVERIFY(conf.open(QIODevice::WriteOnly));
        conf.write(
            QString("%1daemon off;\nworker_processes 1;\npid %2/nginx.pid;\nerror_log %2/error.log;\n"
                    "events { worker_connections 256; }\n"
                    "http {\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 1000000;\n"
                    "  client_body_temp_path %2/body;\n  proxy_temp_path %2/proxy;\n  fastcgi_temp_path %2/fastcgi;\n"
                    "  uwsgi_temp_path %2/uwsgi;\n  scgi_temp_path %2/scgi;\n"
                    "  server { listen 127.0.0.1:%3; root %2/www; }\n}\n")
                .arg(::geteuid() == 0 ? "user root;\n" : "", d, QString::number(port))
                .toUtf8());
        conf.close();
        QProcess nginx;
        nginx.start(findTool("nginx"), {"-p", d, "-e", d + "/error.log", "-c", d + "/nginx.conf"});
        QVERIFY(nginx.waitForStarted(5000));
        if (!waitForPort(port, 10000)) {
            QFile log(d + "/error.log");
            log.open(QIODevice::ReadOnly);
            QFAIL(
                qPrintable("nginx did not start: " + QString::fromUtf8(log.readAll()) + nginx.readAllStandardError()));
        }
        RunOutput r = runProgram(smclabProgram(), {"load", "http", "--connect", "127.0.0.1:" + QString::number(port),
                                                   "-t", "1", "-c", "4", "-d", "1s", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject result = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject summary = result["summary"].toObject();
        const double requests = summary["requests"].toDouble();
        QVERIFY(requests > 10);
        QVERIFY(summary["bytes"].toDouble() >= requests * 4096);
        const QJsonObject errors = summary["errors"].toObject();
        for (const QString& k : errors.keys()) QVERIFY2(errors[k].toDouble() == 0, qPrintable(k));
        RunOutput missing =
            runProgram(smclabProgram(), {"load", "http", "--connect", "127.0.0.1:" + QString::number(port), "-t", "1",
                                         "-c", "1", "-d", "300ms", "--path", "/nope"});
        QCOMPARE(missing.exitCode, 0);
        QVERIFY(missing.out.contains("Non-2xx or 3xx responses: "));
        stopProcess(nginx);
    }
};

QTEST_GUILESS_MAIN(TestInteropHttp)
#include "test_interop_http.moc"
