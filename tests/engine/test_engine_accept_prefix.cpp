// The fast fallback sort takes a plain TCP client's first bytes off its
// socket (one recv() instead of a MSG_PEEK and the application's first read,
// core/listener/rx_prefix.h); the accepted socket must serve them exactly as the
// kernel would have: byte for byte across the boundary to the kernel's
// bytes whatever the read sizes, MSG_PEEK without consuming, in non-blocking
// mode, as POLLIN for waitReady() and a Poller, and after a handshake that
// read them and fell back.
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/poller.h>
#include <smcr/socket.h>
#include <smcr/wire/clc.h>

#include <QTest>

#include "core/listener/rx_prefix.h"
#include "core/listener/smc_detect.h"
#include "core/shell/socket_impl.h"
#include "engine_fixture.h"
#include "kernel_client.h"
#include "socket_io.h"
#include "stream_pattern.h"

using namespace smclab::test;
namespace wire = smcr::wire;

namespace {

// A listener with fast fallback on and a client that has sent `bytes`
// before the server accepts, so the sort's one read finds them there.
struct Accepted {
    std::shared_ptr<smcr::Engine> engine;
    std::optional<smcr::Listener> listener;
    smcr::Socket sock;
    int client = -1;
};

Accepted acceptAfter(const std::vector<uint8_t>& bytes, const SettingList& extra = {}) {
    Accepted a;
    SettingList settings = {{"lab.fast_fallback", "on"}, {"lab.clc_detect_ms", "2000"}};
    settings.insert(settings.end(), extra.begin(), extra.end());
    a.engine = newEngine(settings);
    auto l = smcr::Listener::listen("127.0.0.1", 0, 16, a.engine);
    if (!l) qFatal("listen failed");
    a.listener.emplace(std::move(l.value()));
    a.client = kernelConnect(a.listener->localPort());
    if (!bytes.empty() && !writeAll(a.client, bytes.data(), bytes.size())) qFatal("client write failed");
    if (!a.listener->setTimeoutMs(5000).ok()) qFatal("setTimeoutMs failed");
    auto s = a.listener->accept();
    if (!s) qFatal("accept failed: %s", s.error().toString().c_str());
    a.sock = std::move(s.value());
    return a;
}

// A plain TCP request: a pattern that does not start like an eyecatcher.
std::vector<uint8_t> request(size_t n, uint64_t seed) {
    std::vector<uint8_t> v(n);
    fillPattern(seed, 0, v.data(), n);
    v[0] = 'G';
    return v;
}

void finish(Accepted& a) {
    a.sock.close();
    ::close(a.client);
    a.listener->close();
}

}  // namespace

class TestEngineAcceptPrefix : public QObject {
    Q_OBJECT

private slots:
    void rxPrefixTakeAndPeek() {
        smcr::core::RxPrefix p;
        QVERIFY(p.empty());
        uint8_t out[16] = {};
        QCOMPARE(p.take(out, sizeof out, false), size_t{0});
        p.set({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        QCOMPARE(p.size(), size_t{10});
        QCOMPARE(p.take(out, 4, true), size_t{4});  // peek: stays
        QCOMPARE(std::vector<uint8_t>(out, out + 4), (std::vector<uint8_t>{1, 2, 3, 4}));
        QCOMPARE(p.size(), size_t{10});
        QCOMPARE(p.take(out, 3, false), size_t{3});
        QCOMPARE(std::vector<uint8_t>(out, out + 3), (std::vector<uint8_t>{1, 2, 3}));
        QCOMPARE(p.take(out, 0, false), size_t{0});
        QCOMPARE(p.take(out, sizeof out, true), size_t{7});
        QCOMPARE(p.size(), size_t{7});
        QCOMPARE(p.take(out, sizeof out, false), size_t{7});  // a short read: what is held
        QCOMPARE(std::vector<uint8_t>(out, out + 7), (std::vector<uint8_t>{4, 5, 6, 7, 8, 9, 10}));
        QVERIFY(p.empty());
        QCOMPARE(p.take(out, sizeof out, false), size_t{0});
    }

    // The consuming read decides as the peek did and keeps every byte.
    void readSmcClientKeepsBytes() {
        int sv[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        std::vector<uint8_t> prefix;
        QCOMPARE(smcr::core::readSmcClient(sv[0], prefix), smcr::core::DetectResult::silent);
        QVERIFY(prefix.empty());
        QVERIFY(writeAll(sv[1], "\xE2\xD4", 2));
        QCOMPARE(smcr::core::readSmcClient(sv[0], prefix), smcr::core::DetectResult::silent);
        QCOMPARE(prefix.size(), size_t{2});
        QVERIFY(writeAll(sv[1], "\xC3\xD9rest", 6));
        QCOMPARE(smcr::core::readSmcClient(sv[0], prefix), smcr::core::DetectResult::smc);
        QCOMPARE(prefix, (std::vector<uint8_t>{0xE2, 0xD4, 0xC3, 0xD9, 'r', 'e', 's', 't'}));
        prefix.clear();
        QVERIFY(writeAll(sv[1], "\xE2x", 2));
        QCOMPARE(smcr::core::readSmcClient(sv[0], prefix), smcr::core::DetectResult::plainTcp);
        QCOMPARE(prefix, (std::vector<uint8_t>{0xE2, 'x'}));
        // Never more than kFirstReadBytes: the rest stays on the socket.
        prefix.clear();
        const std::vector<uint8_t> big = request(smcr::core::kFirstReadBytes + 100, 5);
        QVERIFY(writeAll(sv[1], big.data(), big.size()));
        QCOMPARE(smcr::core::readSmcClient(sv[0], prefix), smcr::core::DetectResult::plainTcp);
        QCOMPARE(prefix.size(), smcr::core::kFirstReadBytes);
        ::close(sv[1]);
        prefix.clear();
        std::vector<uint8_t> rest(200);
        QCOMPARE(::recv(sv[0], rest.data(), rest.size(), 0), ssize_t{100});
        QCOMPARE(smcr::core::readSmcClient(sv[0], prefix), smcr::core::DetectResult::closed);
        ::close(sv[0]);
    }

    // Byte for byte whatever the read sizes, across the boundary between the
    // held bytes and the kernel's, then EOF.
    void byteExactAcrossTheBoundary_data() {
        QTest::addColumn<int>("chunk");
        QTest::addColumn<int>("total");
        for (int chunk : {1, 3, 7, 64, 1000, 2047, 2048, 2049, 65536}) {
            QTest::newRow(("chunk " + std::to_string(chunk)).c_str()) << chunk << 6000;
        }
        QTest::newRow("request smaller than one read") << 4096 << 100;
    }
    void byteExactAcrossTheBoundary() {
        QFETCH(int, chunk);
        QFETCH(int, total);
        const std::vector<uint8_t> sent = request(static_cast<size_t>(total), 11);
        Accepted a = acceptAfter(sent);
        QVERIFY(a.sock.fellBack());
        QVERIFY(a.sock.impl()->hasPrefix());  // the sort's read took the first bytes
        QCOMPARE(a.engine->stats().fastFallbackAccepts, uint64_t{1});
        std::vector<uint8_t> got;
        std::vector<uint8_t> buf(static_cast<size_t>(chunk));
        while (got.size() < sent.size()) {
            auto r = a.sock.recv(buf.data(), buf.size());
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            QVERIFY(r.value() > 0);
            QVERIFY(r.value() <= buf.size());
            got.insert(got.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(r.value()));
        }
        QCOMPARE(got.size(), sent.size());
        QVERIFY(got == sent);
        QVERIFY(!a.sock.impl()->hasPrefix());
        ::shutdown(a.client, SHUT_WR);
        auto eof = a.sock.recv(buf.data(), buf.size());
        QVERIFY(eof.ok());
        QCOMPARE(eof.value(), size_t{0});
        finish(a);
    }

    // MSG_PEEK shows the held bytes and leaves them; reads take them in order;
    // the kernel's bytes follow.
    void peekOnHeldBytes() {
        const std::string hello = "hello world";
        Accepted a = acceptAfter(std::vector<uint8_t>(hello.begin(), hello.end()));
        QVERIFY(a.sock.impl()->hasPrefix());
        char buf[64] = {};
        auto r = a.sock.recv(buf, 5, MSG_PEEK);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), std::string("hello"));
        r = a.sock.recv(buf, sizeof buf, MSG_PEEK);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), hello);
        r = a.sock.recv(buf, 3);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), std::string("hel"));
        r = a.sock.recv(buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), std::string("lo world"));
        r = a.sock.recv(buf, sizeof buf);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), std::string("lo world"));
        QVERIFY(!a.sock.impl()->hasPrefix());
        QVERIFY(writeAll(a.client, "!!", 2));
        r = a.sock.recv(buf, sizeof buf, MSG_PEEK);  // now the kernel's bytes
        QVERIFY(r.ok());
        QVERIFY(r.value() >= 1);
        QCOMPARE(buf[0], '!');
        char two[2];
        QVERIFY(recvAll(a.sock, two, 2));
        QCOMPARE(std::string(two, 2), std::string("!!"));
        finish(a);
    }

    // Non-blocking: held bytes come at once, then "would block" until the
    // client sends more; waitReady() reports POLLIN for held bytes without
    // sleeping though the kernel socket is empty.
    void nonBlockingHeldBytes() {
        Accepted a = acceptAfter({'a', 'b', 'c'});
        QVERIFY(a.sock.setNonBlocking(true).ok());
        QVERIFY(!readable_(a));
        auto ready = a.sock.waitReady(POLLIN, 5000);
        QVERIFY(ready.ok());
        QVERIFY((ready.value() & POLLIN) != 0);
        char buf[16];
        auto r = a.sock.recv(buf, 1);
        QVERIFY(r.ok());
        QCOMPARE(r.value(), size_t{1});
        QCOMPARE(buf[0], 'a');
        r = a.sock.recv(buf, sizeof buf);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), std::string("bc"));
        r = a.sock.recv(buf, sizeof buf);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, smcr::Errc::wouldBlock);
        ready = a.sock.waitReady(POLLIN, 0);
        QVERIFY(ready.ok());
        QCOMPARE(ready.value() & POLLIN, 0u);
        QVERIFY(writeAll(a.client, "d", 1));
        ready = a.sock.waitReady(POLLIN, 5000);
        QVERIFY(ready.ok() && (ready.value() & POLLIN) != 0);
        r = a.sock.recv(buf, sizeof buf);
        QVERIFY(r.ok());
        QCOMPARE(std::string(buf, r.value()), std::string("d"));
        finish(a);
    }

    // A Poller reports a socket with held bytes readable (its kernel socket
    // is not), once per wait, until they are read.
    void pollerSeesHeldBytes() {
        Accepted a = acceptAfter({'x', 'y', 'z'});
        auto poller = smcr::Poller::create(a.engine);
        QVERIFY(poller.ok());
        int tag = 0;
        QVERIFY(poller->add(a.sock, POLLIN, &tag).ok());
        smcr::PollEvent ev[4];
        auto n = poller->wait(ev, 5000);
        QVERIFY(n.ok());
        QCOMPARE(n.value(), size_t{1});
        QCOMPARE(ev[0].userData, static_cast<void*>(&tag));
        QVERIFY((ev[0].events & POLLIN) != 0);
        // Level-triggered: still there on the next wait, also through fd().
        pollfd pf{poller->fd(), POLLIN, 0};
        QCOMPARE(::poll(&pf, 1, 1000), 1);
        n = poller->wait(ev, 0);
        QVERIFY(n.ok());
        QCOMPARE(n.value(), size_t{1});
        // Kernel bytes too: still one event for the socket.
        QVERIFY(writeAll(a.client, "!", 1));
        QVERIFY(waitFor([&] { return readable_(a); }));
        n = poller->wait(ev, 0);
        QVERIFY(n.ok());
        QCOMPARE(n.value(), size_t{1});
        char buf[8];
        QVERIFY(recvAll(a.sock, buf, 4));
        QCOMPARE(std::string(buf, 4), std::string("xyz!"));
        n = poller->wait(ev, 50);
        QVERIFY(n.ok());
        QCOMPARE(n.value(), size_t{0});
        QVERIFY(writeAll(a.client, "?", 1));
        n = poller->wait(ev, 5000);
        QVERIFY(n.ok());
        QCOMPARE(n.value(), size_t{1});
        QVERIFY(poller->remove(a.sock).ok());
        finish(a);
    }

    // The sorted socket names its peer as "a.b.c.d:port" (formatted by hand
    // in the accept path).
    void peerAddressOfSortedSocket() {
        Accepted a = acceptAfter({'h', 'i'});
        sockaddr_in local{};
        socklen_t len = sizeof local;
        QCOMPARE(::getsockname(a.client, reinterpret_cast<sockaddr*>(&local), &len), 0);
        QCOMPARE(a.sock.peerAddress(), "127.0.0.1:" + std::to_string(ntohs(local.sin_port)));
        finish(a);
    }

    // An eyecatcher followed by a header that is not CLC: the worker's CLC
    // reader takes the bytes the sort read, fails, and the fallback socket
    // hands every one of them to the application (CNFERR Decline to the
    // client first, as before).
    void handshakeFallbackKeepsBytes() {
        std::vector<uint8_t> sent = {0xE2, 0xD4, 0xC3, 0xD9, 0x09, 0x00, 0x20, 0x10};
        const std::vector<uint8_t> tail = request(40, 3);
        sent.insert(sent.end(), tail.begin(), tail.end());
        Accepted a = acceptAfter(sent, {{"lab.clc_wait_ms", "500"}});
        QVERIFY(a.sock.fellBack());
        QCOMPARE(a.engine->stats().fastFallbackAccepts, uint64_t{0});  // went through the worker
        auto decline = readClcMessage(a.client);
        QVERIFY(decline.has_value() && std::holds_alternative<wire::ClcDecline>(*decline));
        std::vector<uint8_t> got(sent.size());
        QVERIFY(recvAll(a.sock, got.data(), got.size()));
        QVERIFY(got == sent);
        finish(a);
    }

private:
    static bool readable_(Accepted& a) {
        pollfd pf{a.sock.impl()->tcpFd(), POLLIN, 0};
        return ::poll(&pf, 1, 0) > 0;
    }
};

QTEST_APPLESS_MAIN(TestEngineAcceptPrefix)
#include "test_engine_accept_prefix.moc"
