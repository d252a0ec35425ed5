// RQ credits (lab.rq_credits, seed 004) between two real processes over the
// sim fabric: stream integrity with credits on, interop with an engine that
// has them off in both roles (it must see reserved zeros only), and the RNR
// comparison: a small receive queue behind a slow receiver gives RNR NAKs
// without credits and none with them.
#include <smcr/engine.h>
#include <smcr/socket.h>

#include <QTest>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "peer_process.h"
#include "stream_pattern.h"

using namespace smclab::test;

namespace {

using SettingList = std::vector<std::pair<std::string, std::string>>;

std::shared_ptr<smcr::Engine> newEngine(const SettingList& settings) {
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

// Starts the peer with SMCR_SETTINGS (the peer's shared engine reads it).
bool startPeer(PeerProcess& peer, const std::string& peerSettings, const std::vector<std::string>& args,
               std::string* error) {
    if (peerSettings.empty()) {
        ::unsetenv("SMCR_SETTINGS");
    } else {
        ::setenv("SMCR_SETTINGS", peerSettings.c_str(), 1);
    }
    const bool ok = peer.start("smcr_test_peer", args, error);
    ::unsetenv("SMCR_SETTINGS");
    return ok;
}

// Duplex against the peer's "duplex" mode: stream seed+1 out, stream seed in,
// every byte checked on both ends. Returns an error text or "".
std::string runDuplex(smcr::Socket& s, uint64_t bytes, uint64_t seed) {
    if (!s.setTimeoutMs(20000)) return "setTimeout";
    std::string sendErr;
    std::thread sender([&] {
        MessageSizes sizes(seed + 1);
        std::vector<uint8_t> buf(1 << 20);
        uint64_t off = 0;
        while (off < bytes) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(sizes.next(), bytes - off));
            fillPattern(seed + 1, off, buf.data(), n);
            if (!sendAll(s, buf.data(), n)) {
                sendErr = "send failed at " + std::to_string(off);
                return;
            }
            off += n;
        }
        if (!s.shutdown(SHUT_WR)) sendErr = "shutdown failed";
    });
    MessageSizes sizes(seed ^ 0x77);
    std::vector<uint8_t> buf(1 << 20);
    uint64_t off = 0;
    std::string recvErr;
    for (;;) {
        auto r = s.recv(buf.data(), sizes.next());
        if (!r) {
            recvErr = r.error().toString();
            break;
        }
        if (r.value() == 0) break;
        const size_t bad = checkPattern(seed, off, buf.data(), r.value());
        if (bad != r.value()) {
            recvErr = "byte " + std::to_string(off + bad) + " wrong";
            break;
        }
        off += r.value();
    }
    sender.join();
    if (!sendErr.empty()) return sendErr;
    if (!recvErr.empty()) return recvErr;
    if (off != bytes) return "received " + std::to_string(off) + " of " + std::to_string(bytes);
    return "";
}

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
    if (!startPeer(peer, "smcr_max_recv_wr=4,lab.rx_repost_delay_us=40,lab.rq_credits=" + onOff,
                   {"echo", std::to_string(conns)}, &error)) {
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
        QVERIFY2(startPeer(peer, "lab.rq_credits=on,smcr_max_recv_wr=6", {"duplex", std::to_string(bytes), "300"},
                           &error),
                 error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "on"}, {"smcr_max_recv_wr", "6"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        const std::string err = runDuplex(s, bytes, 300);
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
        QVERIFY2(startPeer(peer, "", {"duplex", std::to_string(bytes), "400"}, &error), error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "on"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        const std::string err = runDuplex(s, bytes, 400);
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
        QVERIFY2(startPeer(peer, "lab.rq_credits=on", {"duplex", std::to_string(bytes), "500"}, &error),
                 error.c_str());
        auto engine = newEngine({{"lab.rq_credits", "off"}});
        smcr::Socket s = connectTo(engine, peer.port());
        QVERIFY(!s.fellBack());
        const std::string err = runDuplex(s, bytes, 500);
        QVERIFY2(err.empty(), err.c_str());
        s.close();
        QCOMPARE(peer.wait(20000), 0);
        const smcr::EngineStats es = engine->stats();
        QCOMPARE(es.creditLinks, 0ull);
        QCOMPARE(es.cdcReservedNonzero, 0ull);  // the credits-capable server sent reserved zeros
        QCOMPARE(es.rnrNaksSent + es.rnrNaksReceived, 0ull);  // default queues: no RNR either
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
