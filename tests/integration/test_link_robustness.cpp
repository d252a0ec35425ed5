// Link-group robustness between two engines in this process over the sim
// fabric (smc-protocol.md sections 2, 4 and 7):
// - a send completion that never comes back: the watchdog
//   (lab.tx_completion_timeout_ms, the kernel's 10 s free-slot wait) takes
//   the link down; with a second link the connection fails over byte-exact,
//   with one it is aborted on both sides with a clear error;
// - a failed post on the first link fails over when a second link exists;
// - RQ credits (seed 004) negotiated for the link ADD_LINK adds, in its byte
//   36, and left off against a peer without them;
// - new connections balanced over both links, both carrying traffic, and
//   either link lost under them;
// - a link re-added after a failover, which then takes a second failover.
// Every stream is checked byte by byte (a deterministic pattern per seed).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>

#include <smcr/engine.h>
#include <smcr/fabric_sim.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include <QTest>

#include "core/link/add_link_flow.h"
#include "core/link/tx_watchdog.h"
#include "core/shell/engine_impl.h"
#include "core/shell/lab_hooks.h"
#include "engine_fixture.h"
#include "stream_transfer.h"

using smclab::test::expectEof;
using smclab::test::newEngine;
using smclab::test::recvRange;
using smclab::test::sendRange;
using smclab::test::waitFor;
using smcr::core::EngineImpl;
using smcr::core::injectLinkFault;
using Fault = smcr::fabric::sim::Fault;
using Clock = std::chrono::steady_clock;
using Settings = smclab::test::SettingList;

namespace {

// Bounded stream sizes (ThreadSanitizer runs ~10x slower).
#if defined(__SANITIZE_THREAD__)
constexpr uint64_t kStreamBytes = 1ull << 20;
#else
constexpr uint64_t kStreamBytes = 6ull << 20;
#endif
constexpr int kIoTimeoutMs = 15000;  // far beyond any recovery here; reaching it is a hang

bool isAbort(smcr::Errc code) {
    return code == smcr::Errc::connectionAborted || code == smcr::Errc::connectionReset;
}

// A server and a client engine with one listener, and connections between them.
struct Pair {
    std::shared_ptr<smcr::Engine> server;
    std::shared_ptr<smcr::Engine> client;
    smcr::Listener listener;
    std::vector<smcr::Socket> clientSockets;
    std::vector<smcr::Socket> serverSockets;

    // Opens one more connection; both ends get the I/O timeout.
    void connect() {
        smcr::ConnectOptions options;
        options.engine = client;
        auto c = smcr::Socket::connect("127.0.0.1", listener.localPort(), options);
        if (!c) qFatal("connect: %s", c.error().toString().c_str());
        auto s = listener.accept();
        if (!s) qFatal("accept: %s", s.error().toString().c_str());
        if (c->fellBack() || s->fellBack()) qFatal("connection fell back to TCP");
        (void)c->setTimeoutMs(kIoTimeoutMs);
        (void)s->setTimeoutMs(kIoTimeoutMs);
        clientSockets.push_back(c.value());
        serverSockets.push_back(s.value());
    }
    void closeAll() {
        for (auto& s : clientSockets) s.close();
        for (auto& s : serverSockets) s.close();
        listener.close();
    }
};

Pair makePair(const Settings& serverSettings, const Settings& clientSettings) {
    auto server = newEngine(serverSettings);
    auto client = newEngine(clientSettings);
    auto l = smcr::Listener::listen("127.0.0.1", 0, 16, server);
    if (!l) qFatal("listen: %s", l.error().toString().c_str());
    return Pair{server, client, l.value(), {}, {}};
}

Settings with(Settings base, const Settings& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

// A loaded CI host may deliver a Proposal late; these tests are about links.
const Settings kBase = {{"lab.clc_detect_ms", "3000"}};

// Both directions of one connection at once: client sends stream seed,
// server sends seed+1, `bytes` each; `fault` runs once a third has arrived
// at the client. Returns "" when every byte arrived once, in order.
std::string duplex(smcr::Socket& c, smcr::Socket& s, uint64_t bytes, uint64_t seed,
                   const std::function<void()>& fault) {
    std::string cSend;
    std::string sSend;
    std::string sRecv;
    std::thread clientTx([&] { cSend = sendRange(c, seed, 0, bytes); });
    std::thread serverTx([&] { sSend = sendRange(s, seed + 1, 0, bytes); });
    std::thread serverRx([&] { sRecv = recvRange(s, seed, 0, bytes); });
    std::string cRecv = recvRange(c, seed + 1, 0, bytes / 3);
    if (cRecv.empty() && fault) fault();
    if (cRecv.empty()) cRecv = recvRange(c, seed + 1, bytes / 3, bytes - bytes / 3);
    clientTx.join();
    serverTx.join();
    serverRx.join();
    for (const std::string* e : {&cSend, &sSend, &cRecv, &sRecv}) {
        if (!e->empty()) return *e;
    }
    return {};
}

bool twoLinks(const Pair& p) {
    return waitFor([&] { return p.server->stats().linksActive == 2 && p.client->stats().linksActive == 2; }, 5000);
}

}  // namespace

class TestLinkRobustness : public QObject {
    Q_OBJECT
private slots:
    // ---- the send-completion watchdog ----------------------------------------------

    // The functional core: the clock starts at the first look with sends
    // outstanding, restarts on every completion, and runs out only when
    // nothing completed for the whole timeout.
    void txWatchdogCore() {
        smcr::core::TxWatchdog w;
        QVERIFY(!w.stalled(0, 1000, 300));
        QCOMPARE(w.deadlineMs(0, 1000, 300), UINT64_MAX);
        QCOMPARE(w.deadlineMs(1, 1000, 300), uint64_t{1000});  // look now to start the clock
        QVERIFY(!w.stalled(1, 1000, 300));
        QCOMPARE(w.deadlineMs(1, 1000, 300), uint64_t{1300});
        QVERIFY(!w.stalled(1, 1299, 300));
        w.onCompletion();  // progress: the clock restarts at the next look
        QVERIFY(!w.stalled(3, 1350, 300));
        QVERIFY(!w.stalled(3, 1649, 300));
        QVERIFY(w.stalled(3, 1650, 300));
        QVERIFY(w.stalled(1, 5000, 300));  // still nothing completed
        QVERIFY(!w.stalled(1, 5000, 0));   // 0 = off
        QCOMPARE(w.deadlineMs(1, 5000, 0), UINT64_MAX);
        // Idle in between: a new send starts a fresh clock.
        QVERIFY(!w.stalled(0, 6000, 300));
        QVERIFY(!w.stalled(2, 9000, 300));
        QVERIFY(!w.stalled(2, 9299, 300));
        QVERIFY(w.stalled(2, 9300, 300));
        QCOMPARE(w.completions(), uint64_t{1});
    }

    // The client's one CDC loses its completion (no other traffic, so it is
    // that one): nothing else ever completes, the watchdog declares the
    // link down and the connection moves to the second link; the peer got
    // the bytes once, and the connection goes on.
    void lostSendCompletionFailsOver() {
        const Settings s = with(kBase, {{"lab.tx_completion_timeout_ms", "300"}});
        Pair p = makePair(s, s);
        p.connect();
        QVERIFY(twoLinks(p));
        smcr::Socket& c = p.clientSockets[0];
        smcr::Socket& srv = p.serverSockets[0];
        QVERIFY(injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::dropCompletion).ok());
        const auto start = Clock::now();
        QCOMPARE(sendRange(c, 31, 0, 1000), std::string());
        QCOMPARE(recvRange(srv, 31, 0, 1000), std::string());
        // The answer arrives on the survivor too, whichever link it took.
        QCOMPARE(sendRange(srv, 32, 0, 1000), std::string());
        QCOMPARE(recvRange(c, 32, 0, 1000), std::string());
        QVERIFY2(waitFor([&] { return p.client->stats().linkFailovers == 1; }, 5000),
                 "the watchdog never took the link down");
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        qInfo("lost send completion: failover after %lld ms (timeout 300 ms)", static_cast<long long>(ms));
        // More traffic both ways over the survivor, then a clean end: the
        // re-sent bytes were not delivered twice.
        QCOMPARE(duplex(c, srv, kStreamBytes / 4, 33, {}), std::string());
        QVERIFY(c.shutdown(SHUT_WR).ok());
        QCOMPARE(expectEof(srv), std::string());
        const smcr::EngineStats cs = p.client->stats();
        QCOMPARE(cs.txCompletionTimeouts, 1ull);
        QCOMPARE(cs.linkFailovers, 1ull);
        QCOMPARE(cs.connectionsAborted, 0ull);
        QVERIFY(waitFor([&] { return p.server->stats().linkFailovers == 1; }, 5000));
        QCOMPARE(p.server->stats().connectionsAborted, 0ull);
        p.closeAll();
    }

    // One link only: the same lost completion aborts the connection on both
    // sides with a clear error (the client by its watchdog, the server by
    // the TCP socket the client shut down), never a hang.
    void lostSendCompletionAbortsSingleLink() {
        const Settings s = with(kBase, {{"lab.tx_completion_timeout_ms", "300"}, {"smcr_max_links_per_lgr", "1"}});
        Pair p = makePair(s, s);
        p.connect();
        smcr::Socket& c = p.clientSockets[0];
        smcr::Socket& srv = p.serverSockets[0];
        QCOMPARE(p.client->stats().linksActive, 1ull);
        QVERIFY(injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::dropCompletion).ok());
        QCOMPARE(sendRange(c, 41, 0, 1000), std::string());
        QCOMPARE(recvRange(srv, 41, 0, 1000), std::string());
        const auto start = Clock::now();
        uint8_t byte = 0;
        auto cr = c.recv(&byte, 1);
        QVERIFY2(!cr.ok(), "the client's recv must fail");
        QVERIFY2(isAbort(cr.error().code), smcr::errcName(cr.error().code));
        auto sr = srv.recv(&byte, 1);
        QVERIFY2(!sr.ok(), "the server's recv must fail, not see EOF");
        QVERIFY2(isAbort(sr.error().code), smcr::errcName(sr.error().code));
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        QVERIFY2(ms < 5000, qPrintable(QString("took %1 ms").arg(ms)));
        QVERIFY(!c.send(&byte, 1).ok());
        const smcr::EngineStats cs = p.client->stats();
        QCOMPARE(cs.txCompletionTimeouts, 1ull);
        QCOMPARE(cs.linkFailovers, 0ull);
        QVERIFY(cs.connectionsAborted >= 1);
        p.closeAll();
    }

    // Off (0): a lost completion is never blamed on the link.
    void watchdogOffLeavesTheLink() {
        const Settings s = with(kBase, {{"lab.tx_completion_timeout_ms", "0"}, {"smcr_max_links_per_lgr", "1"}});
        Pair p = makePair(s, s);
        p.connect();
        QVERIFY(injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::dropCompletion).ok());
        QCOMPARE(sendRange(p.clientSockets[0], 51, 0, 1000), std::string());
        QCOMPARE(recvRange(p.serverSockets[0], 51, 0, 1000), std::string());
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        QCOMPARE(p.client->stats().txCompletionTimeouts, 0ull);
        QCOMPARE(p.client->stats().linksDown, 0ull);
        QCOMPARE(p.client->stats().connectionsAborted, 0ull);
        // The spelling the agent and the presets use; out of range is refused.
        QVERIFY(p.client->settings().set("lab.tx_completion_timeout_ms", "10000").ok());
        QCOMPARE(p.client->settings().get("lab.tx_completion_timeout_ms").value(), std::string("10000"));
        QVERIFY(!p.client->settings().set("lab.tx_completion_timeout_ms", "600001").ok());
        QVERIFY(!p.client->settings().set("lab.tx_completion_timeout_ms", "soon").ok());
        p.closeAll();
    }

    // ---- a failed post ----------------------------------------------------------------

    // The client's next post fails (its first CDC): with a second link the
    // connection moves there and the bytes arrive once.
    void failedPostFailsOver() {
        Pair p = makePair(kBase, kBase);
        p.connect();
        QVERIFY(twoLinks(p));
        smcr::Socket& c = p.clientSockets[0];
        smcr::Socket& srv = p.serverSockets[0];
        QVERIFY(injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::failNextPost).ok());
        QCOMPARE(sendRange(c, 61, 0, 5000), std::string());
        QCOMPARE(recvRange(srv, 61, 0, 5000), std::string());
        QVERIFY(waitFor([&] { return p.client->stats().linkFailovers == 1; }, 5000));
        QCOMPARE(duplex(c, srv, kStreamBytes / 4, 62, {}), std::string());
        QVERIFY(c.shutdown(SHUT_WR).ok());
        QCOMPARE(expectEof(srv), std::string());
        QCOMPARE(p.client->stats().connectionsAborted, 0ull);
        QCOMPARE(p.server->stats().connectionsAborted, 0ull);
        p.closeAll();
    }

    // The same mid-stream, both directions busy.
    void failedPostMidStreamFailsOver() {
        Pair p = makePair(kBase, kBase);
        p.connect();
        QVERIFY(twoLinks(p));
        smcr::Status injected;
        const std::string err = duplex(p.clientSockets[0], p.serverSockets[0], kStreamBytes, 63, [&] {
            injected = injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::failNextPost);
        });
        QVERIFY(injected.ok());
        QCOMPARE(err, std::string());
        QCOMPARE(p.client->stats().linkFailovers, 1ull);
        QCOMPARE(p.client->stats().connectionsAborted, 0ull);
        p.closeAll();
    }

    // ---- RQ credits on the added link ---------------------------------------------------

    // The functional core: byte 36 offered both ways only when both ends offer.
    void addLinkFlowCarriesCreditOffers() {
        using smcr::Side;
        using smcr::core::AddLinkFlow;
        using smcr::core::LinkEndpoint;
        for (const auto& [serverOffer, clientOffer] :
             std::vector<std::pair<uint8_t, uint8_t>>{{48, 48}, {48, 0}, {0, 48}, {0, 0}, {16, 255}}) {
            AddLinkFlow server(Side::server, 2000);
            AddLinkFlow client(Side::client, 2000);
            server.setCreditOffer(serverOffer);
            client.setCreditOffer(clientOffer);
            LinkEndpoint se;
            se.qpn = 0x111;
            LinkEndpoint ce;
            ce.qpn = 0x222;
            const auto a = server.start(se, 2, 7, {}, 0);
            QCOMPARE(a.sendOnCurrent.size(), size_t(1));
            const auto& request = std::get<smcr::wire::LlcAddLink>(a.sendOnCurrent[0]);
            QCOMPARE(request.initCredits, serverOffer);
            // Through the codec, as on the wire.
            auto decoded = smcr::wire::decodeLlc(smcr::wire::encodeLlc(a.sendOnCurrent[0]));
            QVERIFY(decoded.ok());
            const auto& onWire = std::get<smcr::wire::LlcAddLink>(decoded.value());
            QCOMPARE(onWire.initCredits, serverOffer);
            const auto b = client.onRequest(onWire, ce, 7, {}, 0);
            const bool both = serverOffer > 0 && clientOffer > 0;
            QCOMPARE(b.peerInitCredits, both ? serverOffer : uint8_t{0});
            const auto& response = std::get<smcr::wire::LlcAddLink>(b.sendOnCurrent.at(0));
            // A client never offers to a server that did not (a peer without
            // the feature sees the reserved zero it sent).
            QCOMPARE(response.initCredits, both ? clientOffer : uint8_t{0});
            const auto c = server.onResponse(response, 0);
            QCOMPARE(c.peerInitCredits, both ? clientOffer : uint8_t{0});
        }
    }

    void addLinkNegotiatesCredits_data() {
        QTest::addColumn<bool>("serverOn");
        QTest::addColumn<bool>("clientOn");
        QTest::newRow("both on") << true << true;
        QTest::newRow("server only") << true << false;
        QTest::newRow("client only") << false << true;
    }
    // Credits on the added link when both ends enable them, off otherwise;
    // either way the added link takes the stream over byte-exact.
    void addLinkNegotiatesCredits() {
        QFETCH(bool, serverOn);
        QFETCH(bool, clientOn);
        Pair p = makePair(with(kBase, {{"lab.rq_credits", serverOn ? "on" : "off"}}),
                          with(kBase, {{"lab.rq_credits", clientOn ? "on" : "off"}}));
        p.connect();
        QVERIFY(twoLinks(p));
        const uint64_t expectLinks = serverOn && clientOn ? 2 : 0;
        QCOMPARE(p.server->stats().creditLinks, expectLinks);
        QCOMPARE(p.client->stats().creditLinks, expectLinks);
        smcr::Status injected;
        const std::string err = duplex(p.clientSockets[0], p.serverSockets[0], kStreamBytes, 71, [&] {
            injected = injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::qpError);
        });
        QVERIFY(injected.ok());
        QCOMPARE(err, std::string());
        const smcr::EngineStats cs = p.client->stats();
        QCOMPARE(cs.linkFailovers, 1ull);
        QCOMPARE(cs.connectionsAborted, 0ull);
        // The survivor is the added link: it has credits exactly when they were negotiated.
        QCOMPARE(cs.creditLinks, expectLinks / 2);
        if (expectLinks != 0) QVERIFY(cs.creditsReceived > 0);
        QCOMPARE(cs.cdcReservedNonzero, 0ull);
        QCOMPARE(p.server->stats().cdcReservedNonzero, 0ull);
        p.closeAll();
    }

    // ---- connections balanced over two links ---------------------------------------------

    void connectionsBalanceOverTwoLinks_data() {
        QTest::addColumn<int>("lose");  // 0 none, 1 the first link, 2 the added link
        QTest::newRow("both links up") << 0;
        QTest::newRow("first link lost") << 1;
        QTest::newRow("added link lost") << 2;
    }
    // Four connections: the first made the group, the next three join once
    // the second link is up and go to the link with fewer connections
    // (2 + 2). All four stream both ways at once; both links carry CDCs; a
    // lost link moves its two connections to the other, byte-exact.
    void connectionsBalanceOverTwoLinks() {
        QFETCH(int, lose);
        Pair p = makePair(kBase, kBase);
        p.connect();
        QVERIFY(twoLinks(p));
        for (int i = 0; i < 3; ++i) p.connect();
        // Each side learned the other's RMBs on the added link (CONFIRM_RKEY).
        QVERIFY(waitFor([&] { return p.client->stats().rkeysConfirmed >= 3 && p.server->stats().rkeysConfirmed >= 3; },
                        5000));
        const uint64_t bytes = kStreamBytes / 4;
        std::vector<std::string> errors(4);
        std::vector<std::thread> threads;
        for (size_t i = 0; i < 4; ++i) {
            threads.emplace_back(
                [&, i] { errors[i] = duplex(p.clientSockets[i], p.serverSockets[i], bytes, 80 + 10 * i, {}); });
        }
        smcr::EngineStats during;
        if (lose != 0) {
            // Let the streams run (every connection on its link: a thread
            // may start late), then kill one link under them.
            QVERIFY(waitFor(
                [&] {
                    return p.client->stats().connsSecondLink == 2 && p.server->stats().connsSecondLink == 2 &&
                           p.client->stats().total.rxBytes >= bytes;
                },
                10000));
            during = p.client->stats();
            const auto which = lose == 1 ? EngineImpl::LinkSelect::primary : EngineImpl::LinkSelect::standby;
            QVERIFY(injectLinkFault(p.client->impl(), which, Fault::qpError).ok());
        }
        for (auto& t : threads) t.join();
        for (size_t i = 0; i < 4; ++i)
            QVERIFY2(errors[i].empty(),
                     qPrintable(QString("connection %1: %2").arg(i).arg(QString::fromStdString(errors[i]))));
        const smcr::EngineStats cs = p.client->stats();
        const smcr::EngineStats ss = p.server->stats();
        qInfo("client: %llu CDCs, %llu on the added link; server: %llu CDCs, %llu on the added link",
              static_cast<unsigned long long>(cs.total.cdcSent), static_cast<unsigned long long>(cs.cdcSecondLink),
              static_cast<unsigned long long>(ss.total.cdcSent), static_cast<unsigned long long>(ss.cdcSecondLink));
        for (const smcr::EngineStats* st : {&cs, &ss}) {
            QVERIFY(st->cdcSecondLink > 0);
            QVERIFY(st->total.cdcSent > st->cdcSecondLink);
            QCOMPARE(st->connectionsAborted, 0ull);
        }
        if (lose == 0) {
            QCOMPARE(cs.connsSecondLink, 2ull);
            QCOMPARE(ss.connsSecondLink, 2ull);
            QCOMPARE(cs.linkFailovers, 0ull);
        } else {
            QCOMPARE(during.connsSecondLink, 2ull);
            QCOMPARE(cs.connsSecondLink, 0ull);  // one link left: everything on it
            QCOMPARE(cs.failoverConns, 2ull);    // the lost link's two connections moved
            QCOMPARE(cs.linkFailovers, lose == 1 ? 1ull : 0ull);
        }
        for (size_t i = 0; i < 4; ++i) {
            QVERIFY(p.clientSockets[i].shutdown(SHUT_WR).ok());
            QCOMPARE(expectEof(p.serverSockets[i]), std::string());
        }
        p.closeAll();
    }

    // ---- re-adding a link after a failover ---------------------------------------------

    // The first link dies: the connection moves to the added link, and the
    // server adds a new link on the port that is free again (after
    // lab.link_readd_ms). That link takes the connection over when the
    // carrying link dies too.
    void linkReAddedAfterFailover() {
        const Settings s = with(kBase, {{"lab.link_readd_ms", "300"}});
        Pair p = makePair(s, s);
        p.connect();
        QVERIFY(twoLinks(p));
        smcr::Socket& c = p.clientSockets[0];
        smcr::Socket& srv = p.serverSockets[0];
        const uint64_t bytes = kStreamBytes / 2;
        smcr::Status injected;
        QCOMPARE(
            duplex(
                c, srv, bytes, 91,
                [&] { injected = injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::qpError); }),
            std::string());
        QVERIFY(injected.ok());
        QCOMPARE(p.client->stats().linkFailovers, 1ull);
        QVERIFY2(waitFor([&] { return p.server->stats().linksAdded == 2 && p.client->stats().linksAdded == 2; }, 10000),
                 "no link was added again after the failover");
        QVERIFY(twoLinks(p));
        // The re-added link carries the stream when the survivor dies too.
        QCOMPARE(
            duplex(
                c, srv, bytes, 93,
                [&] { injected = injectLinkFault(p.client->impl(), EngineImpl::LinkSelect::primary, Fault::qpError); }),
            std::string());
        QVERIFY(injected.ok());
        const smcr::EngineStats cs = p.client->stats();
        QCOMPARE(cs.linkFailovers, 2ull);
        QCOMPARE(cs.connectionsAborted, 0ull);
        QVERIFY(waitFor([&] { return p.server->stats().linkFailovers == 2; }, 5000));
        QCOMPARE(p.server->stats().connectionsAborted, 0ull);
        QVERIFY(c.shutdown(SHUT_WR).ok());
        QCOMPARE(expectEof(srv), std::string());
        p.closeAll();
    }
};

QTEST_APPLESS_MAIN(TestLinkRobustness)
#include "test_link_robustness.moc"
