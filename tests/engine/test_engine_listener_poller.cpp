// A Poller that watches only listeners (an accept loop, as the agents'
// tcp and http servers run beside their connection threads) sleeps outside
// the engine: the completions of the connections its program serves do not
// wake it. In the engine it was woken by every CDC and busy-polled each
// time, which took half the bandwidth of a tcp_bw server on two cores.
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/poller.h>
#include <smcr/socket.h>

#include <QTest>

#include "engine_fixture.h"
#include "kernel_client.h"
#include "peer_process.h"
#include "socket_io.h"
#include "stream_pattern.h"

using namespace smclab::test;

namespace {

// Context switches of the calling thread so far: each sleep that ends, each preemption.
long threadSwitches() {
    rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

// One waiter thread in poller.wait(); what it returned and how often it was switched out.
struct Waiter {
    std::atomic<int> returned{-1};  // events, or -2 on an error
    std::atomic<long> switches{-1};
    std::thread thread;
    smcr::PollEvent events[4];

    void start(smcr::Poller& poller, int timeoutMs) {
        thread = std::thread([this, &poller, timeoutMs] {
            const long before = threadSwitches();
            auto n = poller.wait(events, timeoutMs);
            switches = threadSwitches() - before;
            returned = n ? static_cast<int>(n.value()) : -2;
        });
    }
};

// An engine with a listener and a poller that watches only it (an accept loop).
struct AcceptLoop {
    std::shared_ptr<smcr::Engine> engine = newEngine();
    smcr::Result<smcr::Listener> listener = smcr::Listener::listen("127.0.0.1", 0, 16, engine);
    smcr::Result<smcr::Poller> poller = smcr::Poller::create(engine);
    int tag = 0;

    bool open() { return listener.ok() && poller.ok() && poller->add(listener.value(), POLLIN, &tag).ok(); }
};

}  // namespace

class TestEngineListenerPoller : public QObject {
    Q_OBJECT
private slots:
    // 2000 round trips on the engine while a listener-only poller waits: it
    // sleeps through them (a handful of switches; in the engine it was woken
    // about once per round trip) and still returns at once on wakeup().
    void acceptLoopSleepsThroughTraffic() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", "1"}, &error), error.c_str());
        AcceptLoop loop;
        QVERIFY(loop.open());
        auto& engine = loop.engine;
        auto& listener = loop.listener;
        auto& poller = loop.poller;

        smcr::Socket sock = connectTo(engine, peer.port());
        QVERIFY2(!sock.fellBack(), fallbackText(sock).c_str());
        Waiter waiter;
        waiter.start(poller.value(), 20000);
        const size_t msg = 64;
        const int rounds = 2000;
        std::vector<uint8_t> out(msg), in(msg);
        for (int i = 0; i < rounds; ++i) {
            fillPattern(77, uint64_t(i) * msg, out.data(), msg);
            QVERIFY(sendAll(sock, out.data(), msg));
            QVERIFY(recvAll(sock, in.data(), msg));
            QCOMPARE(in, out);
        }
        QCOMPARE(waiter.returned.load(), -1);  // nothing to report yet: still waiting
        poller->wakeup();
        QVERIFY(waitFor([&] { return waiter.returned.load() != -1; }, 5000));
        waiter.thread.join();
        QCOMPARE(waiter.returned.load(), 0);
        QVERIFY2(waiter.switches.load() < 50,
                 qPrintable(QStringLiteral("the accept loop was switched %1 times in %2 round trips")
                                .arg(waiter.switches.load())
                                .arg(rounds)));
        QVERIFY(poller->remove(listener.value()).ok());
        sock.close();
        QCOMPARE(peer.wait(20000), 0);
    }

    // Asleep outside the engine, it still sees a connection queued for the
    // listener, and the listener's close (POLLNVAL).
    void listenerOnlyWaitSeesConnectionAndClose() {
        AcceptLoop loop;
        QVERIFY(loop.open());
        auto& listener = loop.listener;
        auto& poller = loop.poller;
        int& tag = loop.tag;
        Waiter first;
        first.start(poller.value(), 20000);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let it fall asleep
        const int client = kernelConnect(listener->localPort());
        QVERIFY(client >= 0);
        QVERIFY(writeAll(client, "plain", 5));  // a TCP client: fast fallback queues it
        QVERIFY(waitFor([&] { return first.returned.load() != -1; }, 10000));
        first.thread.join();
        QCOMPARE(first.returned.load(), 1);
        QCOMPARE(first.events[0].userData, static_cast<void*>(&tag));
        QVERIFY((first.events[0].events & POLLIN) != 0);
        QVERIFY(listener->setNonBlocking(true).ok());
        auto accepted = listener->accept();
        QVERIFY(accepted.ok() && accepted->fellBack());

        Waiter second;
        second.start(poller.value(), 20000);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        listener->close();
        QVERIFY(waitFor([&] { return second.returned.load() != -1; }, 10000));
        second.thread.join();
        QCOMPARE(second.returned.load(), 1);
        QVERIFY((second.events[0].events & POLLNVAL) != 0);
        ::close(client);
    }

    // An SMC socket added by another thread while the poller sleeps outside
    // the engine moves the wait into the engine: its data is reported.
    void socketAddedDuringListenerOnlyWait() {
        PeerProcess peer;
        std::string error;
        QVERIFY2(peer.start("smcr_test_peer", {"echo", "1"}, &error), error.c_str());
        AcceptLoop loop;
        QVERIFY(loop.open());
        auto& engine = loop.engine;
        auto& listener = loop.listener;
        auto& poller = loop.poller;
        int sockTag = 0;
        smcr::Socket sock = connectTo(engine, peer.port());
        QVERIFY2(!sock.fellBack(), fallbackText(sock).c_str());
        Waiter waiter;
        waiter.start(poller.value(), 20000);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        QVERIFY(poller->add(sock, POLLIN, &sockTag).ok());
        const char ping[] = "ping";
        QVERIFY(sendAll(sock, ping, 4));  // the echo makes it readable
        QVERIFY(waitFor([&] { return waiter.returned.load() != -1; }, 10000));
        waiter.thread.join();
        QCOMPARE(waiter.returned.load(), 1);
        QCOMPARE(waiter.events[0].userData, static_cast<void*>(&sockTag));
        char back[4];
        QVERIFY(recvAll(sock, back, 4));
        QVERIFY(std::memcmp(back, ping, 4) == 0);
        QVERIFY(poller->remove(sock).ok());
        QVERIFY(poller->remove(listener.value()).ok());
        sock.close();
        QCOMPARE(peer.wait(20000), 0);
    }
};

QTEST_APPLESS_MAIN(TestEngineListenerPoller)
#include "test_engine_listener_poller.moc"
