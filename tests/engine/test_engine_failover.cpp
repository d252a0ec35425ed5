// Multi-link groups between two real processes over the sim fabric: ADD_LINK
// builds a second link on the second port, a client limited to one link
// rejects it, CONFIRM_RKEY/DELETE_RKEY follow RMBs, a link killed mid-stream
// (QP to ERR, or a dead path that ends in RETRY_EXC) moves the stream to the
// survivor with every byte once, and a group with a single link fails its
// connections with an error instead of hanging.
#include <smcr/engine.h>
#include <smcr/fabric_sim.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include <QTest>

#include <cstdlib>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/engine_impl.h"
#include "peer_process.h"
#include "stream_pattern.h"

using namespace smclab::test;
using smcr::core::EngineImpl;
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

std::shared_ptr<smcr::Engine> newEngine(const std::vector<std::pair<std::string, std::string>>& settings = {}) {
    auto e = smcr::Engine::create(settings);
    if (!e) qFatal("engine: %s", e.error().toString().c_str());
    return e.value();
}

smcr::Socket connectTo(const std::shared_ptr<smcr::Engine>& engine, uint16_t port) {
    smcr::ConnectOptions options;
    options.engine = engine;
    auto s = smcr::Socket::connect("127.0.0.1", port, options);
    if (!s) qFatal("connect: %s", s.error().toString().c_str());
    return s.value();
}

bool sendAll(smcr::Socket& s, const uint8_t* data, size_t len) {
    size_t done = 0;
    while (done < len) {
        auto w = s.send(data + done, len - done);
        if (!w) return false;
        done += w.value();
    }
    return true;
}

bool recvAll(smcr::Socket& s, uint8_t* data, size_t len) {
    size_t done = 0;
    while (done < len) {
        auto r = s.recv(data + done, len - done);
        if (!r || r.value() == 0) return false;
        done += r.value();
    }
    return true;
}

bool echoOnce(smcr::Socket& s, uint64_t seed, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    std::vector<uint8_t> in(bytes);
    fillPattern(seed, 0, out.data(), bytes);
    return sendAll(s, out.data(), bytes) && recvAll(s, in.data(), bytes) && in == out;
}

// Result of a duplex run against `smcr_test_peer duplex`.
struct DuplexRun {
    std::string sendErr;
    std::string recvErr;
    uint64_t received = 0;
    int64_t stallMs = -1;  // longest gap between two receives after the fault
};

// Streams `bytes` both ways (the peer sends stream seed, we send seed+1) and
// calls `fault` once a third of the peer's stream has arrived.
DuplexRun runDuplex(smcr::Socket& s, uint64_t bytes, uint64_t seed, const std::function<void()>& fault) {
    DuplexRun run;
    std::thread sender([&] {
        MessageSizes sizes(seed + 1, 256 * 1024);
        std::vector<uint8_t> buf(256 * 1024);
        uint64_t off = 0;
        while (off < bytes) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(sizes.next(), bytes - off));
            fillPattern(seed + 1, off, buf.data(), n);
            if (!sendAll(s, buf.data(), n)) {
                run.sendErr = "send failed at " + std::to_string(off);
                return;
            }
            off += n;
        }
        if (!s.shutdown(SHUT_WR)) run.sendErr = "shutdown failed";
    });
    MessageSizes sizes(seed ^ 0x77, 256 * 1024);
    std::vector<uint8_t> buf(256 * 1024);
    bool faulted = false;
    Clock::time_point last = Clock::now();
    for (;;) {
        auto r = s.recv(buf.data(), sizes.next());
        const Clock::time_point now = Clock::now();
        if (faulted) {
            run.stallMs = std::max<int64_t>(
                run.stallMs, std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count());
        }
        last = now;
        if (!r) {
            run.recvErr = r.error().toString();
            break;
        }
        if (r.value() == 0) break;
        const size_t bad = checkPattern(seed, run.received, buf.data(), r.value());
        if (bad != r.value()) {
            run.recvErr = "byte " + std::to_string(run.received + bad) + " wrong";
            break;
        }
        run.received += r.value();
        if (!faulted && run.received >= bytes / 3) {
            faulted = true;
            fault();
            last = Clock::now();
        }
    }
    sender.join();
    return run;
}


// The server half of a duplex run inside this process (like smcr_test_peer
// duplex): sends stream seed, verifies stream seed+1; returns "" when fine.
std::string serveDuplex(smcr::Socket s, uint64_t bytes, uint64_t seed) {
    std::string sendErr;
    std::thread sender([&] {
        MessageSizes sizes(seed, 256 * 1024);
        std::vector<uint8_t> buf(256 * 1024);
        uint64_t off = 0;
        while (off < bytes) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(sizes.next(), bytes - off));
            fillPattern(seed, off, buf.data(), n);
            if (!sendAll(s, buf.data(), n)) {
                sendErr = "server send failed at " + std::to_string(off);
                return;
            }
            off += n;
        }
        (void)s.shutdown(SHUT_WR);
    });
    std::vector<uint8_t> buf(256 * 1024);
    uint64_t off = 0;
    std::string recvErr;
    for (;;) {
        auto r = s.recv(buf.data(), buf.size());
        if (!r) {
            recvErr = "server recv: " + r.error().toString();
            break;
        }
        if (r.value() == 0) break;
        if (checkPattern(seed + 1, off, buf.data(), r.value()) != r.value()) {
            recvErr = "server: wrong byte near " + std::to_string(off);
            break;
        }
        off += r.value();
    }
    sender.join();
    if (recvErr.empty() && off != bytes) recvErr = "server received " + std::to_string(off);
    s.close();
    return !sendErr.empty() ? sendErr : recvErr;
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
        QVERIFY2(!second.fellBack(), qPrintable(QString("fallback 0x%1 peer 0x%2")
                                                    .arg(second.fallbackReason(), 8, 16, QChar('0'))
                                                    .arg(second.peerDeclineReason(), 8, 16, QChar('0'))));
        QVERIFY(second.setTimeoutMs(10000).ok());
        QCOMPARE(engine->stats().linkGroupReuses, 1ull);
        QVERIFY(echoOnce(second, 12, 50000));
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().rkeysConfirmed, 1ull, 5000);
        second.close();
        QTRY_COMPARE_WITH_TIMEOUT(engine->stats().rkeysDeleted, 1ull, 5000);
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
        const DuplexRun run = runDuplex(s, bytes, seed, [&] {
            injected = engine->impl().injectLinkFault(EngineImpl::LinkSelect::primary, static_cast<Fault>(fault));
        });
        QVERIFY2(injected.ok(), injected.ok() ? "" : injected.error().toString().c_str());
        QVERIFY2(run.sendErr.empty(), run.sendErr.c_str());
        QVERIFY2(run.recvErr.empty(), run.recvErr.c_str());
        QCOMPARE(run.received, bytes);
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
              static_cast<long long>(run.stallMs));
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
        const DuplexRun run = runDuplex(c, bytes, seed, [&] {
            injected = serverEngine->impl().injectLinkFault(EngineImpl::LinkSelect::primary, Fault::qpError);
        });
        server.join();
        QVERIFY(injected.ok());
        QVERIFY2(run.sendErr.empty(), run.sendErr.c_str());
        QVERIFY2(run.recvErr.empty(), run.recvErr.c_str());
        QVERIFY2(serverErr.empty(), serverErr.c_str());
        QCOMPARE(run.received, bytes);
        c.close();
        QCOMPARE(serverEngine->stats().linkFailovers, 1ull);
        // The client moved on the server's DELETE_LINK (or its own error).
        QCOMPARE(clientEngine->stats().linkFailovers, 1ull);
        QCOMPARE(clientEngine->stats().connectionsAborted, 0ull);
        qInfo("server-side failover: longest receive stall %lld ms", static_cast<long long>(run.stallMs));
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
        const DuplexRun run = runDuplex(s, bytes, seed, [&] {
            injected = engine->impl().injectLinkFault(EngineImpl::LinkSelect::standby, Fault::qpError);
        });
        QVERIFY(injected.ok());
        QVERIFY2(run.sendErr.empty(), run.sendErr.c_str());
        QVERIFY2(run.recvErr.empty(), run.recvErr.c_str());
        QCOMPARE(run.received, bytes);
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
                QVERIFY(engine->impl().injectLinkFault(EngineImpl::LinkSelect::primary, Fault::qpError).ok());
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
        std::vector<uint8_t> buf(65536);
        uint64_t got = 0;
        while (got < (2u << 20)) {
            auto r = s.recv(buf.data(), buf.size());
            QVERIFY(r.ok() && r.value() > 0);
            got += r.value();
        }
        QVERIFY(engine->impl().injectLinkFault(EngineImpl::LinkSelect::primary, Fault::qpError).ok());
        const auto start = Clock::now();
        smcr::Errc code = smcr::Errc::invalid;
        for (;;) {
            auto r = s.recv(buf.data(), buf.size());
            if (!r) {
                code = r.error().code;
                break;
            }
            QVERIFY(r.value() > 0);  // bytes already in the RMB may still come; EOF would be wrong
        }
        const auto elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        QVERIFY2(code == smcr::Errc::connectionAborted || code == smcr::Errc::connectionReset,
                 smcr::errcName(code));
        QVERIFY2(elapsedMs < 5000, qPrintable(QString("took %1 ms").arg(elapsedMs)));
        QVERIFY(!s.send(buf.data(), buf.size()).ok());
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.linkFailovers, 0ull);
        QVERIFY(es.linksDown >= 1);
        s.close();
    }
};

QTEST_APPLESS_MAIN(TestEngineFailover)
#include "test_engine_failover.moc"
