// Multi-link groups between two real processes over the sim fabric: ADD_LINK
// builds a second link on the second port, a client limited to one link
// rejects it, CONFIRM_RKEY/DELETE_RKEY follow RMBs, a link killed mid-stream
// (QP to ERR, or a dead path that ends in RETRY_EXC) moves the stream to the
// survivor with every byte once, and a group with a single link fails its
// connections with an error instead of hanging.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <smcr/engine.h>
#include <smcr/fabric_sim.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include <QTest>

#include "core/shell/engine_impl.h"
#include "core/shell/lab_hooks.h"
#include "engine_fixture.h"
#include "peer_process.h"
#include "socket_io.h"
#include "stream_pattern.h"
#include "stream_transfer.h"

using namespace smclab::test;
using smcr::core::EngineImpl;
using smcr::core::injectLinkFault;
using Fault = smcr::fabric::sim::Fault;
using Clock = std::chrono::steady_clock;

namespace {

// Stream lengths: long enough that the fault hits a busy stream, short
// enough for the bounded test time (ThreadSanitizer runs ~10x slower).
#if defined(__SANITIZE_THREAD__)
constexpr uint64_t kStreamBytes = 2ull << 20;
#else
constexpr uint64_t kStreamBytes = 16ull << 20;
#endif

// Messages up to 256 KiB keep the fault inside a busy stream at any size.
constexpr size_t kMaxMessageBytes = 256 * 1024;

// The server half of a duplex run inside this process (like smcr_test_peer
// duplex): sends stream seed, verifies stream seed+1; returns "" when fine.
std::string serveDuplex(smcr::Socket s, uint64_t bytes, uint64_t seed) {
    const DuplexRun run = runDuplex(s, bytes, seed, seed + 1, {kMaxMessageBytes, {}});
    s.close();
    return run.error().empty() ? "" : "server: " + run.error();
}

}  // namespace

class TestEngineFailover : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // A loaded CI host may take longer than the listener's default
        // 250 ms to deliver a Proposal; these tests are about links, not
        // about plain-TCP detection (the peer's shared engine reads this).
        // The peer (the server) does not add a link again after a loss here
        // (lab.link_readd_ms; tests/integration/test_link_robustness covers
        // it), so the link counts after a failover stay as they were.
        ::setenv("SMCR_SETTINGS", "lab.clc_detect_ms=3000,lab.link_readd_ms=0", 1);
    }
    void addLinkBuildsASecondLinkAndRkeysFollowRmbs() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", "2"}, &error), error.c_str());
        auto engine = newEngine();
        smcr::Socket first = connectTo(engine, peer.port());
        QVERIFY(!first.fellBack());
        QVERIFY(first.setTimeoutMs(10000).ok());
        // The server starts ADD_LINK right after CONFIRM_LINK; the client takes it.
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().linksAdded, 1ull, 5000);
        smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linksActive, 2ull);
        QCOMPARE(es.linkGroupsCreated, 1ull);
        QCOMPARE(es.addLinkRejected, 0ull);
        QVERIFY(echoOnce(first, 11, 100000));
        // A new connection on the two-link group: its RMB is announced with
        // CONFIRM_RKEY (both ways), and withdrawn with DELETE_RKEY once freed.
        smcr::Socket second = connectTo(engine, peer.port());
        QVERIFY2(!second.fellBack(), fallbackText(second).c_str());
        QVERIFY(second.setTimeoutMs(10000).ok());
        QCOMPARE(engine->stats().linkGroupReuses, 1ull);
        QVERIFY(echoOnce(second, 12, 50000));
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().rkeysConfirmed, 1ull, 5000);
        second.close();
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().rkeysDeleted, 1ull, 5000);
        // The peer's side of the same: its RMB for `second` confirmed and
        // withdrawn by its own requests, which this engine answered.
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().peerDeleteRkeysAnswered, 1ull, 5000);
        es = engine->stats();
        QCOMPARE(es.peerConfirmRkeys, 1ull);
        QCOMPARE(es.peerConfirmRkeysAnswered, 1ull);
        QCOMPARE(es.peerDeleteRkeys, 1ull);
        QVERIFY(echoOnce(first, 13, 1000));
        first.close();
        QCOMPARE(peer.wait(10000), 0);
        es = engine->stats();
        QCOMPARE(es.linkFailovers, 0ull);
        QCOMPARE(es.connectionsAborted, 0ull);
    }

    void clientLimitedToOneLinkRejectsAddLink() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", "1"}, &error), error.c_str());
        auto engine = newEngine({{"smcr_max_links_per_lgr", "1"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(10000).ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().addLinkRejected, 1ull, 5000);
        QVERIFY(echoOnce(s, 21, 70000));
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linksAdded, 0ull);
        QCOMPARE(es.linksActive, 1ull);
        s.close();
        QCOMPARE(peer.wait(10000), 0);
    }

    // The link under a stream is killed (QP to ERR) mid-transfer: the
    // connection moves to the second link and both directions arrive intact.
    void failoverMidStreamIsByteExact_data() {
        QTest::addColumn<int>("fault");
        QTest::newRow("qp error") << int(Fault::qpError);
        QTest::newRow("dead path, retry exceeded") << int(Fault::deadPeer);
    }
    void failoverMidStreamIsByteExact() {
        QFETCH(int, fault);
        const uint64_t bytes = kStreamBytes;
        const uint64_t seed = 4000 + uint64_t(fault);
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"duplex", std::to_string(bytes), std::to_string(seed)}, &error),
                 error.c_str());
        auto engine = newEngine();
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(15000).ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().linksAdded, 1ull, 5000);
        smcr::Status injected;
        const DuplexRun run = runDuplex(s, bytes, seed + 1, seed,
                                        {kMaxMessageBytes, [&] {
                                             injected = injectLinkFault(engine->impl(), EngineImpl::LinkSelect::primary,
                                                                        static_cast<Fault>(fault));
                                         }});
        QVERIFY2(injected.ok(), injected.ok() ? "" : injected.error().toString().c_str());
        QVERIFY2(run.sendError.empty(), run.sendError.c_str());
        QVERIFY2(run.receive.error.empty(), run.receive.error.c_str());
        QCOMPARE(run.receive.received, bytes);
        const smcr::ConnectionStats cs = s.stats();
        QVERIFY(cs.txBytes >= bytes);  // re-sent bytes count twice on the wire
        QCOMPARE(cs.rxBytes, bytes);
        s.close();
        QCOMPARE(peer.wait(20000), 0);  // the peer verified our stream byte by byte
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linkFailovers, 1ull);
        QCOMPARE(es.failoverConns, 1ull);
        QCOMPARE(es.connectionsAborted, 0ull);
        QCOMPARE(es.linksActive, 1ull);  // the group lingers on the surviving link
        qInfo("failover (%s): longest receive stall after the fault %lld ms", QTest::currentDataTag(),
              static_cast<long long>(run.receive.stallMs));
    }

    // The server's link dies (both engines in this process, so the fault
    // can hit the server): the server fails over and tells the client.
    void serverSideFailureMovesTheStream() {
        const uint64_t bytes = kStreamBytes * 3 / 4;
        const uint64_t seed = 5100;
        auto serverEngine = newEngine({{"lab.clc_detect_ms", "3000"}});
        auto clientEngine = newEngine();
        auto l = smcr::Listener::listen("127.0.0.1", 0, 16, serverEngine);
        QVERIFY(l.ok());
        std::string serverErr = "no connection";
        std::thread server([&] {
            auto s = l->accept();
            if (!s) return;
            (void)s->setTimeoutMs(15000);
            serverErr = serveDuplex(s.value(), bytes, seed);
        });
        smcr::Socket c = connectTo(clientEngine, l->localPort());
        QVERIFY(!c.fellBack());
        QVERIFY(c.setTimeoutMs(15000).ok());
        QTRY_COMPARE_WITH_TIMEOUT(serverEngine->stats().linksAdded, 1ull, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(clientEngine->stats().linksAdded, 1ull, 5000);
        smcr::Status injected;
        const DuplexRun run = runDuplex(c, bytes, seed + 1, seed,
                                        {kMaxMessageBytes, [&] {
                                             injected = injectLinkFault(
                                                 serverEngine->impl(), EngineImpl::LinkSelect::primary, Fault::qpError);
                                         }});
        server.join();
        QVERIFY(injected.ok());
        QVERIFY2(run.sendError.empty(), run.sendError.c_str());
        QVERIFY2(run.receive.error.empty(), run.receive.error.c_str());
        QVERIFY2(serverErr.empty(), serverErr.c_str());
        QCOMPARE(run.receive.received, bytes);
        c.close();
        QCOMPARE(serverEngine->stats().linkFailovers, 1ull);
        // The client moved on the server's DELETE_LINK (or its own error).
        QCOMPARE(clientEngine->stats().linkFailovers, 1ull);
        QCOMPARE(clientEngine->stats().connectionsAborted, 0ull);
        qInfo("server-side failover: longest receive stall %lld ms", static_cast<long long>(run.receive.stallMs));
    }

    // The standby dies: dropped (DELETE_LINK to the peer), the stream on the
    // carrying link never notices.
    void standbyLossKeepsTheStream() {
        const uint64_t bytes = kStreamBytes / 2;
        const uint64_t seed = 5200;
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"duplex", std::to_string(bytes), std::to_string(seed)}, &error),
                 error.c_str());
        auto engine = newEngine();
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(s.setTimeoutMs(15000).ok());
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().linksActive, 2ull, 5000);
        smcr::Status injected;
        const DuplexRun run = runDuplex(
            s, bytes, seed + 1, seed,
            {kMaxMessageBytes,
             [&] { injected = injectLinkFault(engine->impl(), EngineImpl::LinkSelect::standby, Fault::qpError); }});
        QVERIFY(injected.ok());
        QVERIFY2(run.sendError.empty(), run.sendError.c_str());
        QVERIFY2(run.receive.error.empty(), run.receive.error.c_str());
        QCOMPARE(run.receive.received, bytes);
        s.close();
        QCOMPARE(peer.wait(20000), 0);
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linkFailovers, 0ull);
        QCOMPARE(es.linksDown, 1ull);
        QCOMPARE(es.linksActive, 1ull);
    }

    // More connections than send slots (smcr_max_send_wr 16): the validation
    // CDCs queue for slots, and every connection keeps its bytes.
    void manyConnectionsFailOverTogether() {
        const int conns = 40;
        const size_t bytes = 12000;
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", std::to_string(conns)}, &error), error.c_str());
        auto engine = newEngine({{"wmem", "16K"}, {"rmem", "16K"}});
        std::vector<smcr::Socket> sockets;
        for (int i = 0; i < conns; ++i) {
            sockets.push_back(connectTo(engine, peer.port()));
            QVERIFY(!sockets.back().fellBack());
            QVERIFY(sockets.back().setTimeoutMs(15000).ok());
        }
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().linksActive, 2ull, 5000);
        std::vector<uint8_t> out(bytes);
        std::vector<uint8_t> in(bytes);
        for (int round = 0; round < 2; ++round) {
            // Every connection has bytes in flight both ways when the link dies.
            for (int i = 0; i < conns; ++i) {
                fillPattern(uint64_t(i * 10 + round), 0, out.data(), bytes);
                QVERIFY(sendAll(sockets[size_t(i)], out.data(), bytes));
            }
            if (round == 0) {
                QVERIFY(injectLinkFault(engine->impl(), EngineImpl::LinkSelect::primary, Fault::qpError).ok());
            }
            for (int i = 0; i < conns; ++i) {
                fillPattern(uint64_t(i * 10 + round), 0, out.data(), bytes);
                QVERIFY2(recvAll(sockets[size_t(i)], in.data(), bytes), qPrintable(QString("connection %1").arg(i)));
                QVERIFY2(in == out, qPrintable(QString("connection %1 round %2").arg(i).arg(round)));
            }
        }
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linkFailovers, 1ull);
        // New connections are balanced over both links: only those on the
        // lost one moved (at least the first, made before the second link).
        QVERIFY(es.failoverConns >= 1 && es.failoverConns <= uint64_t(conns));
        QCOMPARE(es.connectionsAborted, 0ull);
        for (auto& s : sockets) s.close();
        QCOMPARE(peer.wait(15000), 0);
    }

    // One link only: losing it fails the connection with an error, promptly.
    void singleLinkGroupFailsItsConnections() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"stream"}, &error), error.c_str());
        auto engine = newEngine({{"smcr_max_links_per_lgr", "1"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(15000).ok());
        QVERIFY(recvAtLeast(s, 2u << 20));
        QVERIFY(injectLinkFault(engine->impl(), EngineImpl::LinkSelect::primary, Fault::qpError).ok());
        // Bytes already in the RMB may still come; EOF would be wrong.
        const ReadEnd end = recvUntilError(s);
        QVERIFY2(end.code == smcr::Errc::connectionAborted || end.code == smcr::Errc::connectionReset,
                 smcr::errcName(end.code));
        QVERIFY2(end.elapsedMs < 5000, qPrintable(QString("took %1 ms").arg(end.elapsedMs)));
        std::vector<uint8_t> buf(65536);
        QVERIFY(!s.send(buf.data(), buf.size()).ok());
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linkFailovers, 0ull);
        QVERIFY(es.linksDown >= 1);
        s.close();
    }
};

QTEST_APPLESS_MAIN(TestEngineFailover)
#include "test_engine_failover.moc"
