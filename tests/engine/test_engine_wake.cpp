// Which completions wake a waiting thread (engine_wake.cpp, fabric/README.md
// "The wake rule"): like the kernel's SMC, a reader waiting for an answer is
// woken by the answer, not by the completion of its own request; a waiter
// whose progress depends on a send completion (autocorked data that the last
// outstanding CDC's completion pushes) still gets that completion. Both ends
// are engines of this process on the cx4-25g link (a delayed delivery and
// ACK), with no busy polling, so every wait arms and sleeps. The checks count
// arms of the send CQ for its next completion (smcr.cq_send_arms) and
// completion-channel events (smcr.cq_events), no timing.
#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/poller.h>
#include <smcr/socket.h>

#include <QDir>
#include <QFile>
#include <QTest>

#include "engine_fixture.h"
#include "socket_io.h"
#include "stream_pattern.h"
#include "stream_transfer.h"

using namespace smclab::test;

namespace {

unsigned long long u(uint64_t v) {
    return v;
}

// What the waits of one engine did between two snapshots.
struct WakeCounts {
    uint64_t events = 0;    // completion-channel events
    uint64_t sleeps = 0;    // waits that armed and slept
    uint64_t sendArms = 0;  // arms that included the send CQ
};

WakeCounts wakeCounts(const smcr::EngineStats& before, const smcr::EngineStats& after) {
    return {after.cqEvents - before.cqEvents, after.blockingWaits - before.blockingWaits,
            after.cqSendArms - before.cqSendArms};
}

// The server of both tests: per round, reads `requestBytes` and answers with
// the last byte it read; stops after `rounds`.
class EchoServer {
public:
    EchoServer(const SettingList& settings, int rounds, size_t requestBytes)
        : m_engine(newEngine(settings)), m_rounds(rounds), m_requestBytes(requestBytes) {
        auto l = smcr::Listener::listen("127.0.0.1", 0, 4, m_engine);
        if (!l) qFatal("listen: %s", l.error().toString().c_str());
        m_listener = l.value();
        (void)m_listener.setTimeoutMs(10000);
        m_thread = std::thread([this] { run(); });
    }
    ~EchoServer() {
        if (m_thread.joinable()) m_thread.join();
    }
    uint16_t port() const { return m_listener.localPort(); }
    bool join() {
        m_thread.join();
        return m_ok.load();
    }

private:
    void run() {
        auto a = m_listener.accept();
        if (!a) return;
        smcr::Socket peer = a.value();
        (void)peer.setTimeoutMs(10000);
        std::vector<uint8_t> buf(m_requestBytes);
        for (int i = 0; i < m_rounds; ++i) {
            if (!recvAll(peer, buf.data(), buf.size())) return;
            if (!peer.send(&buf.back(), 1)) return;
        }
        m_ok = true;
        uint8_t end = 0;
        (void)peer.recv(&end, 1);  // the client's close
        peer.close();
    }

    std::shared_ptr<smcr::Engine> m_engine;
    smcr::Listener m_listener;
    int m_rounds;
    size_t m_requestBytes;
    std::atomic<bool> m_ok{false};
    std::thread m_thread;
};

// This process's engine background threads (tids).
QStringList backgroundThreads() {
    QStringList tids;
    for (const QString& tid : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm("/proc/self/task/" + tid + "/comm");
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "smcr-bg") tids << tid;
    }
    return tids;
}

// The background thread of an engine made after `known` was taken: a
// thread names itself once it runs, so this waits for it (up to 1 s).
QStringList newBackgroundThread(const QStringList& known) {
    QStringList fresh;
    for (int i = 0; i < 1000; ++i) {
        fresh = backgroundThreads();
        for (const QString& tid : known) fresh.removeAll(tid);
        if (!fresh.isEmpty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return fresh;
}

// Context switches so far of these threads.
uint64_t switchesOf(const QStringList& tids) {
    uint64_t total = 0;
    for (const QString& tid : tids) {
        QFile status("/proc/self/task/" + tid + "/status");
        if (!status.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& line : status.readAll().split('\n')) {
            if (line.contains("ctxt_switches:")) total += line.split('\t').last().trimmed().toULongLong();
        }
    }
    return total;
}

// One wait of a foreign event loop (libsmcr-preload.so's epoll_wait) for
// the poller: the poller's fd in the loop's own epoll set, the sleep cut at
// the sim's next due time. False after timeoutMs.
bool foreignWait(smcr::Engine& engine, smcr::Poller& poller, int epfd, int timeoutMs = 10000) {
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    poller.beginForeignWait();
    bool ready = false;
    while (!ready && std::chrono::steady_clock::now() < giveUp) {
        smcr::PollEvent ev[1];
        if (poller.wait(ev, 0).valueOr(0) > 0) {
            ready = true;
            break;
        }
        timespec ts{0, 10'000'000};
        if (const uint64_t due = engine.nextDueNs(); due != 0) {
            timespec now{};
            ::clock_gettime(CLOCK_MONOTONIC, &now);
            const uint64_t nowNs = uint64_t(now.tv_sec) * 1000000000ull + uint64_t(now.tv_nsec);
            const uint64_t left = due > nowNs ? due - nowNs : 0;
            ts = timespec{time_t(left / 1000000000ull), long(left % 1000000000ull)};
        }
        pollfd p{epfd, POLLIN, 0};
        if (::ppoll(&p, 1, &ts, nullptr) > 0) {
            epoll_event events[4];
            if (::epoll_wait(epfd, events, 4, 0) > 0) poller.fdReadable();
        }
    }
    poller.endForeignWait();
    return ready;
}

const SettingList kSettings = {{"lab.link", "cx4-25g"}, {"lab.busy_poll_us", "0"}, {"autocorking_size", "65536"}};

// A tcp_bw-like stream: 64 KiB sends into a 64 KiB sndbuf, 64 KiB reads of a
// 64 KiB RMBE (the kernel's default buffers), every byte checked. What each
// side's application threads did while it ran: the writer waits for sndbuf
// space, the reader for data.
struct BulkRun {
    std::string error;
    uint64_t messages = 0;
    WakeCounts writer;
    WakeCounts reader;
    uint64_t writerWindowUpdates = 0;  // received: the reader's announcements
};

BulkRun runBulkStream(const SettingList& settings, uint64_t messages) {
    BulkRun run;
    run.messages = messages;
    const uint64_t kMessage = 64 * 1024;
    const uint64_t total = messages * kMessage;
    auto serverEngine = newEngine(settings);
    auto l = smcr::Listener::listen("127.0.0.1", 0, 4, serverEngine);
    if (!l) {
        run.error = "listen: " + l.error().toString();
        return run;
    }
    smcr::Listener listener = l.value();
    (void)listener.setTimeoutMs(10000);
    std::string readerError;
    smcr::EngineStats r0;
    smcr::EngineStats r1;
    std::thread reader([&] {
        auto a = listener.accept();
        if (!a) {
            readerError = "accept: " + a.error().toString();
            return;
        }
        smcr::Socket peer = a.value();
        (void)peer.setTimeoutMs(20000);
        r0 = serverEngine->stats();
        readerError = recvRange(peer, 31, 0, total);
        r1 = serverEngine->stats();
        if (readerError.empty()) readerError = expectEof(peer);
        peer.close();
    });
    auto engine = newEngine(settings);
    smcr::Socket s = connectTo(engine, listener.localPort());
    if (s.fellBack()) run.error = "the connection fell back to TCP";
    (void)s.setTimeoutMs(20000);
    const smcr::EngineStats w0 = engine->stats();
    const smcr::ConnectionStats c0 = s.stats();
    if (run.error.empty()) run.error = sendRange(s, 31, 0, total);
    const smcr::EngineStats w1 = engine->stats();
    const smcr::ConnectionStats c1 = s.stats();
    s.close();
    reader.join();
    if (run.error.empty()) run.error = readerError;
    run.writer = wakeCounts(w0, w1);
    run.reader = wakeCounts(r0, r1);
    run.writerWindowUpdates = c1.cdcReceived - c0.cdcReceived;
    return run;
}

}  // namespace

namespace {

struct BusyLoopRun {
    std::string error;
    int rounds = 0;
    long long elapsedMs = 0;
    uint64_t channelEvents = 0;  // the client engine's completion-channel events meanwhile
    uint64_t allowed = 0;
    uint64_t switches = 0;  // its background thread's; printed, not judged (see below)
};

// 1-byte ping-pong where the client polls with Poller::wait(…, 0) and never
// sleeps in the engine: every channel event of its engine is the background
// thread's. Context switches are no measure here: on a loaded host they
// count the thread's waits for the mutex that the loop keeps taking (2000
// rounds: 15-40 quiet, up to 700 beside two busy CPUs with 30-40 wake-ups).
BusyLoopRun runBusyPollerLoop() {
    BusyLoopRun run;
    const SettingList settings = {{"lab.link", "ideal"}, {"lab.busy_poll_us", "0"}};
    run.rounds = 2000;
    QStringList known = backgroundThreads();
    EchoServer server(settings, run.rounds, 1);
    known += newBackgroundThread(known);  // the server engine's
    auto engine = newEngine(settings);
    const QStringList mine = newBackgroundThread(known);  // the client engine's
    if (mine.size() != 1) {
        run.error = "the client engine's background thread was not found";
        return run;
    }
    smcr::Socket s = connectTo(engine, server.port());
    if (s.fellBack() || !s.setNonBlocking(true).ok()) {
        run.error = "no non-blocking SMC-R connection";
        return run;
    }
    auto made = smcr::Poller::create(engine);
    if (!made.ok() || !made.value().add(s, POLLIN, &s).ok()) {
        run.error = "no poller";
        return run;
    }
    smcr::Poller poller = std::move(made.value());
    const uint64_t switches0 = switchesOf(mine);
    const uint64_t channelEvents0 = engine->stats().cqEvents;
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = true;
    for (int i = 0; i < run.rounds && ok; ++i) {
        uint8_t out = 0;
        fillPattern(607, uint64_t(i), &out, 1);
        ok = s.send(&out, 1).valueOr(0) == 1;
        smcr::PollEvent ev[1];
        while (ok && poller.wait(ev, 0).valueOr(0) == 0) {
            ok = std::chrono::steady_clock::now() < t0 + std::chrono::seconds(30);
        }
        uint8_t in = 0;
        ok = ok && s.recv(&in, 1).valueOr(0) == 1 && in == out;
    }
    run.elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    run.switches = switchesOf(mine) - switches0;
    run.channelEvents = engine->stats().cqEvents - channelEvents0;
    // A look per grace plus, on a host that held the loop off, the events
    // until the thread hands the channel back: one per ms of the run.
    run.allowed = uint64_t(run.rounds) / 10 + uint64_t(run.elapsedMs) + 10;
    (void)poller.remove(s);
    s.close();
    if (!ok) run.error = "the ping-pong broke off or an answer was wrong";
    if (!server.join() && run.error.empty()) run.error = "the echo server failed";
    return run;
}

// One blocking round against the EchoServer: a pattern byte out, its echo
// back and checked.
bool echoRound(smcr::Socket& s, uint64_t seed, int round) {
    uint8_t out = 0;
    fillPattern(seed, uint64_t(round), &out, 1);
    uint8_t in = 0;
    return s.send(&out, 1).ok() && recvAll(s, &in, 1) && in == out;
}

// `rounds` blocking round trips of one byte against an EchoServer (kSettings)
// and the client engine's stats just before and after them. `error` stays
// empty when every answer came back right and the server saw every round.
struct PingPongRun {
    std::string error;
    smcr::EngineStats before;
    smcr::EngineStats after;
};

PingPongRun blockingPingPong(int rounds, uint64_t seed) {
    PingPongRun run;
    EchoServer server(kSettings, rounds, 1);
    auto engine = newEngine(kSettings);
    smcr::Socket s = connectTo(engine, server.port());
    if (s.fellBack() || !s.setTimeoutMs(10000).ok()) {
        run.error = "the connection fell back to TCP or refused its timeout";
        return run;
    }
    run.before = engine->stats();
    bool ok = true;
    for (int i = 0; i < rounds && ok; ++i) ok = echoRound(s, seed, i);
    run.after = engine->stats();
    s.close();
    if (!ok) {
        run.error = "the ping-pong broke off or an answer was wrong";
    } else if (!server.join()) {
        run.error = "the server did not see every round";
    }
    return run;
}

}  // namespace

class TestEngineWake : public QObject {
    Q_OBJECT

private slots:
    void pingPongWakesOncePerAnswer() {
        // Before the rule the client's recv armed the send CQ too, and its
        // request's ACK (one wire latency after the delivery) fired the
        // channel every round: two events per round trip instead of one.
        const int kRounds = 400;
        const PingPongRun run = blockingPingPong(kRounds, 601);
        QVERIFY2(run.error.empty(), run.error.c_str());
        const auto [events, sleeps, sendArms] = wakeCounts(run.before, run.after);
        qInfo("%d round trips: %llu channel events (%.2f per round), %llu sleeps, %llu send CQ arms", kRounds,
              u(events), double(events) / kRounds, u(sleeps), u(sendArms));
        // Nothing waits for a send completion here: the reader never arms the
        // send CQ (before the rule it did before every sleep, more than once
        // per round). The background thread still arms both while it holds
        // the channel, which it takes back whenever the reader stayed away
        // for kChannelGraceMs: on a loaded host tens of times per run.
        QVERIFY2(sendArms <= uint64_t{kRounds} / 2, "the reader armed the send CQ although nothing waited for it");
        // One answer per round arrives on the receive CQ; it may come before
        // the reader sleeps (fewer events), never as a second event.
        QVERIFY2(events <= uint64_t{kRounds} * 5 / 4, "the reader is woken by more than its answers");
        // A wake-up leaves the channel's event for the next arm (its read is
        // not between the wake-up and the data); taken before that arm, it
        // never wakes the next sleep at once, which would be a second sleep
        // per answer.
        QVERIFY2(sleeps <= uint64_t{kRounds} * 5 / 4, "a wake-up's channel event woke the next sleep too");
    }

    void blockingReaderSleepsOnTheChannelWord() {
        // A blocking recv waits for nothing but the engine: it sleeps on the
        // channel's futex word (fabric.h, sleepOnWord), the wake-up of a
        // blocking read, not on ppoll over the channel's fds and its eventfd.
        // A foreign loop on the channel's fd would make it use the fds; here
        // there is none, so every sleep is a word sleep.
        const int kRounds = 300;
        const PingPongRun run = blockingPingPong(kRounds, 607);
        QVERIFY2(run.error.empty(), run.error.c_str());
        const uint64_t sleeps = run.after.blockingWaits - run.before.blockingWaits;
        const uint64_t onWord = run.after.wordSleeps - run.before.wordSleeps;
        qInfo("%d round trips: %llu sleeps, %llu of them on the channel's word", kRounds, u(sleeps), u(onWord));
        QVERIFY2(sleeps > 0, "the reader never slept (busy polling is off)");
        QCOMPARE(onWord, sleeps);
    }

    void aLeftChannelEventIsTakenByThePollersArm() {
        // A wake-up leaves the channel's event for the next arm, whoever
        // arms (EngineImpl::armLocked). A Poller's wait(…, 0) arms too: had
        // it left the event, the channel would stay readable, and a foreign
        // loop sleeping on the poller's fd (the preload's epoll_wait) would
        // wake at once every time. Rounds until one slept and the poller's
        // next arm took that wake-up's event (an answer may come before the
        // sleep; the background thread may take the event first).
        const SettingList settings = {{"lab.link", "ideal"}, {"lab.busy_poll_us", "0"}};
        const int kRounds = 200;
        EchoServer server(settings, kRounds, 1);
        auto engine = newEngine(settings);
        smcr::Socket s = connectTo(engine, server.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(10000).ok());
        auto made = smcr::Poller::create(engine);
        QVERIFY(made.ok());
        smcr::Poller poller = std::move(made.value());
        QVERIFY(poller.add(s, POLLIN, &s).ok());
        int slept = 0;
        bool taken = false;
        bool ok = true;
        for (int i = 0; i < kRounds && ok; ++i) {  // all of them: the server expects them
            const smcr::EngineStats e0 = engine->stats();
            ok = echoRound(s, 605, i);
            const smcr::EngineStats e1 = engine->stats();
            if (!ok || taken || e1.blockingWaits == e0.blockingWaits) continue;
            ++slept;
            smcr::PollEvent ev[1];
            for (int w = 0; w < 2; ++w) ok = ok && poller.wait(ev, 0).valueOr(1) == 0;
            taken = engine->stats().cqEvents > e1.cqEvents;
        }
        s.close();
        QVERIFY2(ok, "the ping-pong broke off, an answer was wrong or the poller saw an event of nothing");
        QVERIFY(server.join());
        qInfo("%d rounds slept until the poller's arm took a wake-up's event: %s", slept, taken ? "taken" : "never");
        QVERIFY2(slept > 0, "no round slept");
        QVERIFY2(taken, "the poller's arm took no wake-up's event: read at the wake-up, or left in the channel");
    }

    void foreignLoopIsWokenWithoutBackgroundThread() {
        // A foreign event loop (the preloaded program's epoll_wait) sleeps on
        // the poller's fd and is woken by the answer's completion directly.
        // Before Poller::beginForeignWait the background thread held the
        // channel too: it woke for every answer (and wrote the poller's
        // eventfd, a second wake-up of the loop), so its context switches
        // grew with the rounds. Now it only looks back on its timer (every
        // few ms, kChannelGraceMs) while the loop is between waits.
        // The preload's default link, no busy polling: every wait sleeps.
        const SettingList settings = {{"lab.link", "ideal"}, {"lab.busy_poll_us", "0"}};
        const int kRounds = 600;
        QStringList known = backgroundThreads();
        EchoServer server(settings, kRounds, 1);
        known += newBackgroundThread(known);  // the server engine's
        auto engine = newEngine(settings);
        const QStringList mine = newBackgroundThread(known);  // the client engine's
        QCOMPARE(mine.size(), 1);
        smcr::Socket s = connectTo(engine, server.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setNonBlocking(true).ok());
        auto made = smcr::Poller::create(engine);
        QVERIFY(made.ok());
        smcr::Poller poller = std::move(made.value());
        QVERIFY(poller.add(s, POLLIN, &s).ok());
        const int epfd = ::epoll_create1(EPOLL_CLOEXEC);
        QVERIFY(epfd >= 0);
        epoll_event ev{};
        ev.events = EPOLLIN;
        QCOMPARE(::epoll_ctl(epfd, EPOLL_CTL_ADD, poller.fd(), &ev), 0);
        const uint64_t switches0 = switchesOf(mine);
        const auto t0 = std::chrono::steady_clock::now();
        bool ok = true;
        for (int i = 0; i < kRounds && ok; ++i) {
            uint8_t out = 0;
            fillPattern(603, uint64_t(i), &out, 1);
            uint8_t in = 0;
            ok = s.send(&out, 1).valueOr(0) == 1 && foreignWait(*engine, poller, epfd) &&
                 s.recv(&in, 1).valueOr(0) == 1 && in == out;
        }
        const auto elapsedMs =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        const uint64_t switches = switchesOf(mine) - switches0;
        // An idle loop (a server between requests) holds the channel as long
        // as it sleeps, and the background thread sleeps too instead of
        // looking back every few ms (foreignWaitEndLocked kicks it when the
        // loop leaves): 300 ms of it would otherwise cost ~60 wake-ups.
        // The server waits for the close meanwhile: nothing arrives.
        const uint64_t idle0 = switchesOf(mine);
        const bool idleReady = foreignWait(*engine, poller, epfd, 300);
        const uint64_t idleSwitches = switchesOf(mine) - idle0;
        ::close(epfd);
        (void)poller.remove(s);
        s.close();
        QVERIFY2(ok, "the ping-pong broke off or an answer was wrong");
        QVERIFY(server.join());
        // The client engine's background thread looks back on its timer at
        // most every few ms (once per 2 ms allowed, with the time this run
        // took: a loaded or sanitizer host runs slower); a relay adds more
        // than one switch per round (~1.3 measured: 784 in 600 rounds).
        const uint64_t allowed = uint64_t{kRounds} / 2 + uint64_t(elapsedMs) / 2 + 10;
        qInfo(
            "%d round trips in %lld ms: %llu background-thread context switches (allowed %llu); "
            "300 ms idle: %llu",
            kRounds, static_cast<long long>(elapsedMs), u(switches), u(allowed), u(idleSwitches));
        QVERIFY2(switches <= allowed, "the background thread woke for the foreign loop's completions");
        QVERIFY2(!idleReady, "a readiness came from nowhere");
        QVERIFY2(idleSwitches <= 15, "the background thread kept looking back while the foreign loop slept");
    }

    void busyPollerLoopKeepsTheChannel() {
        // An event loop that always finds work (a kv server under 200
        // pipelining clients) calls Poller::wait without ever sleeping in
        // waitUntil. Its polls count as the application's: before, no
        // waiter had left waitUntil within the grace, so the background
        // thread took the channel, and the CQs the loop's wait(0) arms made
        // every answer wake it beside the loop (~1 switch per round).
        //
        // Left to its timers the background thread looks in about every
        // grace (5 ms) and finds the loop alive. A host busy with other work
        // preempts the loop for longer than a grace now and then; the
        // thread then rightly takes the channel for a while. So a run whose
        // loop was held off may miss the bound, and up to three runs are
        // made: the fault it guards against (about one channel event per
        // round) misses it in every one.
        const int kAttempts = 3;
        BusyLoopRun run;
        for (int attempt = 1; attempt <= kAttempts; ++attempt) {
            run = runBusyPollerLoop();
            QVERIFY2(run.error.empty(), run.error.c_str());
            qInfo(
                "run %d: %d round trips in %lld ms, the loop never sleeping: %llu completion-channel events "
                "(allowed %llu), %llu context switches of the background thread",
                attempt, run.rounds, static_cast<long long>(run.elapsedMs), u(run.channelEvents), u(run.allowed),
                u(run.switches));
            if (run.channelEvents <= run.allowed) break;
        }
        QVERIFY2(run.channelEvents <= run.allowed, "the background thread took the channel from a busy poller loop");
    }

    // Waiting like the kernel (no busy polling, the kernel's 64 KiB
    // buffers), a tcp_bw stream of 64 KiB messages. The kernel's writer
    // sleeps once per message, for sndbuf space; the peer's window update
    // is handled in softirq, which pushes the waiting bytes without waking
    // it. Here the writer polls for that update for lab.window_spin_us
    // (about one wake-up's cost) before it sleeps. Counts, no times: the
    // run with the spin and the run without, side by side.
    void bulkStreamStaysWithinItsWakeBudget() {
        const uint64_t kMessages = 1500;
        const SettingList base = {{"lab.link", "cx4lx-vf"},
                                  {"lab.busy_poll_us", "0"},
                                  {"wmem", "65536"},
                                  {"rmem", "65536"},
                                  {"autocorking_size", "65536"}};
        SettingList withSpin = base;
        withSpin.push_back({"lab.window_spin_us", "20"});
        SettingList without = base;
        without.push_back({"lab.window_spin_us", "0"});
        const BulkRun spin = runBulkStream(withSpin, kMessages);
        const BulkRun sleep = runBulkStream(without, kMessages);
        for (const BulkRun* r : {&spin, &sleep}) {
            QVERIFY2(r->error.empty(), r->error.c_str());
            qInfo(
                "%s: per 64 KiB message, writer %.2f sleeps %.2f channel events; reader %.2f sleeps %.2f events; "
                "%.2f CDCs from the reader",
                r == &spin ? "window spin 20 us" : "window spin off", double(r->writer.sleeps) / kMessages,
                double(r->writer.events) / kMessages, double(r->reader.sleeps) / kMessages,
                double(r->reader.events) / kMessages, double(r->writerWindowUpdates) / kMessages);
        }
        // Without the spin the reader announces once per 64 KiB read, as the
        // kernel's recvmsg; with it, at most once per quarter-RMB piece, and
        // only while the writer is awake to refill (the reader caught its
        // data polling).
        QVERIFY2(sleep.writerWindowUpdates <= kMessages * 11 / 10, "more than one window update per message");
        QVERIFY2(spin.writerWindowUpdates <= kMessages * 44 / 10, "more than one window update per quarter RMB");
        // The budget: a writer sleeps at most for the window and for the
        // completion that frees its sndbuf (plus the channel event its
        // armed send CQ raises for a completion it then polls itself); a
        // reader once for its data. A wake-up per CDC or per ACK beyond
        // that (a regression of the wake rule) is 3 or more per message.
        for (const BulkRun* r : {&spin, &sleep}) {
            QVERIFY2(r->writer.sleeps <= kMessages * 5 / 2, "the writer sleeps more than twice per message");
            QVERIFY2(r->reader.sleeps <= kMessages * 3 / 2, "the reader sleeps more than once per message");
        }
        // Polling for the window replaces channel wake-ups, it never adds
        // one per message (engine/README.md has the quiet figures). On a
        // loaded host spins miss: under ASan beside two booting VM guests
        // the writer took 2.12-2.32 events per message with the spin and
        // 1.87-1.94 without, with the event read at the wake-up or left for
        // the next arm alike. Sleeps are no measure here: without the spin a
        // writer that finds its completion already due skips a sleep that a
        // spinning one takes later.
        QVERIFY2(spin.writer.events <= sleep.writer.events + kMessages / 2,
                 "the writer's engine takes more channel events with the window spin than without");
    }

    void corkedSendStillWakesOnItsCompletion() {
        // A then B in one round: B is autocorked behind A's outstanding CDC
        // and leaves only with A's completion; the server answers after both.
        // The client's reader must therefore arm the send CQ and be woken by
        // that completion; left unarmed, B would wait for whatever polls the
        // CQ next (at worst the background thread's next look, milliseconds).
        // A is 16 KiB: on cx4-25g its delivery is ~6.6 us and its ACK ~7.9 us
        // after the post, so the reader almost never finds the ACK already
        // due on its first poll (then B would leave at once, no arm needed).
        const int kRounds = 300;
        const size_t kFirst = 16 * 1024;
        EchoServer server(kSettings, kRounds, kFirst + 1);
        auto engine = newEngine(kSettings);
        smcr::Socket s = connectTo(engine, server.port());
        QVERIFY(!s.fellBack());
        QVERIFY(s.setTimeoutMs(10000).ok());
        const smcr::EngineStats e0 = engine->stats();
        const smcr::ConnectionStats c0 = s.stats();
        bool ok = true;
        uint64_t off = 0;
        std::vector<uint8_t> out(kFirst + 1);
        for (int i = 0; i < kRounds && ok; ++i) {
            fillPattern(602, off, out.data(), out.size());
            off += out.size();
            uint8_t in = 0;
            ok = s.send(out.data(), kFirst).valueOr(0) == kFirst && s.send(&out[kFirst], 1).ok() &&
                 recvAll(s, &in, 1) && in == out[kFirst];
        }
        const smcr::EngineStats e1 = engine->stats();
        const smcr::ConnectionStats c1 = s.stats();
        s.close();
        QVERIFY2(ok, "the round trips broke off or an answer was wrong");
        QVERIFY(server.join());
        const auto [events, sleeps, sendArms] = wakeCounts(e0, e1);
        const uint64_t corked = c1.autocorkedSends - c0.autocorkedSends;
        qInfo(
            "%d rounds: %llu autocorked sends, %llu completion pushes, %llu channel events, %llu sleeps, "
            "%llu send CQ arms",
            kRounds, u(corked), u(c1.pushesCompletion - c0.pushesCompletion), u(events), u(sleeps), u(sendArms));
        // The premise: B usually finds A's CDC outstanding (its ACK is one
        // wire latency behind the delivery).
        QVERIFY2(corked >= uint64_t{kRounds} / 4, "too few rounds autocorked the second send");
        // A round sleeps once for the answer; a second sleep in a round is a
        // wait for A's completion with B corked, and that one must arm the
        // send CQ. Counting sleeps, not rounds, keeps this independent of
        // speed: a slow (sanitizer) build often finds A's ACK already due at
        // its first poll, pushes B at once and never sleeps on it. Left
        // unarmed, the reader sleeps twice in every corked round (woken by
        // the background thread's look, not the completion) with no arm.
        // A few sleeps have other causes (such as a wake-up the background thread's
        // timer look causes; an ASan run saw 14 extra sleeps against 5 arms
        // in 300 rounds): up to a tenth of the rounds is allowed for them,
        // far below the ~300 extra sleeps and 0 arms of a reader that never
        // arms.
        const uint64_t extraSleeps = sleeps > uint64_t{kRounds} ? sleeps - kRounds : 0;
        QVERIFY2(sendArms * 2 + uint64_t{kRounds} / 10 >= extraSleeps,
                 "the reader slept on corked data without arming the send CQ");
    }
};

QTEST_GUILESS_MAIN(TestEngineWake)
#include "test_engine_wake.moc"
