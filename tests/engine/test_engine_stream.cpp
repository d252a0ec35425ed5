// libsmcr between two real processes over the sim fabric: stream integrity in
// both directions with RMB wrap-around, 255 connections on one link group,
// link-group reuse, orderly close, and a peer killed mid-transfer.
#include <chrono>
#include <thread>
#include <vector>

#include <smcr/engine.h>
#include <smcr/poller.h>
#include <smcr/socket.h>

#include <QTest>

#include "engine_fixture.h"
#include "peer_process.h"
#include "socket_io.h"
#include "stream_pattern.h"
#include "stream_transfer.h"

using namespace smclab::test;

class TestEngineStream : public QObject {
    Q_OBJECT
private slots:
    void duplexIntegrityWithWrapAround() {
        const uint64_t bytes = 12ull << 20;  // ~190 wraps of a 64 KiB RMB each way
        const uint64_t seed = 1000;
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"duplex", std::to_string(bytes), std::to_string(seed)}, &error),
                 error.c_str());
        auto engine = newEngine();
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(20000).ok());
        // Send stream seed+1 while receiving stream seed, random sizes 1 B..1 MiB.
        const DuplexRun run = runDuplex(s, bytes, seed + 1, seed);
        QVERIFY2(run.error().empty(), run.error().c_str());
        QCOMPARE(run.receive.received, bytes);
        const smcr::ConnectionStats cs = s.stats();
        QCOMPARE(cs.txBytes, bytes);
        QCOMPARE(cs.rxBytes, bytes);
        QVERIFY(cs.rdmaWrites >= cs.cdcSent / 2);
        QVERIFY(cs.cdcReceived > bytes / (64 * 1024));
        s.close();
        QCOMPARE(peer.wait(20000), 0);
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.clientSuccess, 1ull);
        QCOMPARE(es.linkGroupsCreated, 1ull);
    }

    void manyConnectionsShareOneLinkGroup() {
        const int conns = 255;
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", std::to_string(conns + 2)}, &error), error.c_str());
        // Small buffers: 257 connections x 2 x 16 KiB.
        auto engine = newEngine({{"wmem", "16K"}, {"rmem", "16K"}});
        std::vector<smcr::Socket> sockets;
        for (int i = 0; i < conns; ++i) {
            sockets.push_back(connectTo(engine, peer.port()));
            QVERIFY2(!sockets.back().fellBack(), qPrintable(QString("connection %1 fell back").arg(i)));
        }
        smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linkGroupsCreated, 1ull);  // one QP for all 255
        QCOMPARE(es.linkGroupReuses, uint64_t(conns - 1));
        // Every connection carries its own bytes.
        for (int i = 0; i < conns; ++i) {
            QVERIFY(sockets[size_t(i)].setTimeoutMs(10000).ok());
            QVERIFY(echoOnce(sockets[size_t(i)], uint64_t(i), 64));
        }
        // The 256th connection does not fit (smcr_max_conns_per_lgr = 255).
        smcr::Socket extra = connectTo(engine, peer.port());
        QVERIFY(!extra.fellBack());
        QCOMPARE(engine->stats().linkGroupsCreated, 2ull);
        // Closing frees slots; the group lingers and is reused without a new QP.
        for (auto& s : sockets) s.close();
        extra.close();
        // A buffer returns to the pool once the peer has closed its side too.
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().connectionsActive, 0ull, 10000);
        smcr::Socket again = connectTo(engine, peer.port());
        QVERIFY2(!again.fellBack(), fallbackText(again).c_str());
        es = engine->stats();
        QCOMPARE(es.linkGroupsCreated, 2ull);
        QVERIFY(es.rmbReuses >= 1);
        again.close();
        QCOMPARE(peer.wait(20000), 0);
    }

    // One thread on each side serves 1000 connections through a Poller.
    void pollerServesThousandConnections() {
        const int conns = 1000;
        const size_t bytes = 4096;
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", std::to_string(conns)}, &error), error.c_str());
        auto engine = newEngine({{"wmem", "16K"}, {"rmem", "16K"}});
        struct Conn {
            smcr::Socket sock;
            size_t sent = 0;
            size_t received = 0;
            std::vector<uint8_t> out;
        };
        std::vector<Conn> all(conns);
        auto poller = smcr::Poller::create(engine);
        QVERIFY(poller.ok());
        for (int i = 0; i < conns; ++i) {
            Conn& c = all[size_t(i)];
            c.sock = connectTo(engine, peer.port());
            QVERIFY(!c.sock.fellBack());
            QVERIFY(c.sock.setNonBlocking(true).ok());
            c.out.resize(bytes);
            fillPattern(uint64_t(i) + 5000, 0, c.out.data(), bytes);
            QVERIFY(poller->add(c.sock, POLLIN | POLLOUT, &c).ok());
        }
        QCOMPARE(engine->stats().linkGroupsCreated, 4ull);  // ceil(1000 / 255)
        int done = 0;
        std::vector<smcr::PollEvent> events(128);
        std::vector<uint8_t> buf(bytes);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (done < conns && std::chrono::steady_clock::now() < deadline) {
            auto n = poller->wait(events, 1000);
            QVERIFY(n.ok());
            for (size_t e = 0; e < n.value(); ++e) {
                Conn& c = *static_cast<Conn*>(events[e].userData);
                QVERIFY((events[e].events & POLLERR) == 0);
                if ((events[e].events & POLLOUT) && c.sent < bytes) {
                    auto w = c.sock.send(c.out.data() + c.sent, bytes - c.sent);
                    if (w) c.sent += w.value();
                    if (c.sent == bytes) QVERIFY(poller->modify(c.sock, POLLIN, &c).ok());
                }
                if (events[e].events & POLLIN) {
                    auto r = c.sock.recv(buf.data(), bytes - c.received);
                    if (!r) {
                        QCOMPARE(r.error().code, smcr::Errc::wouldBlock);
                        continue;
                    }
                    QVERIFY(r.value() > 0);
                    QVERIFY(std::memcmp(buf.data(), c.out.data() + c.received, r.value()) == 0);
                    c.received += r.value();
                    if (c.received == bytes) {
                        QVERIFY(poller->remove(c.sock).ok());
                        c.sock.close();
                        ++done;
                    }
                }
            }
        }
        QCOMPARE(done, conns);
        QCOMPARE(peer.wait(20000), 0);
    }

    // TEST_LINK after smcr_testlink_time of silence; the peer answers and the
    // link stays up (no answer would take the link group down).
    void testLinkKeepsAnIdleLinkUp() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", "1"}, &error), error.c_str());
        auto engine = newEngine({{"smcr_testlink_time", "1"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        std::this_thread::sleep_for(std::chrono::milliseconds(3500));
        const smcr::EngineStats es = engine->stats();
        QVERIFY2(es.testLinksSent >= 2, qPrintable(QString("%1 TEST_LINKs").arg(es.testLinksSent)));
        QCOMPARE(es.linksDown, 0ull);
        QVERIFY(s.setTimeoutMs(5000).ok());
        QVERIFY(echoOnce(s, 77, 100));
        s.close();
        QCOMPARE(peer.wait(10000), 0);
    }

    // The other end's TEST_LINK: the peer probes after 1 s of silence (its
    // SMCR_SETTINGS), this engine never does (0 turns it off) and answers
    // each probe over the link; the link stays up.
    void peerTestLinkIsAnswered() {
        ::setenv("SMCR_SETTINGS", "smcr_testlink_time=1", 1);
        PeerProcess peer;
        std::string error;
        const bool started = peer.start("smcr_test_peer", {"echo", "1"}, &error);
        ::unsetenv("SMCR_SETTINGS");
        QVERIFY2(started, error.c_str());
        auto engine = newEngine({{"smcr_testlink_time", "0"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QTRY_VERIFY_WITH_TIMEOUT(engine->stats().testLinksAnswered >= 2, 10000);
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.testLinksSent, 0ull);
        QCOMPARE(es.linksDown, 0ull);
        bool exported = false;
        for (const auto& [name, value] : es.flatten()) {
            if (name == "smcr.test_links_answered") exported = value == es.testLinksAnswered;
        }
        QVERIFY(exported);
        QVERIFY(s.setTimeoutMs(5000).ok());
        QVERIFY(echoOnce(s, 78, 100));
        s.close();
        QCOMPARE(peer.wait(10000), 0);
    }

    void peerClosesFirstOrderly() {
        const uint64_t bytes = 3ull << 20;
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"send-close", std::to_string(bytes)}, &error), error.c_str());
        auto engine = newEngine();
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(s.setTimeoutMs(10000).ok());
        // The peer's stream 7, every byte, then EOF.
        const ReceiveRun run = receiveStream(s, 7, bytes);
        QVERIFY2(run.error.empty(), run.error.c_str());
        // After the peer's close, sending fails like TCP after the peer's FIN+RST.
        uint8_t one = 1;
        QVERIFY(!s.send(&one, 1).ok());
        s.close();
        QCOMPARE(peer.wait(10000), 0);
        QCOMPARE(engine->stats().connectionsAborted, 0ull);
    }

    void peerKilledMidTransferFailsFast() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"stream"}, &error), error.c_str());
        auto engine = newEngine();
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(15000).ok());
        QVERIFY(recvAtLeast(s, 4u << 20));
        peer.kill();
        QCOMPARE(peer.wait(5000), 128 + SIGKILL);
        // Both directions must fail with an error, not hang and not time out.
        const ReadEnd end = recvUntilError(s);
        QVERIFY2(end.code == smcr::Errc::connectionReset || end.code == smcr::Errc::connectionAborted,
                 smcr::errcName(end.code));
        QVERIFY2(end.elapsedMs < 10000, qPrintable(QString("took %1 ms").arg(end.elapsedMs)));
        std::vector<uint8_t> buf(65536);
        bool sendFailed = false;
        for (int i = 0; i < 100 && !sendFailed; ++i) sendFailed = !s.send(buf.data(), buf.size()).ok();
        QVERIFY(sendFailed);
        s.close();
    }
};

QTEST_APPLESS_MAIN(TestEngineStream)
#include "test_engine_stream.moc"
