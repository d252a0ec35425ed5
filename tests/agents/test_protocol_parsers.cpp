// RESP, HTTP heads and the tcp test exchange: pure parsers, byte-exact.
#include <QTest>

#include "http_parse.h"
#include "resp.h"
#include "tcp_test_protocol.h"

using namespace smclab::workloads;

class TestProtocolParsers : public QObject {
    Q_OBJECT
private slots:
    void respArrayCommand() {
        resp::Command c;
        const std::string bytes = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n*1\r\n";
        QCOMPARE(resp::parseCommand(bytes, c), resp::Parse::complete);
        QCOMPARE(c.args.size(), size_t(3));
        QCOMPARE(std::string(c.args[2]), std::string("va\r\nl"));  // binary-safe
        QCOMPARE(c.consumed, bytes.size() - 4);
    }

    void respIncompleteAtEveryCut() {
        const std::string bytes = resp::encodeCommand({"SET", "k", std::string(100, 'v')});
        resp::Command c;
        for (size_t cut = 0; cut < bytes.size(); ++cut) {
            QCOMPARE(resp::parseCommand(std::string_view(bytes).substr(0, cut), c), resp::Parse::incomplete);
        }
        QCOMPARE(resp::parseCommand(bytes, c), resp::Parse::complete);
    }

    void respInlineAndErrors() {
        resp::Command c;
        QCOMPARE(resp::parseCommand("PING  hello\r\n", c), resp::Parse::complete);
        QCOMPARE(c.args.size(), size_t(2));
        QCOMPARE(std::string(c.args[1]), std::string("hello"));
        QCOMPARE(resp::parseCommand("*1\r\n+PING\r\n", c), resp::Parse::error);
        QVERIFY(c.error.find("expected '$'") != std::string::npos);
        QCOMPARE(resp::parseCommand("*x\r\n", c), resp::Parse::error);
        QCOMPARE(resp::parseCommand("*1\r\n$-3\r\n", c), resp::Parse::error);
        QCOMPARE(resp::parseCommand("*1\r\n$2\r\nabcd\r\n", c), resp::Parse::error);
        QCOMPARE(resp::parseCommand("*1\r\n$99999999999\r\n", c), resp::Parse::error);
    }

    void respReplies() {
        size_t used = 0;
        bool err = false;
        QCOMPARE(resp::skipReply("+OK\r\n", &used, &err), resp::Parse::complete);
        QCOMPARE(used, size_t(5));
        QCOMPARE(resp::skipReply("-ERR x\r\n", &used, &err), resp::Parse::complete);
        QVERIFY(err);
        QCOMPARE(resp::skipReply("$-1\r\n:1\r\n", &used, &err), resp::Parse::complete);
        QCOMPARE(used, size_t(5));
        const std::string nested = "*2\r\n$4\r\nsave\r\n*1\r\n:7\r\n";
        QCOMPARE(resp::skipReply(nested, &used, &err), resp::Parse::complete);
        QCOMPARE(used, nested.size());
        QCOMPARE(resp::skipReply(std::string_view(nested).substr(0, nested.size() - 1), &used, &err),
                 resp::Parse::incomplete);
        QCOMPARE(resp::skipReply("$3\r\nab", &used, &err), resp::Parse::incomplete);
        QCOMPARE(resp::skipReply("?\r\n", &used, &err), resp::Parse::error);
    }

    void httpRequests() {
        auto p = http::parseRequest("GET /4k.html HTTP/1.1\r\nHost: x\r\n\r\nGET /");
        QCOMPARE(p.state, http::ParseState::complete);
        QCOMPARE(p.request.method, std::string("GET"));
        QCOMPARE(p.request.target, std::string("/4k.html"));
        QVERIFY(p.request.keepAlive);
        QCOMPARE(p.request.headBytes, size_t(34));
        p = http::parseRequest("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
        QVERIFY(!p.request.keepAlive);
        p = http::parseRequest("GET / HTTP/1.0\r\n\r\n");
        QVERIFY(!p.request.keepAlive);
        p = http::parseRequest("GET / HTTP/1.0\r\nconnection: Keep-Alive\r\n\r\n");
        QVERIFY(p.request.keepAlive);
        QCOMPARE(http::parseRequest("GET / HTTP/1.1\r\nHost: x\r\n").state, http::ParseState::incomplete);
        QCOMPARE(http::parseRequest("GARBAGE\r\n\r\n").errorStatus, 400);
        QCOMPARE(http::parseRequest("GET / HTTP/2.0\r\n\r\n").errorStatus, 505);
        QCOMPARE(http::parseRequest("GET / HTTP/1.1\r\nNoColon\r\n\r\n").errorStatus, 400);
        QCOMPARE(http::parseRequest(std::string(20000, 'a')).errorStatus, 431);
        p = http::parseRequest("POST /x HTTP/1.1\r\nContent-Length: 12\r\n\r\n");
        QCOMPARE(p.request.contentLength, uint64_t(12));
    }

    void httpPathsStayInsideTheRoot() {
        QCOMPARE(http::targetToRelativePath("/4k.html").value(), std::string("4k.html"));
        QCOMPARE(http::targetToRelativePath("/a/./b.txt?x=1").value(), std::string("a/b.txt"));
        QCOMPARE(http::targetToRelativePath("/dir/").value(), std::string("dir/index.html"));
        QCOMPARE(http::targetToRelativePath("/").value(), std::string("index.html"));
        QCOMPARE(http::targetToRelativePath("/a%20b").value(), std::string("a b"));
        QVERIFY(!http::targetToRelativePath("/../etc/passwd"));
        QVERIFY(!http::targetToRelativePath("/a/../../x"));
        QVERIFY(!http::targetToRelativePath("/%2e%2e/x"));
        QVERIFY(!http::targetToRelativePath("/a/..%2f..%2fx"));
        QVERIFY(!http::targetToRelativePath("/a%00b"));
        QVERIFY(!http::targetToRelativePath("/a\\b"));
        QVERIFY(!http::targetToRelativePath("relative"));
        QVERIFY(!http::targetToRelativePath("/%zz"));
    }

    void httpResponses() {
        auto r = http::parseResponseHead("HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\nbody");
        QCOMPARE(r.state, http::ParseState::complete);
        QCOMPARE(r.head.status, 200);
        QVERIFY(r.head.hasContentLength);
        QCOMPARE(r.head.contentLength, uint64_t(4096));
        QVERIFY(!r.head.close);
        r = http::parseResponseHead("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 3\r\n\r\n");
        QCOMPARE(r.head.status, 404);
        QVERIFY(r.head.close);
        r = http::parseResponseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
        QVERIFY(r.head.chunked);
        QCOMPARE(http::parseResponseHead("HTTP/1.1 200 OK\r\n").state, http::ParseState::incomplete);
        QCOMPARE(http::parseResponseHead("SSH-2.0\r\n\r\n").state, http::ParseState::error);
        QCOMPARE(http::parseResponseHead("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n").state,
                 http::ParseState::error);
    }

    void tcpTestExchangeRoundTrips() {
        tcptest::Hello h{tcptest::TestKind::latency, 65536, 2000, 200, tcptest::kFlagNoDelay};
        const auto bytes = tcptest::encodeHello(h);
        QCOMPARE(bytes[0], uint8_t('S'));
        QCOMPARE(bytes[8], uint8_t(0x00));
        QCOMPARE(bytes[10], uint8_t(0x01));  // 65536 little-endian
        auto back = tcptest::decodeHello(bytes.data(), bytes.size());
        QVERIFY(back.ok());
        QCOMPARE(back->test, tcptest::TestKind::latency);
        QCOMPARE(back->msgSize, 65536u);
        QCOMPARE(back->warmupMs, 200u);
        auto bad = bytes;
        bad[4] = 9;
        QCOMPARE(tcptest::decodeHello(bad.data(), bad.size()).error().code, smcr::Errc::protocolViolation);
        bad = bytes;
        bad[0] = 'G';
        QCOMPARE(tcptest::decodeHello(bad.data(), bad.size()).error().code, smcr::Errc::malformed);

        tcptest::Report r{123456789012ULL, 42, 999, 1, 2, 123456789999ULL};
        const auto rb = tcptest::encodeReport(r);
        auto rback = tcptest::decodeReport(rb.data(), rb.size());
        QVERIFY(rback.ok());
        QCOMPARE(rback->bytes, r.bytes);
        QCOMPARE(rback->totalBytes, r.totalBytes);
        QCOMPARE(rback->elapsedNs, uint64_t(999));
        const auto ack = tcptest::encodeAck(tcptest::AckStatus::badSize);
        QCOMPARE(tcptest::decodeAck(ack.data(), ack.size()).value(), tcptest::AckStatus::badSize);
    }
};

QTEST_APPLESS_MAIN(TestProtocolParsers)
#include "test_protocol_parsers.moc"
