// The listener's accept path (lab.fast_fallback, limit_smc_hs; seed 003):
// plain TCP and SMC clients against one listener, a slow SMC handshake that
// must not hold up TCP clients (and does with fast fallback off), the
// congestion decline, and first bytes that arrive broken or in pieces.
// Fake CLC clients are kernel sockets that send exactly the bytes a test
// needs; real SMC clients use a second engine in this process.
#include <atomic>
#include <chrono>
#include <cstring>
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
#include <smcr/wire/decline_reasons.h>

#include <QTest>

#include "core/listener/accept_queues.h"
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

bool readable(int fd) {
    pollfd pf{fd, POLLIN, 0};
    return ::poll(&pf, 1, 0) > 0;
}

// A fake SMC client that sends its Proposal and then stays silent: the
// server sends its Accept and its worker waits lab.clc_wait_ms for a Confirm.
int stallingClient(uint16_t port) {
    const int fd = kernelConnect(port);
    const std::vector<uint8_t> p = wire::encode(validProposal());
    if (!writeAll(fd, p.data(), p.size())) qFatal("proposal not sent");
    return fd;
}

// Echoes until EOF on an accepted socket.
void echo(smcr::Socket s) {
    std::vector<uint8_t> buf(16384);
    for (;;) {
        auto r = s.recv(buf.data(), buf.size());
        if (!r || r.value() == 0) break;
        if (!sendAll(s, buf.data(), r.value())) break;
    }
    s.close();
}

}  // namespace

class TestEngineAccept : public QObject {
    Q_OBJECT

private slots:
    // accept() alternates between the queues while both hold sockets.
    void acceptQueuesAlternate() {
        using smcr::core::AcceptSource;
        smcr::core::AcceptQueues<int> q;
        for (int i = 1; i <= 4; ++i) q.push(AcceptSource::fastPath, i);
        q.push(AcceptSource::handshake, 101);
        q.push(AcceptSource::handshake, 102);
        QCOMPARE(q.size(), size_t{6});
        std::vector<int> order;
        while (auto v = q.pop()) order.push_back(*v);
        QCOMPARE(order, (std::vector<int>{1, 101, 2, 102, 3, 4}));
        QVERIFY(q.empty());
        q.push(AcceptSource::handshake, 7);
        q.push(AcceptSource::handshake, 8);
        QCOMPARE(*q.pop(), 7);
        q.push(AcceptSource::fastPath, 9);
        QCOMPARE(*q.pop(), 9);  // the handshake queue was served last
        QCOMPARE(*q.pop(), 8);
    }

    // Plain TCP and SMC clients at once: every one served, every byte intact,
    // TCP ones over the fast path, SMC ones over SMC-R.
    void mixedClientsAllServed() {
        auto server = newEngine({{"lab.clc_detect_ms", "2000"}});
        auto client = newEngine({});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 64, server);
        QVERIFY(l.ok());
        constexpr int kTcp = 6;
        constexpr int kSmc = 3;
        std::atomic<int> smcAccepted{0};
        std::atomic<int> tcpAccepted{0};
        std::thread acceptor([&] {
            std::vector<std::thread> echoes;
            for (int i = 0; i < kTcp + kSmc; ++i) {
                auto s = l->accept();
                if (!s) break;
                (s->fellBack() ? tcpAccepted : smcAccepted)++;
                echoes.emplace_back(echo, std::move(s.value()));
            }
            for (auto& t : echoes) t.join();
        });
        std::vector<std::string> errors(kTcp + kSmc);
        std::vector<std::thread> clients;
        for (int i = 0; i < kTcp; ++i) {
            clients.emplace_back([&, i] {
                const int fd = kernelConnect(l->localPort());
                std::vector<uint8_t> out(30000 + i * 1000), in(out.size());
                smclab::test::fillPattern(100 + i, 0, out.data(), out.size());
                std::thread w([&] { writeAll(fd, out.data(), out.size()); });
                if (!readExact(fd, in.data(), in.size(), 10000))
                    errors[i] = "tcp: short echo";
                else if (in != out)
                    errors[i] = "tcp: bytes differ";
                w.join();
                ::close(fd);
            });
        }
        for (int i = 0; i < kSmc; ++i) {
            clients.emplace_back([&, i] {
                smcr::ConnectOptions o;
                o.engine = client;
                auto s = smcr::Socket::connect("127.0.0.1", l->localPort(), o);
                if (!s) {
                    errors[kTcp + i] = "smc: connect failed";
                    return;
                }
                if (s->fellBack()) errors[kTcp + i] = "smc: fell back";
                std::vector<uint8_t> out(50000), in(out.size());
                smclab::test::fillPattern(200 + i, 0, out.data(), out.size());
                std::thread w([&] { sendAll(s.value(), out.data(), out.size()); });
                if (!recvAll(s.value(), in.data(), in.size()))
                    errors[kTcp + i] = "smc: short echo";
                else if (in != out)
                    errors[kTcp + i] = "smc: bytes differ";
                w.join();
                s->close();
            });
        }
        for (auto& t : clients) t.join();
        acceptor.join();
        for (const std::string& e : errors) QVERIFY2(e.empty(), e.c_str());
        QCOMPARE(tcpAccepted.load(), kTcp);
        QCOMPARE(smcAccepted.load(), kSmc);
        const smcr::EngineStats st = server->stats();
        QCOMPARE(st.fastFallbackAccepts, uint64_t{kTcp});
        QCOMPARE(st.serverSuccess, uint64_t{kSmc});
        QVERIFY(st.hsQueueDepthMax >= 1);
        QCOMPARE(counter(st, "smcr.fast_fallback_accepts"), uint64_t{kTcp});
        l->close();
    }

    // A handshake stuck waiting for a Confirm holds the worker; a plain TCP
    // client that comes after it is accepted while it is still stuck.
    void slowHandshakeDoesNotDelayTcp() {
        auto server = newEngine({{"lab.clc_wait_ms", "8000"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int stalled = stallingClient(l->localPort());
        auto accept = readClcMessage(stalled);  // the worker is in the handshake now
        QVERIFY(accept.has_value() && std::holds_alternative<wire::ClcAcceptConfirm>(*accept));
        const int tcp = kernelConnect(l->localPort());
        QVERIFY(writeAll(tcp, "hello", 5));
        QVERIFY(l->setTimeoutMs(5000).ok());
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(s->fallbackReason(), code(DeclineReason::peerNoSmc));
        char got[5];
        QVERIFY(recvAll(s.value(), got, 5));
        QCOMPARE(std::memcmp(got, "hello", 5), 0);
        QVERIFY(!readable(stalled));  // its handshake has not ended: no Decline yet
        ::close(tcp);
        ::close(stalled);  // ends the stuck handshake (EOF where the Confirm should be)
        l->close();
    }

    // Without the fast path the same TCP client waits behind the stuck
    // handshake: the stalled client has its Decline before TCP is accepted.
    void withoutFastFallbackTcpWaitsForTheWorker() {
        auto server = newEngine({{"lab.clc_wait_ms", "300"}, {"lab.fast_fallback", "off"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int stalled = stallingClient(l->localPort());
        auto accept = readClcMessage(stalled);
        QVERIFY(accept.has_value());
        const int tcp = kernelConnect(l->localPort());
        QVERIFY(writeAll(tcp, "hello", 5));
        QVERIFY(l->setTimeoutMs(5000).ok());
        auto first = l->accept();  // the stalled one, fallen back after lab.clc_wait_ms
        QVERIFY(first.ok());
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        auto decline = readClcMessage(stalled, 0);
        QVERIFY(decline.has_value() && std::holds_alternative<wire::ClcDecline>(*decline));
        char got[5];
        QVERIFY(recvAll(s.value(), got, 5));
        QCOMPARE(std::memcmp(got, "hello", 5), 0);
        QCOMPARE(server->stats().fastFallbackAccepts, uint64_t{0});
        ::close(tcp);
        ::close(stalled);
        l->close();
    }

    // limit_smc_hs: one handshake running and one waiting make the queue
    // congested; the next SMC client is declined at once (PEERNOSMC, as the
    // kernel counts a connection whose SYN-ACK lacked the SMC option) and
    // carries on over TCP without its Proposal in the stream.
    void limitSmcHsDeclinesAtOnce() {
        auto server = newEngine({{"lab.clc_wait_ms", "8000"}, {"limit_smc_hs", "on"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int running = stallingClient(l->localPort());
        QVERIFY(readClcMessage(running).has_value());  // its handshake holds the worker
        const int waiting = stallingClient(l->localPort());
        QVERIFY(waitFor([&] { return server->stats().hsQueueDepthMax >= 2; }));
        const int third = stallingClient(l->localPort());
        auto decline = readClcMessage(third);
        QVERIFY(decline.has_value());
        const auto* d = std::get_if<wire::ClcDecline>(&*decline);
        QVERIFY(d != nullptr);
        QCOMPARE(d->reasonCode, code(DeclineReason::peerNoSmc));
        QVERIFY(!readable(running));  // declined while the first handshake is still stuck
        QVERIFY(writeAll(third, "after", 5));
        QVERIFY(l->setTimeoutMs(5000).ok());
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(s->fallbackReason(), code(DeclineReason::peerNoSmc));
        char got[5];
        QVERIFY(recvAll(s.value(), got, 5));  // the Proposal was taken off the stream
        QCOMPARE(std::memcmp(got, "after", 5), 0);
        // A libsmcr client meets the same congestion: the peer's Decline.
        auto clientEngine = newEngine();
        smcr::Socket real = connectTo(clientEngine, l->localPort());
        QVERIFY(real.fellBack());
        QCOMPARE(real.fallbackReason(), code(DeclineReason::peerDecl));
        QCOMPARE(real.peerDeclineReason(), code(DeclineReason::peerNoSmc));
        QVERIFY(sendAll(real, "zz", 2));
        auto served = l->accept();
        QVERIFY(served.ok());
        QVERIFY(served->fellBack());
        QVERIFY(recvAll(served.value(), got, 2));
        QCOMPARE(std::memcmp(got, "zz", 2), 0);
        QVERIFY(!readable(running));
        const smcr::EngineStats st = server->stats();
        QCOMPARE(st.limitHsFallbacks, uint64_t{2});
        QCOMPARE(counter(st, "smcr.limit_hs_fallbacks"), uint64_t{2});
        QCOMPARE(counter(st, "smcr.fallback.server.PEERNOSMC"), uint64_t{2});
        real.close();
        ::close(running);
        ::close(waiting);
        ::close(third);
        l->close();
    }

    // Without limit_smc_hs the third client waits its turn.
    void withoutLimitSmcHsNoDecline() {
        auto server = newEngine({{"lab.clc_wait_ms", "8000"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int running = stallingClient(l->localPort());
        QVERIFY(readClcMessage(running).has_value());
        const int waiting = stallingClient(l->localPort());
        const int third = stallingClient(l->localPort());
        QVERIFY(waitFor([&] { return server->stats().hsQueueDepthMax >= 3; }));
        QVERIFY(!readable(third));
        QCOMPARE(server->stats().limitHsFallbacks, uint64_t{0});
        ::close(running);
        ::close(waiting);
        ::close(third);
        l->close();
    }

    // First bytes that are not (or not yet, or never) a whole Proposal.
    void badFirstBytes_data() {
        QTest::addColumn<QByteArray>("first");
        QTest::addColumn<QByteArray>("later");
        QTest::addColumn<bool>("fast");
        QTest::newRow("plain text") << QByteArray("GET / HTTP/1.0\r\n") << QByteArray() << true;
        QTest::newRow("half eyecatcher, then text") << QByteArray("\xE2\xD4", 2) << QByteArray("xy") << true;
        QTest::newRow("half eyecatcher, then silence") << QByteArray("\xE2\xD4", 2) << QByteArray() << true;
        QTest::newRow("eyecatcher of another protocol") << QByteArray("\xE2\xD4\xC3\x00", 4) << QByteArray() << true;
        QTest::newRow("fast fallback off, plain text") << QByteArray("GET / HTTP/1.0\r\n") << QByteArray() << false;
    }
    void badFirstBytes() {
        QFETCH(QByteArray, first);
        QFETCH(QByteArray, later);
        QFETCH(bool, fast);
        auto server = newEngine({{"lab.clc_detect_ms", "150"}, {"lab.fast_fallback", fast ? "on" : "off"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        QVERIFY(writeAll(c, first.constData(), static_cast<size_t>(first.size())));
        if (!later.isEmpty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            QVERIFY(writeAll(c, later.constData(), static_cast<size_t>(later.size())));
        }
        QVERIFY(l->setTimeoutMs(5000).ok());
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(s->fallbackReason(), code(DeclineReason::peerNoSmc));
        const QByteArray all = first + later;
        QByteArray got(all.size(), '\0');
        QVERIFY(recvAll(s.value(), got.data(), static_cast<size_t>(got.size())));
        QCOMPARE(got, all);  // every byte, unchanged
        QCOMPARE(server->stats().fastFallbackAccepts, uint64_t{fast ? 1u : 0u});
        ::close(c);
        l->close();
    }

    // A Proposal that arrives in pieces is still an SMC client: the acceptor
    // waits for the rest (edge-triggered, no timer) and the worker answers.
    void proposalInPieces() {
        auto server = newEngine({{"lab.clc_detect_ms", "2000"}, {"lab.clc_wait_ms", "400"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        const std::vector<uint8_t> p = wire::encode(validProposal());
        QVERIFY(writeAll(c, p.data(), 2));
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QVERIFY(writeAll(c, p.data() + 2, 5));
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QVERIFY(writeAll(c, p.data() + 7, p.size() - 7));
        auto m = readClcMessage(c);
        QVERIFY(m.has_value());
        const auto* a = std::get_if<wire::ClcAcceptConfirm>(&*m);
        QVERIFY(a != nullptr && a->type == wire::ClcType::accept);
        ::close(c);
        QCOMPARE(server->stats().fastFallbackAccepts, uint64_t{0});
        l->close();
    }

    // Half a Proposal, then nothing: the worker's CLC wait decides (plain
    // TCP, the peer never finished a CLC message).
    void partialProposalTimesOut() {
        auto server = newEngine({{"lab.clc_detect_ms", "100"}, {"lab.clc_wait_ms", "200"}});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        const int c = kernelConnect(l->localPort());
        const std::vector<uint8_t> p = wire::encode(validProposal());
        QVERIFY(writeAll(c, p.data(), 20));
        QVERIFY(l->setTimeoutMs(5000).ok());
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        QCOMPARE(server->stats().fastFallbackAccepts, uint64_t{0});
        QVERIFY(server->stats().hsQueueDepthMax >= 1);
        ::close(c);
        l->close();
    }

    // A client that connects and closes at once: a TCP socket at EOF.
    void immediateClose() {
        auto server = newEngine({});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        ::close(kernelConnect(l->localPort()));
        QVERIFY(l->setTimeoutMs(5000).ok());
        auto s = l->accept();
        QVERIFY(s.ok());
        QVERIFY(s->fellBack());
        char b;
        // The peer's FIN, not a reset: end of stream (recv returns 0, socket.h).
        auto r = s->recv(&b, 1);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r.value(), size_t{0});
        l->close();
    }

    // A Poller sees the listener readable when a fast-path socket is queued.
    void pollerSeesFastPathSocket() {
        auto server = newEngine({});
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
        QVERIFY(l.ok());
        auto poller = smcr::Poller::create(server);
        QVERIFY(poller.ok());
        int tag = 0;
        QVERIFY(poller->add(l.value(), POLLIN, &tag).ok());
        smcr::PollEvent ev[4];
        auto none = poller->wait(ev, 0);
        QVERIFY(none.ok() && none.value() == 0);
        const int c = kernelConnect(l->localPort());
        QVERIFY(writeAll(c, "x", 1));
        auto n = poller->wait(ev, 5000);
        QVERIFY(n.ok() && n.value() == 1);
        QCOMPARE(ev[0].userData, static_cast<void*>(&tag));
        QVERIFY(l->setNonBlocking(true).ok());
        auto s = l->accept();
        QVERIFY(s.ok() && s->fellBack());
        auto empty = l->accept();
        QVERIFY(!empty.ok());
        QCOMPARE(empty.error().code, smcr::Errc::wouldBlock);
        QVERIFY(poller->remove(l.value()).ok());
        ::close(c);
        l->close();
    }
};

QTEST_APPLESS_MAIN(TestEngineAccept)
#include "test_engine_accept.moc"
