// Faults in the middle of an SMC-R stream, injected through the sim fabric
// (smcr/fabric_sim.h): a QP moved to ERR on either side, a lost completion,
// a failed post, delayed delivery, and a peer process killed with SIGKILL.
// Every case must end either with the whole stream delivered (a recovery) or
// with a clear error on the side that was still using the connection, never
// a hang; and whatever the receiver got must be an exact prefix of what was
// sent, byte for byte (no silent loss or corruption).
//
// The same program is the peer of the SIGKILL case: `test_fault_injection
// --peer` listens, prints "PORT <n>" and sends stream 7 until killed.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>

#include <smcr/engine.h>
#include <smcr/fabric_sim.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include <QTest>

#include "core/shell/engine_impl.h"
#include "core/shell/socket_impl.h"
#include "engine_fixture.h"
#include "peer_process.h"
#include "stream_pattern.h"

using namespace smclab::test;
using smcr::fabric::sim::Fault;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kSeed = 7;
constexpr int kIoTimeoutMs = 20000;  // far beyond any recovery; reaching it is a hang
// The send-completion watchdog's timeout in the lost-completion cases (the
// default, like the kernel's, is 10 s).
constexpr const char* kTxCompletionTimeoutMs = "1000";

// Arms a fault on the QP that carries `socket`'s connection.
smcr::Status injectFault(smcr::Socket& socket, Fault fault, uint64_t value = 0) {
    smcr::core::SocketImpl& impl = *socket.impl();
    smcr::core::EngineImpl& engine = impl.engine();
    std::lock_guard<std::mutex> lock(engine.mutex());
    smcr::core::Connection* conn = impl.connection();
    if (conn == nullptr || !conn->lgr) return smcr::fail(smcr::Errc::invalidArgument, "socket has no SMC-R link");
    smcr::fabric::sim::SimControl* sim = smcr::fabric::sim::simControl(engine.device());
    if (sim == nullptr) return smcr::fail(smcr::Errc::notSupported, "not a sim device");
    return sim->injectFault(*conn->lgr->primary().qp, fault, value);
}

// What one side saw.
struct Side {
    uint64_t bytes = 0;
    bool eof = false;   // receiver: recv() returned 0
    bool done = false;  // sender: sent everything and closed
    smcr::Errc error = smcr::Errc::invalid;
    std::string firstBadByte;  // receiver: where the data stopped matching
    bool failed() const { return error != smcr::Errc::invalid; }
};

// Receives stream kSeed until EOF or an error, checking every byte.
Side receiveStream(smcr::Socket& s, int ioTimeoutMs) {
    Side side;
    (void)s.setTimeoutMs(ioTimeoutMs);
    std::vector<uint8_t> buf(65536);
    for (;;) {
        auto r = s.recv(buf.data(), buf.size());
        if (!r) {
            side.error = r.error().code;
            break;
        }
        if (r.value() == 0) {
            side.eof = true;
            break;
        }
        const size_t bad = checkPattern(kSeed, side.bytes, buf.data(), r.value());
        if (bad != r.value()) {
            side.firstBadByte = std::to_string(side.bytes + bad);
            break;
        }
        side.bytes += r.value();
    }
    return side;
}

// Sends `total` bytes of stream kSeed, calling atMark() once `mark` bytes are
// out, then closes; stops at the first error.
Side sendStream(smcr::Socket& s, uint64_t total, uint64_t mark, int ioTimeoutMs, const std::function<void()>& atMark) {
    Side side;
    (void)s.setTimeoutMs(ioTimeoutMs);
    MessageSizes sizes(kSeed);
    std::vector<uint8_t> buf(1 << 20);
    bool marked = false;
    while (side.bytes < total) {
        if (!marked && side.bytes >= mark) {
            marked = true;
            atMark();
        }
        const size_t n = static_cast<size_t>(std::min<uint64_t>(sizes.next(), total - side.bytes));
        fillPattern(kSeed, side.bytes, buf.data(), n);
        size_t done = 0;
        while (done < n) {
            auto w = s.send(buf.data() + done, n - done);
            if (!w) {
                side.error = w.error().code;
                side.bytes += done;
                return side;
            }
            done += w.value();
        }
        side.bytes += n;
    }
    s.close();
    side.done = true;
    return side;
}

enum class Where { sender, receiver };

struct FaultRun {
    Side sender;
    Side receiver;
    int64_t elapsedMs = 0;
    smcr::EngineStats senderStats;  // the client engine's, at the end
    QString text() const {
        return QString("sender %1 bytes%2%3, receiver %4 bytes%5%6 in %7 ms")
            .arg(sender.bytes)
            .arg(sender.done ? " done" : "")
            .arg(sender.failed() ? QString(" error %1").arg(smcr::errcName(sender.error)) : QString())
            .arg(receiver.bytes)
            .arg(receiver.eof ? " eof" : "")
            .arg(receiver.failed() ? QString(" error %1").arg(smcr::errcName(receiver.error)) : QString())
            .arg(elapsedMs);
    }
};

// One connection between two engines in this process; `total` bytes from
// the client to the server, the fault armed on `where` after `mark` bytes.
FaultRun runWithFault(Fault fault, Where where, uint64_t value, uint64_t total, uint64_t mark,
                      int ioTimeoutMs = kIoTimeoutMs, const std::string& maxLinks = "2",
                      const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    std::vector<std::pair<std::string, std::string>> settings = {{"smcr_max_links_per_lgr", maxLinks}};
    settings.insert(settings.end(), extra.begin(), extra.end());
    auto serverEngine = newEngine(settings);
    auto clientEngine = newEngine(settings);
    auto listener = smcr::Listener::listen("127.0.0.1", 0, 8, serverEngine);
    if (!listener) qFatal("listen: %s", listener.error().toString().c_str());
    smcr::ConnectOptions options;
    options.engine = clientEngine;
    auto client = smcr::Socket::connect("127.0.0.1", listener->localPort(), options);
    if (!client) qFatal("connect: %s", client.error().toString().c_str());
    auto server = listener->accept();
    if (!server) qFatal("accept: %s", server.error().toString().c_str());
    if (client->fellBack() || server->fellBack()) qFatal("connection fell back to TCP");
    if (maxLinks != "1") {
        // The fault must find the second link up (ADD_LINK runs after first contact).
        const auto until = Clock::now() + std::chrono::seconds(5);
        while (clientEngine->stats().linksActive < 2 || serverEngine->stats().linksActive < 2) {
            if (Clock::now() > until) qFatal("no second link");
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

    FaultRun result;
    const auto start = Clock::now();
    std::thread receiver([&] { result.receiver = receiveStream(*server, ioTimeoutMs); });
    result.sender = sendStream(*client, total, mark, ioTimeoutMs, [&] {
        smcr::Socket& target = where == Where::sender ? *client : *server;
        const smcr::Status armed = injectFault(target, fault, value);
        if (!armed.ok()) qFatal("inject: %s", armed.error().toString().c_str());
    });
    receiver.join();
    result.elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    result.senderStats = clientEngine->stats();
    server->close();
    client->close();
    listener->close();
    return result;
}

bool hung(const FaultRun& r) {
    return r.receiver.error == smcr::Errc::timedOut || r.sender.error == smcr::Errc::timedOut;
}

bool isAbort(smcr::Errc code) {
    return code == smcr::Errc::connectionReset || code == smcr::Errc::connectionAborted;
}

}  // namespace

class TestFaultInjection : public QObject {
    Q_OBJECT
private:
    // The properties every case shares: nothing corrupt, no hang, and an
    // end that is either the whole stream or an abort the receiver sees.
    static void checkCommon(const FaultRun& r, uint64_t total) {
        qInfo("%s", qPrintable(r.text()));
        QVERIFY2(r.receiver.firstBadByte.empty(), qPrintable("received data differs from the sent stream at byte " +
                                                             QString::fromStdString(r.receiver.firstBadByte)));
        QVERIFY2(!hung(r), qPrintable("hang: " + r.text()));
        QVERIFY2(r.receiver.bytes <= r.sender.bytes, qPrintable(r.text()));
        if (r.receiver.eof) {
            // A clean end of stream must mean every byte arrived.
            QVERIFY2(r.sender.done && r.receiver.bytes == total, qPrintable("silent loss: " + r.text()));
        } else {
            QVERIFY2(isAbort(r.receiver.error), qPrintable("unclear end: " + r.text()));
        }
    }

private slots:
    void qpErrorMidStream_data() {
        QTest::addColumn<int>("where");
        QTest::addColumn<QString>("maxLinks");
        QTest::newRow("sender QP, one link") << static_cast<int>(Where::sender) << QString("1");
        QTest::newRow("receiver QP, one link") << static_cast<int>(Where::receiver) << QString("1");
        QTest::newRow("sender QP, two links") << static_cast<int>(Where::sender) << QString("2");
        QTest::newRow("receiver QP, two links") << static_cast<int>(Where::receiver) << QString("2");
    }
    void qpErrorMidStream() {
        QFETCH(int, where);
        QFETCH(QString, maxLinks);
        const uint64_t total = 64ull << 20;
        const FaultRun r = runWithFault(Fault::qpError, static_cast<Where>(where), 0, total, 2 << 20, kIoTimeoutMs,
                                        maxLinks.toStdString());
        checkCommon(r, total);
        if (maxLinks == "1") {
            // The only link is gone: the stream cannot complete, both sides learn it.
            QVERIFY2(isAbort(r.receiver.error), qPrintable(r.text()));
            QVERIFY2(r.sender.failed() && isAbort(r.sender.error), qPrintable(r.text()));
        } else {
            // The second link takes the connection over: every byte arrives once.
            QVERIFY2(r.receiver.eof && r.receiver.bytes == total, qPrintable("no failover: " + r.text()));
        }
    }

    void lostCompletion_data() {
        QTest::addColumn<int>("where");
        QTest::addColumn<QString>("maxLinks");
        QTest::newRow("sender's send completion") << static_cast<int>(Where::sender) << QString("2");
        QTest::newRow("sender's send completion, one link") << static_cast<int>(Where::sender) << QString("1");
        QTest::newRow("receiver's receive completion") << static_cast<int>(Where::receiver) << QString("2");
    }
    void lostCompletion() {
        QFETCH(int, where);
        QFETCH(QString, maxLinks);
        const uint64_t total = 16ull << 20;
        // The send slot of a lost completion is never returned: the
        // send-completion watchdog (the kernel's SMC_WR_TX_WAIT_FREE_SLOT_TIME)
        // takes the link down once nothing completes for its timeout; with a
        // second link the stream moves there, with one it is aborted.
        const FaultRun r =
            runWithFault(Fault::dropCompletion, static_cast<Where>(where), 0, total, 1 << 20, kIoTimeoutMs,
                         maxLinks.toStdString(), {{"lab.tx_completion_timeout_ms", kTxCompletionTimeoutMs}});
        qInfo("watchdog: %llu link(s) down, %llu failover(s)",
              static_cast<unsigned long long>(r.senderStats.txCompletionTimeouts),
              static_cast<unsigned long long>(r.senderStats.linkFailovers));
        checkCommon(r, total);
        if (maxLinks == "2") {
            QVERIFY2(r.receiver.eof && r.receiver.bytes == total, qPrintable("no recovery: " + r.text()));
        } else if (!r.receiver.eof) {
            // The last link went down by the watchdog: the receiver saw an
            // abort (checkCommon), never EOF; a sender still sending fails too.
            QVERIFY2(r.senderStats.txCompletionTimeouts == 1, qPrintable(r.text()));
            if (!r.sender.done) QVERIFY2(isAbort(r.sender.error), qPrintable(r.text()));
        }
    }

    void failedPost_data() {
        QTest::addColumn<QString>("maxLinks");
        QTest::newRow("one link") << QString("1");
        QTest::newRow("two links") << QString("2");
    }
    void failedPost() {
        QFETCH(QString, maxLinks);
        const uint64_t total = 16ull << 20;
        const FaultRun r =
            runWithFault(Fault::failNextPost, Where::sender, 0, total, 1 << 20, kIoTimeoutMs, maxLinks.toStdString());
        qInfo("sender: %llu failover(s), %llu CDC(s) handled from the retired link, %llu abort(s)",
              static_cast<unsigned long long>(r.senderStats.linkFailovers),
              static_cast<unsigned long long>(r.senderStats.retiredLinkCdcs),
              static_cast<unsigned long long>(r.senderStats.connectionsAborted));
        checkCommon(r, total);
        if (maxLinks == "2") {
            // The second link takes the stream over: every byte arrives once,
            // never an abort. A CDC the receiver sent just as the sender's QP
            // went to ERR may complete on the dead link after the failover;
            // it is still handled (smcr.retired_link_cdcs), so the receiver's
            // failover validation, which counts it as delivered, passes.
            QVERIFY2(r.receiver.eof && r.receiver.bytes == total, qPrintable("no failover: " + r.text()));
            QVERIFY2(!r.sender.failed() && !r.receiver.failed(), qPrintable(r.text()));
            QCOMPARE(r.senderStats.linkFailovers, 1ull);
            QCOMPARE(r.senderStats.connectionsAborted, 0ull);
        } else {
            // The sender aborts and shuts its TCP socket down, so the
            // receiver learns it too (a reset) instead of waiting forever.
            QVERIFY2(!r.receiver.eof && r.sender.failed(), qPrintable(r.text()));
        }
    }

    void delayedDeliveryRecovers() {
        const uint64_t total = 16ull << 20;
        // 200 ms on one RDMA WRITE or CDC: late, not lost.
        const FaultRun r = runWithFault(Fault::delayDelivery, Where::sender, 200'000'000, total, 1 << 20);
        checkCommon(r, total);
        QVERIFY2(r.receiver.eof && r.receiver.bytes == total, qPrintable(r.text()));
    }

    void peerSigkillMidStream() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("../tests/test_fault_injection", {"--peer"}, &error), error.c_str());
        auto engine = newEngine();
        smcr::ConnectOptions options;
        options.engine = engine;
        auto s = smcr::Socket::connect("127.0.0.1", peer.port(), options);
        QVERIFY(s.ok());
        QVERIFY(!s->fellBack());
        (void)s->setTimeoutMs(kIoTimeoutMs);
        std::vector<uint8_t> buf(65536);
        uint64_t got = 0;
        bool killed = false;
        smcr::Errc code = smcr::Errc::invalid;
        const auto start = Clock::now();
        for (;;) {
            if (!killed && got >= (4u << 20)) {
                peer.kill();
                QCOMPARE(peer.wait(5000), 128 + SIGKILL);
                killed = true;
            }
            auto r = s->recv(buf.data(), buf.size());
            if (!r) {
                code = r.error().code;
                break;
            }
            QVERIFY2(r.value() > 0, "a killed peer must not look like an orderly close");
            const size_t bad = checkPattern(kSeed, got, buf.data(), r.value());
            QVERIFY2(bad == r.value(), qPrintable(QString("byte %1 differs").arg(got + bad)));
            got += r.value();
        }
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
        qInfo("received %llu bytes, then %s after %lld ms", static_cast<unsigned long long>(got), smcr::errcName(code),
              static_cast<long long>(ms));
        QVERIFY(killed);
        QVERIFY2(isAbort(code), smcr::errcName(code));
        s->close();
    }
};

namespace {

// The SIGKILL case's peer: sends stream kSeed to its one client forever.
int runPeer() {
    auto l = smcr::Listener::listen("127.0.0.1", 0);
    if (!l) return 1;
    std::printf("PORT %u\n", l->localPort());
    std::fflush(stdout);
    auto s = l->accept();
    if (!s) return 1;
    std::vector<uint8_t> buf(65536);
    for (uint64_t off = 0;; off += buf.size()) {
        fillPattern(kSeed, off, buf.data(), buf.size());
        size_t done = 0;
        while (done < buf.size()) {
            auto w = s->send(buf.data() + done, buf.size() - done);
            if (!w) return 0;
            done += w.value();
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--peer") == 0) return runPeer();
    TestFaultInjection test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_fault_injection.moc"
