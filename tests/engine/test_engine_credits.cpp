// RQ credits (lab.rq_credits, seed 004) between two real processes over the
// sim fabric: stream integrity with credits on, interop with an engine that
// has them off in both roles (it must see reserved zeros only), and the RNR
// comparison: a small receive queue behind a slow receiver gives RNR NAKs
// without credits and none with them.
#include <csignal>
#include <string>
#include <vector>

#include <smcr/engine.h>
#include <smcr/socket.h>

#include <QTest>

#include "engine_fixture.h"
#include "peer_process.h"
#include "socket_io.h"
#include "stream_pattern.h"
#include "stream_transfer.h"

using namespace smclab::test;

namespace {

// Request/response rounds over many connections against the echo peer:
// every connection sends a small message, then every echo is read and checked.
std::string echoRounds(std::vector<smcr::Socket>& sockets, int rounds) {
    for (int round = 0; round < rounds; ++round) {
        for (size_t i = 0; i < sockets.size(); ++i) {
            uint8_t out[32];
            fillPattern(i, uint64_t(round) * sizeof out, out, sizeof out);
            if (!sendAll(sockets[i], out, sizeof out)) return "send on connection " + std::to_string(i);
        }
        for (size_t i = 0; i < sockets.size(); ++i) {
            uint8_t in[32];
            if (!recvAll(sockets[i], in, sizeof in)) return "recv on connection " + std::to_string(i);
            if (checkPattern(i, uint64_t(round) * sizeof in, in, sizeof in) != sizeof in) {
                return "echo of connection " + std::to_string(i) + " is wrong";
            }
        }
    }
    return "";
}

struct RnrRun {
    std::string error;
    smcr::EngineStats stats;
};

// The seed's condition, scaled down: 32 connections on one link group, a
// receive queue of 4 WQEs per link, and a receiver that spends 40 us per
// message before it refills the WQE.
RnrRun runSmallQueue(bool credits) {
    RnrRun out;
    const int conns = 32;
    const std::string onOff = credits ? "on" : "off";
    PeerProcess peer;
    std::string error;
    peer.setSettings("smcr_max_recv_wr=4,lab.rx_repost_delay_us=40,lab.rq_credits=" + onOff);
    if (!peer.start("smcr_test_peer", {"echo", std::to_string(conns)}, &error)) {
        out.error = error;
        return out;
    }
    auto engine = newEngine({{"smcr_max_recv_wr", "4"}, {"lab.rq_credits", onOff}, {"wmem", "16K"}, {"rmem", "16K"}});
    std::vector<smcr::Socket> sockets;
    for (int i = 0; i < conns; ++i) {
        sockets.push_back(connectTo(engine, peer.port()));
        if (sockets.back().fellBack()) {
            out.error = "connection fell back";
            return out;
        }
        (void)sockets.back().setTimeoutMs(10000);
    }
    out.error = echoRounds(sockets, 20);
    out.stats = engine->stats();
    for (auto& s : sockets) s.close();
    if (out.error.empty() && peer.wait(20000) != 0) out.error = "peer failed";
    return out;
}

}  // namespace

class TestEngineCredits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // A peer that exits first can leave a wake-up write to its side of the
        // fabric; the engine sees EPIPE instead of dying (as smclab does).
        std::signal(SIGPIPE, SIG_IGN);
    }

    void duplexIntegrityWithCredits() {
        const uint64_t bytes = 6ull << 20;
        PeerProcess peer;
        std::string error;
        peer.setSettings("lab.rq_credits=on,smcr_max_recv_wr=6");
        QVERIFY2(peer.start("smcr_test_peer", {"duplex", std::to_string(bytes), "300"}, &error), error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "on"}, {"smcr_max_recv_wr", "6"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(20000).ok());
        const std::string err = runDuplex(s, bytes, 301, 300).error();
        QVERIFY2(err.empty(), err.c_str());
        s.close();
        QCOMPARE(peer.wait(20000), 0);
        const smcr::EngineStats es = engine->stats();
        // Both links: the first by CLC byte 51, the one ADD_LINK added by its byte 36.
        QCOMPARE(es.creditLinks, 2ull);
        QVERIFY(es.creditsReceived > 0);
        QVERIFY(es.creditsAnnouncedCdc + es.creditsAnnouncedLlc > 0);
        QCOMPARE(es.cdcReservedNonzero, 0ull);
        // No SEND in either direction met an empty receive queue.
        QCOMPARE(es.rnrNaksReceived, 0ull);
        QCOMPARE(es.rnrNaksSent, 0ull);
    }

    // The credits engine is the client; the server has credits off and sees
    // a plain v1 exchange (its CDCs say so: byte 26 stays zero both ways).
    void interopCreditsClientPlainServer() {
        const uint64_t bytes = 2ull << 20;
        PeerProcess peer;
        std::string error;
        peer.setSettings("");
        QVERIFY2(peer.start("smcr_test_peer", {"duplex", std::to_string(bytes), "400"}, &error), error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "on"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(20000).ok());
        const std::string err = runDuplex(s, bytes, 401, 400).error();
        QVERIFY2(err.empty(), err.c_str());
        s.close();
        QCOMPARE(peer.wait(20000), 0);
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.creditLinks, 0ull);
        QCOMPARE(es.creditsAnnouncedCdc, 0ull);
        QCOMPARE(es.creditAnnounceLlcs, 0ull);
        QCOMPARE(es.cdcReservedNonzero, 0ull);
    }

    // The credits engine is the server (it offers in its Accept); the client
    // has them off, answers with a zero byte, and must never see credits.
    void interopCreditsServerPlainClient() {
        const uint64_t bytes = 2ull << 20;
        PeerProcess peer;
        std::string error;
        peer.setSettings("lab.rq_credits=on");
        QVERIFY2(peer.start("smcr_test_peer", {"duplex", std::to_string(bytes), "500"}, &error), error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "off"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(20000).ok());
        const std::string err = runDuplex(s, bytes, 501, 500).error();
        QVERIFY2(err.empty(), err.c_str());
        s.close();
        QCOMPARE(peer.wait(20000), 0);
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.creditLinks, 0ull);
        QCOMPARE(es.cdcReservedNonzero, 0ull);                // the credits-capable server sent reserved zeros
        QCOMPARE(es.rnrNaksSent + es.rnrNaksReceived, 0ull);  // default queues: no RNR either
    }

    // The bench's condition scaled down (seed 004: many connections on one
    // link, 16 WQEs, both receive paths slow): senders wait for credits, a
    // credit arrival releases them before any ANNOUNCE_CREDITS goes (their
    // CDCs carry the owed credits), the stream stays intact and no SEND
    // meets an empty queue.
    void starvedLinkManyConnections() {
        const int conns = 64;
        PeerProcess peer;
        std::string error;
        peer.setSettings("lab.rq_credits=on,smcr_max_recv_wr=16,smcr_max_links_per_lgr=1,lab.rx_repost_delay_us=20");
        QVERIFY2(peer.start("smcr_test_peer", {"echo", std::to_string(conns)}, &error), error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "on"},
                                 {"smcr_max_recv_wr", "16"},
                                 {"smcr_max_links_per_lgr", "1"},
                                 {"lab.rx_repost_delay_us", "20"},
                                 {"wmem", "16K"},
                                 {"rmem", "16K"}});
        std::vector<smcr::Socket> sockets;
        for (int i = 0; i < conns; ++i) {
            sockets.push_back(connectTo(engine, peer.port()));
            QVERIFY(!sockets.back().fellBack());
            (void)sockets.back().setTimeoutMs(10000);
        }
        const std::string err = echoRounds(sockets, 20);
        QVERIFY2(err.empty(), err.c_str());
        const smcr::EngineStats es = engine->stats();
        for (auto& s : sockets) s.close();
        QCOMPARE(peer.wait(20000), 0);
        qInfo("credit waits %llu, credits by CDC %llu, by LLC %llu in %llu ANNOUNCE_CREDITS",
              static_cast<unsigned long long>(es.creditWaits), static_cast<unsigned long long>(es.creditsAnnouncedCdc),
              static_cast<unsigned long long>(es.creditsAnnouncedLlc),
              static_cast<unsigned long long>(es.creditAnnounceLlcs));
        QCOMPARE(es.rnrNaksSent + es.rnrNaksReceived, 0ull);
        QVERIFY(es.creditWaits > 0);  // the link was short of credits
        QVERIFY(es.creditsAnnouncedCdc > 0);
        QCOMPARE(es.creditLinks, 1ull);
    }

    // A program that closes and exits at once: its closing CDC waits for an
    // RQ credit that our slow receive path returns 5 ms per message later.
    // The kernel would send it after the exit; the peer's engine must send
    // it before (Engine::flushClosed at exit), or we see its TCP hang-up
    // without the close and reset the connection.
    void closeThenExitStillDeliversTheClose() {
        const uint64_t bytes = 32 * 1024;
        PeerProcess peer;
        std::string error;
        peer.setSettings("lab.rq_credits=on,smcr_max_links_per_lgr=1");
        QVERIFY2(peer.start("smcr_test_peer", {"send-exit", std::to_string(bytes)}, &error), error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "on"},
                                 {"smcr_max_recv_wr", "2"},
                                 {"smcr_max_links_per_lgr", "1"},
                                 {"lab.rx_repost_delay_us", "5000"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(20000).ok());
        // Every byte, then the end of the stream: not a reset.
        const std::string err = recvRange(s, 7, 0, bytes);
        QVERIFY2(err.empty(), err.c_str());
        const std::string end = expectEof(s);
        QVERIFY2(end.empty(), end.c_str());
        QCOMPARE(peer.wait(20000), 0);
        s.close();
        QCOMPARE(engine->stats().connectionsAborted, 0ull);
    }

    void smallQueueRnrWithoutCreditsNoneWith() {
        const RnrRun off = runSmallQueue(false);
        QVERIFY2(off.error.empty(), off.error.c_str());
        qInfo("credits off: RNR NAKs received %llu, sent %llu",
              static_cast<unsigned long long>(off.stats.rnrNaksReceived),
              static_cast<unsigned long long>(off.stats.rnrNaksSent));
        QCOMPARE(off.stats.creditLinks, 0ull);
        QVERIFY(off.stats.rnrNaksReceived > 0);

        const RnrRun on = runSmallQueue(true);
        QVERIFY2(on.error.empty(), on.error.c_str());
        qInfo("credits on: credit waits %llu, credits by CDC %llu, by LLC %llu",
              static_cast<unsigned long long>(on.stats.creditWaits),
              static_cast<unsigned long long>(on.stats.creditsAnnouncedCdc),
              static_cast<unsigned long long>(on.stats.creditsAnnouncedLlc));
        QCOMPARE(on.stats.creditLinks, 2ull);  // the first link and the added one
        QCOMPARE(on.stats.rnrNaksReceived, 0ull);
        QCOMPARE(on.stats.rnrNaksSent, 0ull);
        QVERIFY(on.stats.creditWaits > 0);  // the small queue made senders wait instead
    }
};

QTEST_GUILESS_MAIN(TestEngineCredits)
#include "test_engine_credits.moc"
