// Every workload over tcp on loopback, in one process: a server run on one
// thread, a client run (or raw requests) on another; byte checks where the
// protocol allows them.
#include <atomic>
#include <future>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include "http_server.h"
#include "resp.h"
#include "workload.h"

using namespace smclab;
using namespace smclab::workloads;

namespace {

// A server run on its own thread; stop() ends it and returns its result.
class ServerRun {
public:
    ServerRun(const std::string& workload, QJsonObject params, std::shared_ptr<transports::Transport> transport) {
        m_ctx.role = smcr::Side::server;
        m_ctx.params = std::move(params);
        m_ctx.transport = std::move(transport);
        m_ctx.host = "127.0.0.1";
        m_ctx.port = 0;
        m_ctx.stop = &m_stop;
        m_ctx.sampleIntervalMs = 50;
        m_ctx.onSample = [this](const Sample&) { m_samples.fetch_add(1); };
        std::promise<uint16_t> ready;
        auto port = ready.get_future();
        m_ctx.onListening = [&ready](uint16_t p) { ready.set_value(p); };
        const Workload* w = findWorkload(workload);
        m_result = std::async(std::launch::async, [this, w] { return w->run(m_ctx); });
        if (port.wait_for(std::chrono::seconds(5)) == std::future_status::ready) m_port = port.get();
    }
    ~ServerRun() {
        if (m_result.valid()) (void)stop();
    }
    uint16_t port() const { return m_port; }
    int samples() const { return m_samples.load(); }
    Result<RunResult> stop() {
        m_stop.store(true);
        return m_result.get();
    }

private:
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_samples{0};
    RunContext m_ctx;
    uint16_t m_port = 0;
    std::future<Result<RunResult>> m_result;
};

Result<RunResult> runClient(const std::string& workload, QJsonObject params,
                            std::shared_ptr<transports::Transport> transport, uint16_t port, int* samples = nullptr) {
    RunContext ctx;
    ctx.role = smcr::Side::client;
    ctx.params = std::move(params);
    ctx.transport = std::move(transport);
    ctx.host = "127.0.0.1";
    ctx.port = port;
    ctx.sampleIntervalMs = 50;
    ctx.onSample = [samples](const Sample& s) {
        if (samples != nullptr) ++*samples;
        (void)s.toJson();
    };
    return findWorkload(workload)->run(ctx);
}

// One request/response exchange on a fresh blocking stream.
std::string exchange(transports::Transport& t, uint16_t port, const std::string& request, size_t expectAtLeast) {
    auto s = t.connect("127.0.0.1", port, {});
    if (!s) return "connect failed";
    (void)(*s)->setIoTimeoutMs(2000);
    size_t sent = 0;
    while (sent < request.size()) {
        auto n = (*s)->write(request.data() + sent, request.size() - sent);
        if (!n) return "write failed";
        sent += *n;
    }
    std::string reply;
    char buf[65536];
    while (reply.size() < expectAtLeast) {
        auto n = (*s)->read(buf, sizeof buf);
        if (!n || *n == 0) break;
        reply.append(buf, *n);
    }
    return reply;
}

}  // namespace

class TestWorkloadsLoopback : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<transports::Transport> m_tcp;

private slots:
    void initTestCase() {
        auto t = transports::createTransport("tcp");
        QVERIFY(t.ok());
        m_tcp = *t;
    }

    void tcpBwAndLatWithVerifiedBytes() {
        ServerRun server("tcp_bw", {}, m_tcp);
        QVERIFY(server.port() != 0);
        int samples = 0;
        auto bw = runClient("tcp_bw", {{"msg_size", 4096}, {"duration_ms", 300}, {"warmup_ms", 50}, {"verify", true}},
                            m_tcp, server.port(), &samples);
        QVERIFY2(bw.ok(), bw.ok() ? "" : bw.error().message.c_str());
        QVERIFY(bw->summary["bw_MBps"].toDouble() > 0);
        QVERIFY(bw->bytes > 0);
        QCOMPARE(bw->bytes % 4096, uint64_t(0));
        QVERIFY(bw->elapsedSec > 0.15 && bw->elapsedSec < 2.0);
        QVERIFY(samples >= 2);
        // Odd sizes expose any misaligned pattern check.
        auto odd = runClient("tcp_bw", {{"msg_size", 1001}, {"duration_ms", 100}, {"warmup_ms", 0}, {"verify", true}},
                             m_tcp, server.port());
        QVERIFY2(odd.ok(), odd.ok() ? "" : odd.error().message.c_str());
        auto lat = runClient("tcp_lat", {{"msg_size", 333}, {"duration_ms", 300}, {"warmup_ms", 50}, {"verify", true}},
                             m_tcp, server.port());
        QVERIFY2(lat.ok(), lat.ok() ? "" : lat.error().message.c_str());
        QVERIFY(lat->latency.count() > 10);
        QCOMPARE(lat->ops, lat->latency.count());
        const double mean = lat->summary["latency_us"].toDouble();
        QVERIFY(mean > 0);
        QVERIFY(lat->summary["p50_us"].toDouble() <= lat->summary["p99_us"].toDouble());
        QVERIFY(lat->summary["p99_us"].toDouble() <= lat->summary["max_us"].toDouble() * 1.001);
        auto done = server.stop();
        QVERIFY(done.ok());
        QCOMPARE(done->summary["tests_served"].toDouble(), 3.0);
        QVERIFY(done->summary["errors"].toArray().isEmpty());
        QVERIFY(server.samples() >= 1);
    }

    void tcpServerFinishesAfterMaxTests() {
        ServerRun server("tcp_lat", {{"max_tests", 1}}, m_tcp);
        auto lat = runClient("tcp_lat", {{"duration_ms", 100}, {"warmup_ms", 0}}, m_tcp, server.port());
        QVERIFY(lat.ok());
        auto done = server.stop();
        QVERIFY(done.ok());
        QCOMPARE(done->summary["tests"].toArray().size(), 1);
    }

    void tcpClientAgainstANonSmclabServerFailsClearly() {
        ServerRun kv("kv", {}, m_tcp);
        auto r = runClient("tcp_bw", {{"duration_ms", 100}, {"timeout_ms", 1000}}, m_tcp, kv.port());
        QVERIFY(!r.ok());
    }

    void httpGeneratedPageKeepAliveAndErrors() {
        ServerRun server("http", {}, m_tcp);
        QVERIFY(server.port() != 0);
        const std::string page = generatedPage(4096);
        QCOMPARE(page.size(), size_t(4096));
        // Two pipelined requests on one connection, then a close.
        const std::string reply = exchange(*m_tcp, server.port(),
                                           "GET /4k.html HTTP/1.1\r\nHost: x\r\n\r\n"
                                           "GET /4k.html?q=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                           1 << 20);
        const size_t first = reply.find("\r\n\r\n");
        QVERIFY(reply.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
        QVERIFY(reply.find("Content-Length: 4096\r\n") != std::string::npos);
        QVERIFY(reply.compare(first + 4, 4096, page) == 0);
        const size_t second = reply.find("HTTP/1.1 200 OK\r\n", first + 4 + 4096);
        QCOMPARE(second, first + 4 + 4096);
        QVERIFY(reply.find("Connection: close", second) != std::string::npos);
        QVERIFY(reply.size() == second + (reply.find("\r\n\r\n", second) - second) + 4 + 4096);

        QVERIFY(exchange(*m_tcp, server.port(), "GET /missing HTTP/1.1\r\n\r\n", 20).rfind("HTTP/1.1 404", 0) == 0);
        QVERIFY(exchange(*m_tcp, server.port(), "GET /../etc/passwd HTTP/1.1\r\n\r\n", 20).rfind("HTTP/1.1 403", 0) ==
                0);
        QVERIFY(exchange(*m_tcp, server.port(), "DELETE /4k.html HTTP/1.1\r\n\r\n", 20).rfind("HTTP/1.1 405", 0) == 0);
        QVERIFY(exchange(*m_tcp, server.port(), "nonsense\r\n\r\n", 20).rfind("HTTP/1.1 400", 0) == 0);
        const std::string head = exchange(*m_tcp, server.port(), "HEAD /4k.html HTTP/1.0\r\n\r\n", 1 << 20);
        QVERIFY(head.rfind("HTTP/1.1 200 OK", 0) == 0);
        QCOMPARE(head.size(), head.find("\r\n\r\n") + 4);  // HEAD: no body, and HTTP/1.0 closes

        int samples = 0;
        auto client = runClient("http", {{"threads", 2}, {"connections", 4}, {"duration_ms", 400}}, m_tcp,
                                server.port(), &samples);
        QVERIFY2(client.ok(), client.ok() ? "" : client.error().message.c_str());
        QVERIFY(client->ops > 10);
        const QJsonObject errors = client->summary["errors"].toObject();
        for (const QString& k : errors.keys()) QCOMPARE(errors[k].toDouble(), 0.0);
        QVERIFY(client->bytes >= client->ops * 4096);
        QCOMPARE(client->latency.count(), client->ops);
        QVERIFY(samples >= 2);
        // Connection: close on every request still works (reconnects).
        auto closing = runClient(
            "http",
            {{"threads", 1}, {"connections", 2}, {"duration_ms", 200}, {"headers", QJsonArray{"Connection: close"}}},
            m_tcp, server.port());
        QVERIFY(closing.ok());
        QVERIFY(closing->ops > 0);
        auto done = server.stop();
        QVERIFY(done.ok());
        QVERIFY(done->ops >= client->ops);
    }

    void httpServesARootDirectory() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray content(100000, '\0');
        for (int i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i % 253);
        QFile f(dir.filePath("data.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        QDir(dir.path()).mkdir("sub");
        QFile idx(dir.filePath("sub/index.html"));
        QVERIFY(idx.open(QIODevice::WriteOnly));
        idx.write("<p>hi</p>");
        idx.close();
        ServerRun server("http", {{"root", dir.path()}, {"threads", 2}}, m_tcp);
        const std::string reply = exchange(*m_tcp, server.port(), "GET /data.bin HTTP/1.1\r\n\r\n", 100000 + 200);
        const size_t body = reply.find("\r\n\r\n") + 4;
        QVERIFY(reply.find("Content-Type: application/octet-stream") != std::string::npos);
        QCOMPARE(reply.size() - body, size_t(100000));
        QVERIFY(reply.compare(body, 100000, content.constData(), 100000) == 0);
        const std::string index = exchange(*m_tcp, server.port(), "GET /sub/ HTTP/1.1\r\n\r\n", 10);
        QVERIFY(index.find("<p>hi</p>") != std::string::npos || index.size() < 200);
        QVERIFY(exchange(*m_tcp, server.port(), "GET /4k.html HTTP/1.1\r\n\r\n", 20).rfind("HTTP/1.1 404", 0) == 0);
        QVERIFY(exchange(*m_tcp, server.port(), "GET /sub HTTP/1.1\r\n\r\n", 20).rfind("HTTP/1.1 404", 0) == 0);
        RunContext bad;
        bad.role = smcr::Side::server;
        bad.params = {{"root", dir.filePath("nope")}};
        bad.transport = m_tcp;
        bad.host = "127.0.0.1";
        auto r = findWorkload("http")->run(bad);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.rfind("root:", 0) == 0);
    }

    void httpSendfileOffCopiesTheBodyByteExactly() {
        // nginx "sendfile off": the body goes through a user buffer (32 KiB
        // chunks, partial writes kept); the bytes must be the same, over
        // kernel TCP and over libsmcr.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray content(300001, '\0');
        for (int i = 0; i < content.size(); ++i) content[i] = static_cast<char>((i * 7 + i / 251) % 256);
        QFile f(dir.filePath("big.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        auto smcr = transports::createTransport("smcr", {{"fabric", "sim"}});
        std::vector<std::pair<const char*, std::shared_ptr<transports::Transport>>> transports = {{"tcp", m_tcp}};
        if (smcr) transports.emplace_back("smcr", *smcr);
        for (const auto& [name, transport] : transports) {
            for (const QJsonValue& sendfile : {QJsonValue(QStringLiteral("off")), QJsonValue(true)}) {
                ServerRun server("http", {{"root", dir.path()}, {"sendfile", sendfile}}, transport);
                QVERIFY2(server.port() != 0, name);
                const std::string reply = exchange(*transport, server.port(),
                                                   "GET /big.bin HTTP/1.1\r\n\r\n"
                                                   "GET /big.bin HTTP/1.1\r\nConnection: close\r\n\r\n",
                                                   2 * (300001 + 400));
                size_t at = 0;
                for (int response = 0; response < 2; ++response) {
                    QVERIFY2(reply.compare(at, 17, "HTTP/1.1 200 OK\r\n") == 0, name);
                    const size_t body = reply.find("\r\n\r\n", at) + 4;
                    QVERIFY(reply.find("Content-Length: 300001\r\n", at) < body);
                    QVERIFY2(reply.size() >= body + 300001, name);
                    for (int i = 0; i < content.size(); ++i) {
                        if (reply[body + static_cast<size_t>(i)] != content[i])
                            QFAIL(qPrintable(
                                QStringLiteral("%1: byte %2 of response %3 differs").arg(name).arg(i).arg(response)));
                    }
                    at = body + 300001;
                }
                QCOMPARE(reply.size(), at);
                auto done = server.stop();
                QVERIFY(done.ok());
                QCOMPARE(done->params.value("sendfile").toBool(), sendfile.isBool());
                QCOMPARE(done->ops, uint64_t(2));
            }
        }
        RunContext bad;
        bad.role = smcr::Side::server;
        bad.params = {{"sendfile", "maybe"}};
        bad.transport = m_tcp;
        bad.host = "127.0.0.1";
        auto r = findWorkload("http")->run(bad);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.rfind("sendfile: must be true or false", 0) == 0, r.error().message.c_str());
    }

    void kvServerAnswersCommandsByteExactly() {
        ServerRun server("kv", {{"threads", 2}}, m_tcp);
        QVERIFY(server.port() != 0);
        const std::string value(100000, 'v');
        const std::string script = resp::encodeCommand({"PING"}) + resp::encodeCommand({"SET", "k1", value}) +
                                   resp::encodeCommand({"GET", "k1"}) + resp::encodeCommand({"GET", "nokey"}) +
                                   resp::encodeCommand({"DEL", "k1", "k2"}) +
                                   resp::encodeCommand({"CONFIG", "GET", "save"}) +
                                   resp::encodeCommand({"CONFIG", "GET", "appendonly"}) + resp::encodeCommand({"FOO"}) +
                                   "PING inline\r\n" + resp::encodeCommand({"QUIT"});
        const std::string expected = "+PONG\r\n+OK\r\n$100000\r\n" + value + "\r\n$-1\r\n:1\r\n" +
                                     "*2\r\n$4\r\nsave\r\n$0\r\n\r\n*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n" +
                                     "-ERR unknown command 'FOO'\r\n$6\r\ninline\r\n+OK\r\n";
        QCOMPARE(exchange(*m_tcp, server.port(), script, expected.size() + 1), expected);
        // A protocol error is answered and closes the connection.
        const std::string bad = exchange(*m_tcp, server.port(), "*1\r\n+x\r\n", 100);
        QVERIFY(bad.rfind("-ERR Protocol error", 0) == 0);

        int samples = 0;
        auto client = runClient("kv",
                                {{"clients", 8},
                                 {"requests", 3000},
                                 {"pipeline", 4},
                                 {"threads", 2},
                                 {"keyspace", 100},
                                 {"tests", "set,get,ping_inline,ping_mbulk"}},
                                m_tcp, server.port(), &samples);
        QVERIFY2(client.ok(), client.ok() ? "" : client.error().message.c_str());
        const QJsonArray tests = client->summary["tests"].toArray();
        QCOMPARE(tests.size(), 4);
        QCOMPARE(tests[0].toObject()["test"].toString(), QString("SET"));
        for (const QJsonValue& t : tests) {
            QCOMPARE(t.toObject()["requests"].toDouble(), 3000.0);
            QCOMPARE(t.toObject()["errors"].toDouble(), 0.0);
            QVERIFY(t.toObject()["rps"].toDouble() > 0);
        }
        QCOMPARE(client->latency.count(), uint64_t(12000));
        QCOMPARE(client->summary["server_config"].toObject()["appendonly"].toString(), QString("no"));
        // The random keys landed: the keyspace holds at most 100 keys, and GET found values.
        const std::string dbsize = exchange(*m_tcp, server.port(), resp::encodeCommand({"DBSIZE"}), 4);
        QVERIFY(dbsize.rfind(":", 0) == 0);
        const int keys = std::stoi(dbsize.substr(1));
        QVERIFY(keys > 10 && keys <= 100);
        auto noKeepalive = runClient("kv", {{"clients", 2}, {"requests", 50}, {"keepalive", false}, {"tests", "set"}},
                                     m_tcp, server.port());
        QVERIFY(noKeepalive.ok());
        auto done = server.stop();
        QVERIFY(done.ok());
        QVERIFY(done->ops >= 12000);
    }

    void stopTokenEndsClientsEarly() {
        ServerRun server("tcp_bw", {}, m_tcp);
        std::atomic<bool> stop{false};
        RunContext ctx;
        ctx.role = smcr::Side::client;
        ctx.params = {{"duration_ms", 60000}, {"warmup_ms", 0}};
        ctx.transport = m_tcp;
        ctx.host = "127.0.0.1";
        ctx.port = server.port();
        ctx.stop = &stop;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            stop.store(true);
        });
        QElapsedTimer timer;
        timer.start();
        auto r = findWorkload("tcp_bw")->run(ctx);
        stopper.join();
        QVERIFY(r.ok());
        QVERIFY(timer.elapsed() < 5000);
    }
};

QTEST_GUILESS_MAIN(TestWorkloadsLoopback)
#include "test_workloads_loopback.moc"
