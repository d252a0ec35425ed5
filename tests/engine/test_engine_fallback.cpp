// Fallback to TCP and the decline paths, against kernel-TCP counterparts in
// this process: plain TCP clients and servers, and fake CLC peers that send
// exactly the bytes a test needs.
#include <smcr/engine.h>
#include <smcr/fabric.h>
#include <smcr/listener.h>
#include <smcr/socket.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/decline_reasons.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QTest>

#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "stream_pattern.h"

using smcr::wire::DeclineReason;
namespace wire = smcr::wire;

namespace {

uint32_t code(DeclineReason r) { return static_cast<uint32_t>(r); }

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

int kernelConnect(uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) qFatal("connect failed");
    return fd;
}

bool writeAll(int fd, const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (len > 0) {
        const ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool readExact(int fd, void* data, size_t len, int timeoutMs = 5000) {
    auto* p = static_cast<uint8_t*>(data);
    while (len > 0) {
        pollfd pf{fd, POLLIN, 0};
        if (::poll(&pf, 1, timeoutMs) <= 0) return false;
        const ssize_t n = ::recv(fd, p, len, 0);
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

// One CLC message from a kernel socket (header, then the rest).
std::optional<wire::ClcMessage> readClcMessage(int fd, int timeoutMs = 5000) {
    std::vector<uint8_t> bytes(8);
    if (!readExact(fd, bytes.data(), 8, timeoutMs)) return std::nullopt;
    auto h = wire::peekClcHeader(bytes);
    if (!h) return std::nullopt;
    bytes.resize(h->lengthBytes);
    if (!readExact(fd, bytes.data() + 8, bytes.size() - 8, timeoutMs)) return std::nullopt;
    auto m = wire::decodeClc(bytes);
    if (!m) return std::nullopt;
    return m.value();
}

wire::ClcProposal validProposal(wire::SmcType type = wire::SmcType::r) {
    wire::ClcProposal p;
    p.version = 1;
    p.typeV1 = type;
    p.peerId = {1, 2, 3, 4, 5, 6, 7, 8};
    p.gid[0] = 0xfe;
    p.smcdArea = wire::ClcProposalSmcdArea{};
    p.ipPrefix = wire::ClcProposalIpPrefix{};
    return p;
}

// Echo until EOF over a kernel socket.
void echoUntilEof(int fd) {
    uint8_t buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return;
        if (!writeAll(fd, buf, static_cast<size_t>(n))) return;
    }
}

smcr::Socket connectOrDie(const std::shared_ptr<smcr::Engine>& engine, uint16_t port) {
    smcr::ConnectOptions o;
    o.engine = engine;
    auto s = smcr::Socket::connect("127.0.0.1", port, o);
    if (!s) qFatal("connect: %s", s.error().toString().c_str());
    return s.value();
}

bool echoRoundTrip(smcr::Socket& s, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    std::vector<uint8_t> in(bytes);
    smclab::test::fillPattern(42, 0, out.data(), bytes);
    size_t done = 0;
    while (done < bytes) {
        auto w = s.send(out.data() + done, bytes - done);
        if (!w) return false;
        done += w.value();
    }
    done = 0;
    while (done < bytes) {
        auto r = s.recv(in.data() + done, bytes - done);
        if (!r || r.value() == 0) return false;
        done += r.value();
    }
    return in == out;
}

}  // namespace

class TestEngineFallback : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<smcr::Engine> m_engine;

private slots:
    void initTestCase() {
        auto e = smcr::Engine::create({{"lab.clc_wait_ms", "400"}, {"lab.llc_wait_ms", "400"},
                                       {"lab.clc_detect_ms", "150"}});
        QVERIFY2(e.ok(), e.ok() ? "" : e.error().toString().c_str());
        m_engine = e.value();
    }

    // The fallback that must stay byte-clean: plain TCP client -> libsmcr listener.
    void plainTcpClientSpeaksFirst() {
        auto l = smcr::Listener::listen("127.0.0.1", 0, 8, m_engine);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        std::vector<uint8_t> request(200000);
        smclab::test::fillPattern(3, 0, request.data(), request.size());
        const char head[] = "GET / HTTP/1.0\r\n";  // first bytes: not an eyecatcher
        std::memcpy(request.data(), head, sizeof head - 1);
        std::thread writer([&] { writeAll(c, request.data(), request.size()); });
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(s->fallbackReason(), code(DeclineReason::peerNoSmc));
        std::vector<uint8_t> got(request.size());
        size_t done = 0;
        while (done < got.size()) {
            auto r = s->recv(got.data() + done, got.size() - done);
            QVERIFY(r.ok() && r.value() > 0);
            done += r.value();
        }
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
        size_t done = 0;
        while (done < 4) {
            auto r = s->recv(quit + done, 4 - done);
            QVERIFY(r.ok() && r.value() > 0);
            done += r.value();
        }
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
        smcr::Socket s = connectOrDie(m_engine, server.port());
        QVERIFY(s.fellBack());
        QCOMPARE(s.fallbackReason(), code(DeclineReason::peerNoSmc));
        QVERIFY(s.send("PING\n", 5).ok());
        char pong[5];
        size_t done = 0;
        while (done < 5) {
            auto r = s.recv(pong + done, 5 - done);
            QVERIFY(r.ok() && r.value() > 0);
            done += r.value();
        }
        QCOMPARE(std::memcmp(pong, "PONG\n", 5), 0);
        QVERIFY(echoRoundTrip(s, 100000));
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
        smcr::Socket s = connectOrDie(m_engine, server.port());
        QVERIFY(s.fellBack());
        QCOMPARE(s.fallbackReason(), code(DeclineReason::peerDecl));
        QCOMPARE(s.peerDeclineReason(), code(DeclineReason::noSmcDev));
        QVERIFY(echoRoundTrip(s, 50000));
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
        smcr::Socket s = connectOrDie(m_engine, server.port());
        QVERIFY(s.fellBack());
        QCOMPARE(s.fallbackReason(), reason);
        QVERIFY(echoRoundTrip(s, 10000));  // TCP carries on
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
        size_t done = 0;
        while (done < 3) {
            auto r = s->recv(got + done, 3 - done);
            QVERIFY(r.ok() && r.value() > 0);
            done += r.value();
        }
        QCOMPARE(std::memcmp(got, "abc", 3), 0);
        ::close(c);
    }

    void statsCountHandshakeErrors() {
        const smcr::EngineStats st = m_engine->stats();
        QVERIFY(st.handshakeErrors >= 6);
        QVERIFY(st.serverFallbackReasons.count(code(DeclineReason::peerNoSmc)) == 1);
        bool found = false;
        for (const auto& [name, value] : st.flatten()) {
            if (name == "smcr.fallback.server.PEERNOSMC") found = value == 2;
        }
        QVERIFY(found);
    }
};

QTEST_APPLESS_MAIN(TestEngineFallback)
#include "test_engine_fallback.moc"
