// fork() with open connections (engine_fork.cpp): the engine parks before
// fork(), and the first process that claims it runs it on with every
// connection as it was; the other process's copy stays parked. Both
// engines live in this process (a server's and a client's, over the sim
// fabric), so the child takes the server's side while the parent goes on
// as the client, and every byte in both directions is checked.
#include <cstring>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include <QTest>

#include "engine_fixture.h"
#include "socket_io.h"
#include "stream_pattern.h"

using namespace smclab::test;

namespace {

constexpr uint64_t kClientSeed = 7;
constexpr uint64_t kServerSeed = 8;

bool sendPattern(smcr::Socket& s, uint64_t seed, uint64_t from, uint64_t to) {
    std::vector<uint8_t> buf(64 * 1024);
    while (from < to) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), to - from));
        fillPattern(seed, from, buf.data(), n);
        if (!sendAll(s, buf.data(), n)) return false;
        from += n;
    }
    return true;
}

bool recvPattern(smcr::Socket& s, uint64_t seed, uint64_t from, uint64_t to) {
    std::vector<uint8_t> buf(64 * 1024);
    while (from < to) {
        auto r = s.recv(buf.data(), static_cast<size_t>(std::min<uint64_t>(buf.size(), to - from)));
        if (!r || r.value() == 0) return false;
        if (checkPattern(seed, from, buf.data(), r.value()) != r.value()) return false;
        from += r.value();
    }
    return true;
}

struct Pair {
    std::shared_ptr<smcr::Engine> serverEngine = newEngine();
    std::shared_ptr<smcr::Engine> clientEngine = newEngine();
    smcr::Socket server;
    smcr::Socket client;

    Pair() {
        auto listener = smcr::Listener::listen("127.0.0.1", 0, 8, serverEngine);
        if (!listener) qFatal("listen: %s", listener.error().toString().c_str());
        std::thread accepter([&] {
            auto s = listener->accept();
            if (s) server = std::move(s.value());
        });
        client = connectTo(clientEngine, listener->localPort());
        accepter.join();
    }
};

int childExit(bool ok) {
    ::_exit(ok ? 0 : 1);
}

}  // namespace

class TestEngineFork : public QObject {
    Q_OBJECT

private slots:
    // Accept, fork, the child serves: the connection accepted before fork()
    // works in the child, in both directions, byte-exact, over SMC-R (the
    // bytes before the fork were the parent's); the parent's copy of the
    // engine can no longer be claimed.
    void childRunsTheEngineOn() {
        Pair p;
        QVERIFY(p.server.valid() && !p.server.fellBack() && !p.client.fellBack());
        // Some traffic before the fork, both ways.
        QVERIFY(sendPattern(p.client, kClientSeed, 0, 100000));
        QVERIFY(recvPattern(p.server, kClientSeed, 0, 100000));
        QVERIFY(sendPattern(p.server, kServerSeed, 0, 50000));
        QVERIFY(p.serverEngine->parkForFork());
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        p.serverEngine->afterFork();
        if (pid == 0) {
            if (!p.serverEngine->claim(::getpid())) childExit(false);
            const bool ok = sendPattern(p.server, kServerSeed, 50000, 3000000) &&
                            recvPattern(p.server, kClientSeed, 100000, 2000000);
            p.server.close();
            p.serverEngine->flushClosed();
            childExit(ok);
        }
        QVERIFY(p.serverEngine->parked());
        // This process will never run the server's engine again: its copy
        // lets go of its fds and mappings, and nothing the child runs on
        // may notice (the child's side goes on below). Its socket is the
        // child's to close: this copy's close() sends nothing.
        p.serverEngine->discard();
        QVERIFY(!p.serverEngine->claim(::getpid()));
        p.server.close();
        bool sent = false;
        std::thread writer([&] { sent = sendPattern(p.client, kClientSeed, 100000, 2000000); });
        QVERIFY(recvPattern(p.client, kServerSeed, 0, 3000000));
        writer.join();
        QVERIFY(sent);
        uint8_t byte = 0;
        auto end = p.client.recv(&byte, 1);  // the child's close: end of stream, no reset
        QVERIFY2(end && end.value() == 0, end ? "data after the stream" : end.error().toString().c_str());
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QVERIFY(!p.serverEngine->claim(::getpid()));
        QVERIFY(!p.serverEngine->runsIn(::getpid()));
        QVERIFY(counter(p.clientEngine->stats(), "smcr.rdma_writes") > 0);
    }

    // A child that never touches the connections (a snapshot child, a
    // child that execs): the parent claims its engine back and goes on.
    void parentClaimsItBack() {
        Pair p;
        QVERIFY(!p.server.fellBack());
        QVERIFY(sendPattern(p.client, kClientSeed, 0, 10000));
        QVERIFY(p.serverEngine->parkForFork());
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        p.serverEngine->afterFork();
        if (pid == 0) ::_exit(0);
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(p.serverEngine->claim(::getpid()));
        QVERIFY(p.serverEngine->runsIn(::getpid()));
        QVERIFY(recvPattern(p.server, kClientSeed, 0, 10000));
        bool sent = false;
        std::thread writer([&] { sent = sendPattern(p.server, kServerSeed, 0, 1000000); });
        QVERIFY(recvPattern(p.client, kServerSeed, 0, 1000000));
        writer.join();
        QVERIFY(sent);
    }

    // No open connection: nothing to hand over, the engine keeps running
    // here (a child makes its own).
    void idleEngineDoesNotPark() {
        auto engine = newEngine();
        QVERIFY(!engine->parkForFork());
        engine->afterFork();
        QVERIFY(engine->runsIn(::getpid()));
        QVERIFY(engine->claim(::getpid()));
    }
};

QTEST_GUILESS_MAIN(TestEngineFork)
#include "test_engine_fork.moc"
