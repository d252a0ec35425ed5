// Fallback to TCP and the decline paths, against kernel-TCP counterparts in
// this process: plain TCP clients and servers, and fake CLC peers that send
// exactly the bytes a test needs.
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/engine.h>
#include <smcr/fabric.h>
#include <smcr/listener.h>
#include <smcr/socket.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/decline_reasons.h>

#include <QTest>

#include "engine_fixture.h"
#include "kernel_client.h"
#include "socket_io.h"
#include "stream_pattern.h"

using namespace smclab::test;
using smcr::wire::DeclineReason;
namespace wire = smcr::wire;

namespace {

uint32_t code(DeclineReason r) {
    return static_cast<uint32_t>(r);
}

// A kernel TCP server on an ephemeral port running `serve(fd)` for one client.
class KernelServer {
public:
    explicit KernelServer(std::function<void(int)> serve) {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
        ::listen(m_fd, 8);
        socklen_t len = sizeof sa;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&sa), &len);
        m_port = ntohs(sa.sin_port);
        m_thread = std::thread([this, serve = std::move(serve)] {
            const int c = ::accept(m_fd, nullptr, nullptr);
            if (c >= 0) {
                serve(c);
                ::close(c);
            }
        });
    }
    ~KernelServer() {
        ::shutdown(m_fd, SHUT_RDWR);
        if (m_thread.joinable()) m_thread.join();
        ::close(m_fd);
    }
    uint16_t port() const { return m_port; }

private:
    int m_fd = -1;
    uint16_t m_port = 0;
    std::thread m_thread;
};

// Echo until EOF over a kernel socket.
void echoUntilEof(int fd) {
    uint8_t buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return;
        if (!writeAll(fd, buf, static_cast<size_t>(n))) return;
    }
}

}  // namespace

class TestEngineFallback : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<smcr::Engine> m_engine;

private slots:
    void initTestCase() {
        m_engine = newEngine({{"lab.clc_wait_ms", "400"}, {"lab.llc_wait_ms", "400"}, {"lab.clc_detect_ms", "150"}});
    }

    // The fallback that must stay byte-clean: plain TCP client -> libsmcr listener.
    void plainTcpClientSpeaksFirst() {
        auto l = smcr::Listener::listen("127.0.0.1", 0, 8, m_engine);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        std::vector<uint8_t> request(200000);
        fillPattern(3, 0, request.data(), request.size());
        const char head[] = "GET / HTTP/1.0\r\n";  // first bytes: not an eyecatcher
        std::memcpy(request.data(), head, sizeof head - 1);
        std::thread writer([&] { writeAll(c, request.data(), request.size()); });
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(s->fallbackReason(), code(DeclineReason::peerNoSmc));
        std::vector<uint8_t> got(request.size());
        QVERIFY(recvAll(s.value(), got.data(), got.size()));
        writer.join();
        QVERIFY(got == request);  // every byte, unchanged
        QVERIFY(s->send("ok", 2).ok());
        char reply[2];
        QVERIFY(readExact(c, reply, 2));
        QCOMPARE(std::memcmp(reply, "ok", 2), 0);
        ::close(c);
        auto eof = s->recv(reply, 2);
        QVERIFY(eof.ok() && eof.value() == 0);
    }

    void plainTcpClientWaitsForServer() {
        auto l = smcr::Listener::listen("127.0.0.1", 0, 8, m_engine);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        auto s = l->accept();  // after lab.clc_detect_ms of silence
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QVERIFY(s->send("220 hello\r\n", 11).ok());
        char banner[11];
        QVERIFY(readExact(c, banner, 11));
        QCOMPARE(std::memcmp(banner, "220 hello\r\n", 11), 0);
        QVERIFY(writeAll(c, "QUIT", 4));
        char quit[4];
        QVERIFY(recvAll(s.value(), quit, 4));
        QCOMPARE(std::memcmp(quit, "QUIT", 4), 0);
        ::close(c);
    }

    // libsmcr client -> plain TCP server that never answers the Proposal: the
    // client falls back after lab.clc_wait_ms. The Proposal's bytes cannot be
    // unsent, so such a server must skip them (here: it waits for "PING\n").
    void smcrClientToPlainTcpServer() {
        KernelServer server([](int fd) {
            std::string seen;
            char ch;
            while (seen.find("PING\n") == std::string::npos) {
                if (::recv(fd, &ch, 1, 0) != 1) return;
                seen.push_back(ch);
            }
            writeAll(fd, "PONG\n", 5);
            echoUntilEof(fd);
        });
        smcr::Socket s = connectTo(m_engine, server.port());
        QVERIFY(s.fellBack());
        QCOMPARE(s.fallbackReason(), code(DeclineReason::peerNoSmc));
        QVERIFY(s.send("PING\n", 5).ok());
        char pong[5];
        QVERIFY(recvAll(s, pong, 5));
        QCOMPARE(std::memcmp(pong, "PONG\n", 5), 0);
        QVERIFY(echoOnce(s, 42, 100000));
        s.close();
    }

    void peerDeclineFallsBackAndCarriesOn() {
        KernelServer server([](int fd) {
            auto m = readClcMessage(fd);
            if (!m || !std::holds_alternative<wire::ClcProposal>(*m)) return;
            wire::ClcDecline d;
            d.reasonCode = code(DeclineReason::noSmcDev);
            writeAll(fd, wire::encode(d).data(), wire::encode(d).size());
            echoUntilEof(fd);
        });
        smcr::Socket s = connectTo(m_engine, server.port());
        QVERIFY(s.fellBack());
        QCOMPARE(s.fallbackReason(), code(DeclineReason::peerDecl));
        QCOMPARE(s.peerDeclineReason(), code(DeclineReason::noSmcDev));
        QVERIFY(echoOnce(s, 42, 50000));
        s.close();
        const smcr::EngineStats st = m_engine->stats();
        QVERIFY(st.clientFallbackReasons.count(code(DeclineReason::peerDecl)) == 1);
        QVERIFY(st.peerDeclineReasons.count(code(DeclineReason::noSmcDev)) == 1);
    }

    // The client's own declines: (accept tweak, expected reason, out of sync).
    void clientDeclines_data() {
        QTest::addColumn<int>("variant");
        QTest::addColumn<uint32_t>("reason");
        QTest::addColumn<bool>("outOfSync");
        QTest::newRow("rmbe size code 9") << 0 << code(DeclineReason::cnfErr) << false;
        QTest::newRow("reuse of an unknown link group") << 1 << code(DeclineReason::syncErr) << true;
        QTest::newRow("no CONFIRM_LINK") << 2 << code(DeclineReason::timeoutCl) << false;
    }
    void clientDeclines() {
        QFETCH(int, variant);
        QFETCH(uint32_t, reason);
        QFETCH(bool, outOfSync);
        // A real sim QP for the fake server, so the client's QP bring-up works
        // and only the missing CONFIRM_LINK fails (variant 2).
        auto dev = smcr::fabric::openDevice("sim");
        QVERIFY(dev.ok());
        auto pd = dev.value()->allocatePd();
        auto cq = dev.value()->createCq({64, nullptr, 0});
        QVERIFY(pd.ok() && cq.ok());
        smcr::fabric::QpInit qi;
        qi.sendCq = cq.value().get();
        qi.recvCq = cq.value().get();
        qi.caps = {16, 16, 2, 1, 0};
        auto qp = pd.value()->createQp(qi);
        QVERIFY(qp.ok());
        const smcr::fabric::PortInfo port = dev.value()->info().ports.at(0);
        std::optional<wire::ClcDecline> received;
        KernelServer server([&](int fd) {
            auto m = readClcMessage(fd);
            if (!m) return;
            wire::ClcAcceptConfirm a;
            a.type = wire::ClcType::accept;
            a.firstContact = variant != 1;
            a.peerId = {9, 9, 9, 9, 9, 9, 9, 9};
            a.gid = port.gid;
            a.mac = port.mac;
            a.qpn = variant == 1 ? 0x1234 : qp.value()->qpn();
            a.rmbRkey = 1;
            a.rmbeAlertToken = 77;
            a.rmbeSizeCode = variant == 0 ? 9 : 0;
            a.rmbVaddr = 0x10000;
            a.initialPsn = 100;
            const auto bytes = wire::encode(a);
            writeAll(fd, bytes.data(), bytes.size());
            // A Confirm first where the client goes on, then its Decline.
            for (int i = 0; i < 2; ++i) {
                auto reply = readClcMessage(fd, 3000);
                if (!reply) return;
                if (auto* d = std::get_if<wire::ClcDecline>(&*reply)) {
                    received = *d;
                    break;
                }
            }
            echoUntilEof(fd);
        });
        smcr::Socket s = connectTo(m_engine, server.port());
        QVERIFY(s.fellBack());
        QCOMPARE(s.fallbackReason(), reason);
        QVERIFY(echoOnce(s, 42, 10000));  // TCP carries on
        s.close();
        QVERIFY(received.has_value());
        QCOMPARE(received->reasonCode, reason);
        QCOMPARE(received->outOfSync, outOfSync);
    }

    // The server's declines, seen by a fake client.
    void serverDeclines_data() {
        QTest::addColumn<int>("variant");
        QTest::addColumn<uint32_t>("reason");
        QTest::newRow("SMC-D only") << 0 << code(DeclineReason::modeUnsupp);
        QTest::newRow("malformed proposal") << 1 << code(DeclineReason::cnfErr);
        QTest::newRow("no Confirm") << 2 << code(DeclineReason::intErr);
    }
    void serverDeclines() {
        QFETCH(int, variant);
        QFETCH(uint32_t, reason);
        auto l = smcr::Listener::listen("127.0.0.1", 0, 8, m_engine);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        std::vector<uint8_t> bytes = wire::encode(validProposal(variant == 0 ? wire::SmcType::d : wire::SmcType::r));
        if (variant == 1) bytes[bytes.size() - 1] ^= 0xFF;  // broken trailer
        QVERIFY(writeAll(c, bytes.data(), bytes.size()));
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(s->fallbackReason(), reason);
        std::optional<wire::ClcDecline> decline;
        for (int i = 0; i < 2 && !decline; ++i) {  // an Accept may come first
            auto m = readClcMessage(c);
            QVERIFY(m.has_value());
            if (auto* d = std::get_if<wire::ClcDecline>(&*m)) decline = *d;
        }
        QVERIFY(decline.has_value());
        QCOMPARE(decline->reasonCode, reason);
        // And TCP goes on.
        QVERIFY(writeAll(c, "abc", 3));
        char got[3];
        QVERIFY(recvAll(s.value(), got, 3));
        QCOMPARE(std::memcmp(got, "abc", 3), 0);
        ::close(c);
    }

    void statsCountHandshakeErrors() {
        const smcr::EngineStats st = m_engine->stats();
        QVERIFY(st.handshakeErrors >= 6);
        QVERIFY(st.serverFallbackReasons.count(code(DeclineReason::peerNoSmc)) == 1);
        QCOMPARE(counter(st, "smcr.fallback.server.PEERNOSMC"), uint64_t{2});
    }
};

QTEST_APPLESS_MAIN(TestEngineFallback)
#include "test_engine_fallback.moc"
