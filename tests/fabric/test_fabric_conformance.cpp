// Conformance suite of the fabric interface, run against one backend
// (SMCLAB_FABRIC_BACKEND, default sim). Every scenario that involves a peer
// runs it in a forked process, connected with only the CLC fields.
#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <ctime>
#include <thread>
#include <vector>

#include <poll.h>

#include <QTest>

#include "fabric_pair.h"

using namespace fabrictest;
using smcr::Errc;
using Clock = std::chrono::steady_clock;

namespace {

bool isSim() {
    return backendName() == "sim";
}

OpenOptions simOptions(const char* link = "ideal", int transportTimeoutMs = 0) {
    OpenOptions options;
    if (!isSim()) return options;
    options["link"] = link;
    if (transportTimeoutMs > 0) options["transport_timeout_ms"] = std::to_string(transportTimeoutMs);
    return options;
}

// An absolute deadline on the clock of sleepOnWord (CLOCK_MONOTONIC, which
// steady_clock reads on Linux).
uint64_t deadlineInMs(int ms) {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec) + uint64_t(ms) * 1000000ull;
}

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Child skeleton: set up, swap endpoints, connect, tell the parent, run body.
int runChild(int ctl, const SideOptions& options, const std::function<int(Side&, const Endpoint&, int)>& body) {
    Side side;
    PEER_CHECK(side.setup(options).ok());
    Endpoint peer;
    PEER_CHECK(sendValue(ctl, side.local()));
    PEER_CHECK(recvValue(ctl, &peer));
    PEER_CHECK(side.connect(peer).ok());
    PEER_CHECK(signal(ctl));
    return body(side, peer, ctl);
}

// Parent skeleton: set up, swap endpoints, connect, wait until the child is connected.
bool connectParent(Side& side, const SideOptions& options, int ctl, Endpoint* peer) {
    auto st = side.setup(options);
    if (!st) {
        qWarning("setup: %s", st.error().toString().c_str());
        return false;
    }
    if (!sendValue(ctl, side.local()) || !recvValue(ctl, peer)) return false;
    st = side.connect(*peer);
    if (!st) {
        qWarning("connect: %s", st.error().toString().c_str());
        return false;
    }
    return waitSignal(ctl);
}

// The peer of the channel tests: once signalled, it waits 30 ms (the parent
// is asleep by then) and sends `payload` (4 bytes) as a signaled, solicited
// SEND.
int sendsWhenSignalled(int ctl, const char* payload) {
    SideOptions o;
    o.open = simOptions();
    return runChild(ctl, o, [payload](Side& s, const Endpoint&, int c) {
        PEER_CHECK(waitSignal(c));
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        PEER_CHECK(s.qp->postSend(s.sendWr(1, payload, 4, SendFlags::signaled | SendFlags::solicited)).ok());
        WorkCompletion wc;
        PEER_CHECK(s.pollOne(*s.sendCq, &wc));
        PEER_CHECK(wc.status == WcStatus::success);
        return 0;
    });
}

// The parent's side of them: connected, two receives posted, nothing
// received yet, the receive CQ armed solicited-only.
bool connectArmedForSolicited(Side& side, int ctl, Endpoint* remote) {
    SideOptions o;
    o.open = simOptions();
    if (!connectParent(side, o, ctl, remote) || !side.postRecvs(2).ok()) return false;
    WorkCompletion wc;
    return side.recvCq->poll(std::span<WorkCompletion>(&wc, 1)).valueOr(1) == 0 &&
           side.recvCq->requestNotify(true).valueOr(NotifyResult::missedEvents) == NotifyResult::armed;
}

uint8_t pattern(uint32_t iteration, size_t index) {
    return static_cast<uint8_t>(iteration * 131 + index * 7 + 1);
}

}  // namespace

class TestFabricConformance : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (isSim()) {
            const std::string dir = "/dev/shm/smclab-test-" + std::to_string(getpid());
            setenv("SMCR_SIM_DIR", dir.c_str(), 1);
        }
    }

    void cleanupTestCase() {
        if (isSim()) {
            const std::string dir = std::getenv("SMCR_SIM_DIR");
            QVERIFY(system(("rm -rf '" + dir + "'").c_str()) == 0);
        }
    }

    // What a waiter asks the device (fabric.h, "Waiting"): the sim runs its
    // work in the owner's calls and says when timed work is due; an RNIC
    // runs it by itself and never has any due.
    void progressModelPerBackend() {
        auto dev = openDevice(backendName(), simOptions());
        QVERIFY2(dev.ok(), dev.ok() ? "" : dev.error().toString().c_str());
        QCOMPARE(dev.value()->progressModel(), isSim() ? ProgressModel::ownerCalls : ProgressModel::hardware);
        QCOMPARE(dev.value()->nextDueNs(), uint64_t{0});  // nothing posted yet
        const auto rnr = dev.value()->rnrCounters();
        if (isSim()) {
            QVERIFY(rnr.ok());
        } else {
            QVERIFY(!rnr.ok());
            QCOMPARE(rnr.error().code, Errc::notSupported);
        }
    }

    // ibv_modify_qp(3): exact masks per transition; a bad modify changes nothing.
    void stateTransitions() {
        Side side;
        SideOptions options;
        options.open = simOptions();
        auto dev = openDevice(backendName(), options.open);
        QVERIFY2(dev.ok(), dev.ok() ? "" : dev.error().toString().c_str());
        auto pd = dev.value()->allocatePd();
        QVERIFY(pd.ok());
        auto cq = dev.value()->createCq(CqInit{16, nullptr, 0});
        QVERIFY(cq.ok());
        QpInit init;
        init.sendCq = cq->get();
        init.recvCq = cq->get();
        init.caps = QpCaps{4, 4, 1, 1, 0};
        auto qpResult = pd.value()->createQp(init);
        QVERIFY(qpResult.ok());
        QueuePair& qp = *qpResult.value();
        auto region = pd.value()->allocateRegion(4096, Access::localWrite);
        QVERIFY(region.ok());
        QCOMPARE(qp.state(), QpState::reset);
        QVERIFY(qp.qpn() <= kQpnMask);

        RecvWr recv;
        recv.numSge = 1;
        recv.sg[0] = Sge{region.value()->address(), 64, region.value()->lkey()};
        auto st = qp.postRecv(recv);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().code, Errc::invalidState);

        QpAttr attr;
        attr.state = QpState::rtr;
        QCOMPARE(qp.modify(attr, kMaskInitToRtr).error().code, Errc::invalidArgument);
        QCOMPARE(qp.state(), QpState::reset);
        attr.state = QpState::init;
        attr.port = 1;
        attr.accessFlags = Access::localWrite | Access::remoteWrite;
        QCOMPARE(qp.modify(attr, QpAttrMask::state | QpAttrMask::port).error().code, Errc::invalidArgument);
        QCOMPARE(qp.modify(attr, kMaskResetToInit | QpAttrMask::pathMtu).error().code, Errc::invalidArgument);
        attr.port = 3;
        QCOMPARE(qp.modify(attr, kMaskResetToInit).error().code, Errc::invalidArgument);
        QCOMPARE(qp.state(), QpState::reset);
        attr.port = 1;
        QVERIFY(qp.modify(attr, kMaskResetToInit).ok());
        QCOMPARE(qp.state(), QpState::init);

        QVERIFY(qp.postRecv(recv).ok());  // receives may be pre-posted from INIT
        SendWr send;
        send.opcode = WrOpcode::send;
        QCOMPARE(qp.postSend(send).error().code, Errc::invalidState);

        attr.state = QpState::rts;
        QCOMPARE(qp.modify(attr, kMaskRtrToRts).error().code, Errc::invalidArgument);
        attr.state = QpState::rtr;
        attr.remoteGid = dev.value()->info().ports[0].gid;
        attr.remoteMac = dev.value()->info().ports[0].mac;
        attr.pathMtu = PathMtu::mtu1024;
        attr.remoteQpn = 0x1000000;  // 25 bits
        attr.rqPsn = 1;
        attr.minRnrTimer = 5;
        attr.maxDestRdAtomic = 1;
        QCOMPARE(qp.modify(attr, kMaskInitToRtr).error().code, Errc::invalidArgument);
        attr.remoteQpn = qp.qpn();
        attr.pathMtu = PathMtu::invalid;
        QCOMPARE(qp.modify(attr, kMaskInitToRtr).error().code, Errc::invalidArgument);
        attr.pathMtu = PathMtu::mtu1024;
        attr.minRnrTimer = 32;
        QCOMPARE(qp.modify(attr, kMaskInitToRtr).error().code, Errc::invalidArgument);
        attr.minRnrTimer = 5;
        if (isSim()) {
            QpAttr foreign = attr;
            foreign.remoteGid[15] ^= 0x55;
            QCOMPARE(qp.modify(foreign, kMaskInitToRtr).error().code, Errc::invalidArgument);
        }
        QCOMPARE(qp.state(), QpState::init);
        QVERIFY(qp.modify(attr, kMaskInitToRtr).ok());
        QCOMPARE(qp.state(), QpState::rtr);

        attr.state = QpState::rts;
        attr.sqPsn = 0x123456;
        attr.timeout = 15;
        attr.retryCnt = 8;
        attr.rnrRetry = 7;
        attr.maxRdAtomic = 1;
        QCOMPARE(qp.modify(attr, kMaskRtrToRts).error().code, Errc::invalidArgument);
        QCOMPARE(qp.state(), QpState::rtr);
        attr.retryCnt = 7;
        QVERIFY(qp.modify(attr, kMaskRtrToRts).ok());
        auto q = qp.query();
        QVERIFY(q.ok());
        QCOMPARE(q->state, QpState::rts);
        QCOMPARE(q->sqPsn, 0x123456u);
        QCOMPARE(q->timeout, uint8_t{15});
        QCOMPARE(q->rnrRetry, uint8_t{7});
        QCOMPARE(q->remoteQpn, qp.qpn());

        QVERIFY(qp.setError().ok());
        QCOMPARE(qp.state(), QpState::error);
        attr.state = QpState::rts;
        QCOMPARE(qp.modify(attr, kMaskRtrToRts).error().code, Errc::invalidArgument);
        QpAttr reset;
        reset.state = QpState::reset;
        QVERIFY(qp.modify(reset, QpAttrMask::state).ok());
        QCOMPARE(qp.state(), QpState::reset);
        attr.state = QpState::init;
        // Back to INIT on another port where the device has one (the sim has
        // two, rxe one).
        attr.port = dev.value()->info().ports.size() > 1 ? 2 : 1;
        QVERIFY(qp.modify(attr, kMaskResetToInit).ok());
        qpResult.value().reset();
    }

    // ENOMEM-style outOfResources when a queue is full; SQ slots free only
    // when a covering completion is polled, so unsignaled WRs hold them.
    void queueLimitsAndSlotRetention() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            return runChild(ctl, o,
                            [](Side&, const Endpoint&, int c) { return waitSignal(c, nullptr, 15000) ? 0 : 4; });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        o.sendWr = 4;
        o.recvWr = 4;
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));

        // The depths the device granted (a provider may round the asked 4 up:
        // rxe gives more), each filled exactly.
        const uint32_t recvDepth = side.qp->caps().maxRecvWr;
        const uint32_t sendDepth = side.qp->caps().maxSendWr;
        QVERIFY(recvDepth >= 4 && sendDepth >= 4);
        if (isSim()) QVERIFY(recvDepth == 4 && sendDepth == 4);
        QVERIFY(side.postRecvs(static_cast<int>(recvDepth)).ok());
        auto st = side.postRecvs(1, 10000);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().code, Errc::outOfResources);

        // One post of depth + 1 work requests: the last does not fit (the
        // device cannot drain the queue while one call fills it).
        std::vector<SendWr> wrs;
        for (uint64_t i = 0; i + 1 < sendDepth; ++i)
            wrs.push_back(side.writeWr(i, remote, (i % 4) * 64, 64, SendFlags::none));
        wrs.push_back(side.writeWr(sendDepth - 1, remote, 3 * 64, 64, SendFlags::signaled));
        wrs.push_back(side.writeWr(sendDepth, remote, 0, 64, SendFlags::signaled));
        size_t posted = 0;
        st = side.qp->postSend(wrs, &posted);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().code, Errc::outOfResources);
        QCOMPARE(posted, size_t{sendDepth});
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::success);
        QCOMPARE(wc.wrId, uint64_t{sendDepth - 1});
        QCOMPARE(wc.opcode, WcOpcode::rdmaWrite);
        QCOMPARE(wc.byteLen, 64u);

        // Slot retention (IBA 10.8.3): an unsignaled WR keeps its slot until
        // a later signaled one's completion is polled, so a QP that never
        // signals fills up. The sim enforces it so the engine cannot rely on
        // less; rxe frees a slot as soon as its WR executes, so on a real
        // device this is a rule for the engine, not something to observe.
        if (isSim()) {
            wrs.clear();
            for (uint64_t i = 0; i < sendDepth; ++i)
                wrs.push_back(side.writeWr(10000 + i, remote, 0, 8, SendFlags::none));
            QVERIFY(side.qp->postSend(wrs, &posted).ok());
            QTest::qWait(20);
            WorkCompletion none[4];
            auto n = side.sendCq->poll(none);
            QVERIFY(n.ok());
            QCOMPARE(n.value(), size_t{0});
            st = side.qp->postSend(side.writeWr(20000, remote, 0, 8, SendFlags::signaled));
            QVERIFY2(!st.ok(), "a QP that never signals must fill up");
            QCOMPARE(st.error().code, Errc::outOfResources);
        }

        // Too many SGEs and an oversized inline message are invalid arguments.
        SendWr big = side.sendWr(30, "x", 1, SendFlags::signaled);
        big.numSge = 3;
        QCOMPARE(side.qp->postSend(big).error().code, Errc::invalidArgument);
        QVERIFY(signal(peer.fd()));
        QCOMPARE(peer.wait(), 0);
    }

    // Inline data is copied at post time: changing the buffer right after
    // postSend must not change what the peer receives (the cx4-25g link
    // delays execution, so a late copy would send the new bytes).
    void inlineCopiedAtPost() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(4).ok());
                PEER_CHECK(signal(c));
                WorkCompletion wc;
                PEER_CHECK(s.pollOne(*s.recvCq, &wc));
                PEER_CHECK(wc.status == WcStatus::success && wc.byteLen == 48);
                for (int i = 0; i < 48; ++i) PEER_CHECK(s.recv->data()[i] == 'A');
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions("cx4-25g");
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        char buffer[64];
        std::memset(buffer, 'A', sizeof buffer);
        QVERIFY(side.qp->postSend(side.sendWr(1, buffer, 48, SendFlags::signaled | SendFlags::inlineData)).ok());
        std::memset(buffer, 'B', sizeof buffer);
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::success);
        char tooBig[128] = {};
        QCOMPARE(side.qp->postSend(side.sendWr(2, tooBig, 128, SendFlags::inlineData)).error().code,
                 Errc::invalidArgument);
        QCOMPARE(peer.wait(), 0);
    }

    // RC ordering: a SEND posted after a WRITE is never visible before the
    // WRITE's data (SMC-R's "data, then CDC").
    void writeThenSendVisibility_data() {
        QTest::addColumn<QString>("link");
        QTest::newRow("ideal") << "ideal";
        if (isSim()) QTest::newRow("cx4-25g") << "cx4-25g";
    }
    void writeThenSendVisibility() {
        QFETCH(QString, link);
        constexpr uint32_t kIterations = 200;
        constexpr uint32_t kBytes = 16 * 1024;
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            o.recvWr = 32;
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(32).ok());
                PEER_CHECK(signal(c));
                for (uint32_t i = 0; i < kIterations; ++i) {
                    WorkCompletion wc;
                    PEER_CHECK(s.pollOne(*s.recvCq, &wc));
                    PEER_CHECK(wc.status == WcStatus::success && wc.byteLen == 4);
                    uint32_t iteration = 0;
                    std::memcpy(&iteration, s.recv->data() + (wc.wrId % 64) * 256, 4);
                    PEER_CHECK(iteration == i);
                    const uint8_t* data = s.rmb->data() + (i % 4) * kBytes;
                    for (size_t k = 0; k < kBytes; ++k) PEER_CHECK(data[k] == pattern(i, k));
                    PEER_CHECK(s.postRecvs(1, 32 + i).ok());
                    PEER_CHECK(signal(c));
                }
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions(link.toUtf8().constData());
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        for (uint32_t i = 0; i < kIterations; ++i) {
            for (size_t k = 0; k < kBytes; ++k) side.src->data()[k] = pattern(i, k);
            std::memcpy(side.src->data() + kBytes, &i, 4);
            SendWr write = side.writeWr(i * 2, remote, (i % 4) * kBytes, kBytes, SendFlags::none);
            SendWr send = side.sendWr(i * 2 + 1, nullptr, 0, SendFlags::signaled | SendFlags::solicited);
            send.sg[0] = Sge{side.src->address() + kBytes, 4, side.src->lkey()};
            send.numSge = 1;
            const SendWr pair[] = {write, send};
            QVERIFY(side.qp->postSend(pair).ok());
            WorkCompletion wc;
            QVERIFY(side.pollOne(*side.sendCq, &wc));
            QCOMPARE(wc.status, WcStatus::success);
            QCOMPARE(wc.wrId, uint64_t{i * 2 + 1});
            QVERIFY(waitSignal(peer.fd()));
        }
        QCOMPARE(peer.wait(), 0);
    }

    // No receive posted: RNR NAK, retry after the responder's min_rnr_timer,
    // rnr_retry times, then RNR_RETRY_EXC_ERR; counted on both sides.
    void rnrExhaustion() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            o.minRnrTimer = 14;  // 1.28 ms
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(waitSignal(c));
                uint64_t naks = 0;
                if (sim::SimControl* sim = sim::simControl(*s.dev)) naks = sim->counters().rnrNaksSent;
                PEER_CHECK(sendValue(c, naks));
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        o.rnrRetry = 3;
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        const auto start = Clock::now();
        QVERIFY(side.qp->postSend(side.sendWr(7, "ping", 4, SendFlags::signaled)).ok());
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc, 10000));
        const double elapsedMs = msSince(start);
        QCOMPARE(wc.status, WcStatus::rnrRetryExcErr);
        QCOMPARE(wc.wrId, uint64_t{7});
        QCOMPARE(side.qp->state(), QpState::error);
        // Three back-offs of the responder's 1.28 ms timer at least.
        QVERIFY2(elapsedMs >= 3 * 1.28, qPrintable(QString("elapsed %1 ms").arg(elapsedMs)));
        QVERIFY(signal(peer.fd()));
        uint64_t peerNaks = 0;
        QVERIFY(recvValue(peer.fd(), &peerNaks));
        if (sim::SimControl* sim = sim::simControl(*side.dev)) {
            QCOMPARE(sim->counters().rnrNaksReceived, uint64_t{4});  // first try + 3 retries
            QCOMPARE(peerNaks, uint64_t{4});
        }
        QCOMPARE(peer.wait(), 0);
    }

    // rnr_retry 7 retries forever: a receive posted late still gets the SEND.
    void rnrRecovers() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            o.minRnrTimer = 5;
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(waitSignal(c));  // the parent has posted its SEND
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
                PEER_CHECK(s.postRecvs(1).ok());
                WorkCompletion wc;
                PEER_CHECK(s.pollOne(*s.recvCq, &wc));
                PEER_CHECK(wc.status == WcStatus::success && wc.byteLen == 5);
                PEER_CHECK(std::memcmp(s.recv->data(), "hello", 5) == 0);
                uint64_t naks = 0;
                if (sim::SimControl* sim = sim::simControl(*s.dev)) naks = sim->counters().rnrNaksSent;
                PEER_CHECK(sendValue(c, naks));
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(side.qp->postSend(side.sendWr(1, "hello", 5, SendFlags::signaled)).ok());
        QVERIFY(signal(peer.fd()));
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc, 10000));
        QCOMPARE(wc.status, WcStatus::success);
        uint64_t peerNaks = 0;
        QVERIFY(recvValue(peer.fd(), &peerNaks));
        if (sim::SimControl* sim = sim::simControl(*side.dev)) {
            QVERIFY(sim->counters().rnrNaksReceived >= 1);
            QVERIFY(peerNaks >= 1);
        }
        QCOMPARE(peer.wait(), 0);
    }

    // In ERR every outstanding and newly posted WR completes WR_FLUSH_ERR, in order.
    void flushOrderInError() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            o.minRnrTimer = 14;
            return runChild(ctl, o, [](Side&, const Endpoint&, int c) { return waitSignal(c) ? 0 : 4; });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(side.postRecvs(3, 100).ok());
        // The first SEND stalls on RNR (no receive at the peer) and holds up the rest.
        std::vector<SendWr> wrs;
        wrs.push_back(side.sendWr(0, "a", 1, SendFlags::signaled));
        for (uint64_t i = 1; i <= 4; ++i) wrs.push_back(side.writeWr(i, remote, 0, 32, SendFlags::none));
        wrs.push_back(side.sendWr(5, "b", 1, SendFlags::signaled));
        QVERIFY(side.qp->postSend(wrs).ok());
        QTest::qWait(5);
        QVERIFY(side.qp->setError().ok());
        QCOMPARE(side.qp->state(), QpState::error);
        QVERIFY(side.qp->postSend(side.writeWr(6, remote, 0, 8, SendFlags::none)).ok());
        QVERIFY(side.postRecvs(1, 103).ok());
        for (uint64_t i = 0; i <= 6; ++i) {
            WorkCompletion wc;
            QVERIFY(side.pollOne(*side.sendCq, &wc));
            QCOMPARE(wc.wrId, i);
            QCOMPARE(wc.status, WcStatus::wrFlushErr);
        }
        for (uint64_t i = 100; i <= 103; ++i) {
            WorkCompletion wc;
            QVERIFY(side.pollOne(*side.recvCq, &wc));
            QCOMPARE(wc.wrId, i);
            QCOMPARE(wc.status, WcStatus::wrFlushErr);
        }
        QVERIFY(signal(peer.fd()));
        QCOMPARE(peer.wait(), 0);
    }

    // One-shot arming: SOLICITED fires only on SE receives; the channel fd is
    // readable only then; a missed-events answer when completions are queued.
    void solicitedArmingAndMissedEvents() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(8).ok());
                auto armed = s.recvCq->requestNotify(true);
                PEER_CHECK(armed.ok() && armed.value() == NotifyResult::armed);
                PEER_CHECK(signal(c));
                PEER_CHECK(waitSignal(c));  // a plain SEND has landed
                pollfd p{s.channel->fd(), POLLIN, 0};
                PEER_CHECK(::poll(&p, 1, 100) == 0);  // not solicited: no event
                PEER_CHECK(s.channel->getEvent(0).error().code == Errc::wouldBlock);
                PEER_CHECK(signal(c));
                PEER_CHECK(::poll(&p, 1, 5000) == 1);  // the solicited SEND fires
                auto ev = s.channel->getEvent(0);
                PEER_CHECK(ev.ok() && ev.value() == s.recvCq.get());
                ev.value()->ackEvents(1);
                WorkCompletion wc[4];
                auto n = s.recvCq->poll(wc);
                PEER_CHECK(n.ok() && n.value() == 2);
                PEER_CHECK(wc[0].wrId == 0 && wc[1].wrId == 1);
                if (backendName() == "sim") PEER_CHECK(hasFlag(wc[1].flags, WcFlags::solicited));
                // The arm was consumed: a third SEND queues without a wake-up, and
                // arming now reports the missed completion.
                PEER_CHECK(signal(c));
                PEER_CHECK(waitSignal(c));
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                PEER_CHECK(::poll(&p, 1, 0) == 0);
                auto again = s.recvCq->requestNotify(false);
                PEER_CHECK(again.ok() && again.value() == NotifyResult::missedEvents);
                n = s.recvCq->poll(wc);
                PEER_CHECK(n.ok() && n.value() == 1 && wc[0].wrId == 2);
                // NEXT is armed now: any completion fires.
                PEER_CHECK(signal(c));
                PEER_CHECK(::poll(&p, 1, 5000) == 1);
                ev = s.channel->getEvent(1000);
                PEER_CHECK(ev.ok() && ev.value() == s.recvCq.get());
                ev.value()->ackEvents(1);
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        // Send completions are never solicited: an SE-armed send CQ stays quiet.
        QCOMPARE(side.sendCq->requestNotify(true).value(), NotifyResult::armed);
        QVERIFY(side.qp->postSend(side.sendWr(0, "one", 3, SendFlags::signaled)).ok());
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::success);
        pollfd p{side.channel->fd(), POLLIN, 0};
        QCOMPARE(::poll(&p, 1, 50), 0);
        QVERIFY(signal(peer.fd()));
        QVERIFY(waitSignal(peer.fd()));
        QVERIFY(side.qp->postSend(side.sendWr(1, "two", 3, SendFlags::signaled | SendFlags::solicited)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QVERIFY(waitSignal(peer.fd()));
        QVERIFY(side.qp->postSend(side.sendWr(2, "three", 5, SendFlags::signaled)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QVERIFY(signal(peer.fd()));
        QVERIFY(waitSignal(peer.fd()));
        QVERIFY(side.qp->postSend(side.sendWr(3, "four", 4, SendFlags::signaled)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(peer.wait(), 0);
    }

    // More completions than the CQ holds: the CQ goes to error.
    void cqOverrun() {
        if (!isSim()) QSKIP("CQ overrun is reported asynchronously on verbs");
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            o.sendCqDepth = 4;
            o.recvCqDepth = 4;
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(8).ok());
                PEER_CHECK(signal(c));
                PEER_CHECK(waitSignal(c));
                WorkCompletion wc[8];
                auto n = s.recvCq->poll(wc);
                PEER_CHECK(!n.ok() && n.error().code == Errc::outOfResources);
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        for (uint64_t i = 0; i < 6; ++i) {
            QVERIFY(side.qp->postSend(side.sendWr(i, "x", 1, SendFlags::signaled)).ok());
            WorkCompletion wc;
            QVERIFY(side.pollOne(*side.sendCq, &wc));
        }
        QVERIFY(signal(peer.fd()));
        QCOMPARE(peer.wait(), 0);
    }

    // Bad rkey, out of bounds, no remote-write right, deregistered region:
    // REM_ACCESS_ERR at the requester, both QPs to ERR.
    void remoteAccessErrors_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("bad rkey") << 0;
        QTest::newRow("out of bounds") << 1;
        QTest::newRow("qp without remote write") << 2;
        QTest::newRow("deregistered region") << 3;
    }
    void remoteAccessErrors() {
        QFETCH(int, kind);
        PeerProcess peer([kind](int ctl) {
            SideOptions o;
            o.open = simOptions();
            if (kind == 2) o.qpAccess = Access::localWrite;
            return runChild(ctl, o, [kind](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(1, 9).ok());
                if (kind == 3) s.rmb.reset();
                PEER_CHECK(signal(c));
                WorkCompletion wc;
                PEER_CHECK(s.pollOne(*s.recvCq, &wc));
                PEER_CHECK(wc.wrId == 9 && wc.status == WcStatus::wrFlushErr);
                PEER_CHECK(s.qp->state() == QpState::error);
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions();
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        SendWr wr = side.writeWr(1, remote, 0, 64, SendFlags::signaled);
        if (kind == 0) wr.rkey = remote.rkey ^ 0x5a5a00;
        if (kind == 1) wr.remoteAddr = remote.vaddr + remote.rmbBytes - 32;
        QVERIFY(side.qp->postSend(wr).ok());
        QVERIFY(side.qp->postSend(side.writeWr(2, remote, 0, 8, SendFlags::signaled)).ok());
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.wrId, uint64_t{1});
        // A responder QP without remote write refuses the request: ConnectX
        // and the sim say Remote Access Error, rxe Remote Invalid Request
        // (IBA 9.7.5.2.3 allows either NAK); both end the link alike.
        if (kind == 2 && !isSim()) {
            QVERIFY2(wc.status == WcStatus::remInvReqErr || wc.status == WcStatus::remAccessErr,
                     wcStatusName(wc.status));
        } else {
            QCOMPARE(wc.status, WcStatus::remAccessErr);
        }
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.wrId, uint64_t{2});
        QCOMPARE(wc.status, WcStatus::wrFlushErr);
        QCOMPARE(side.qp->state(), QpState::error);
        QCOMPARE(peer.wait(), 0);
    }

    // The peer process dies: outstanding sends complete RETRY_EXC_ERR once the
    // transport timeout expires, and the QP goes to ERR.
    void peerDeath() {
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(4).ok());
                PEER_CHECK(signal(c));
                for (;;) pause();  // killed by the parent
                return 0;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions("ideal", 300);
        o.timeout = 14;  // verbs: ~67 ms per try
        o.retryCnt = 3;
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        QVERIFY(side.qp->postSend(side.sendWr(1, "alive?", 6, SendFlags::signaled)).ok());
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::success);
        kill(peer.pid(), SIGKILL);
        QCOMPARE(peer.wait(), -1);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const auto start = Clock::now();
        QVERIFY(side.qp->postSend(side.sendWr(2, "dead?", 5, SendFlags::signaled)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc, 10000));
        const double elapsedMs = msSince(start);
        QCOMPARE(wc.wrId, uint64_t{2});
        QCOMPARE(wc.status, WcStatus::retryExcErr);
        QCOMPARE(side.qp->state(), QpState::error);
        if (isSim()) QVERIFY2(elapsedMs >= 250, qPrintable(QString("elapsed %1 ms").arg(elapsedMs)));
    }

    // A blocked waiter is woken by the channel when the peer's SEND lands and
    // the CQ was armed (the canonical poll / arm / poll / sleep loop).
    void channelWakesSleeper() {
        PeerProcess peer([](int ctl) { return sendsWhenSignalled(ctl, "wake"); });
        Side side;
        Endpoint remote;
        QVERIFY(connectArmedForSolicited(side, peer.fd(), &remote));
        WorkCompletion wc;
        QVERIFY(signal(peer.fd()));
        auto ev = side.channel->getEvent(5000);
        QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().toString().c_str());
        QCOMPARE(ev.value(), side.recvCq.get());
        ev.value()->ackEvents(1);
        QCOMPARE(side.recvCq->poll(std::span<WorkCompletion>(&wc, 1)).value(), size_t{1});
        QCOMPARE(wc.status, WcStatus::success);
        QCOMPARE(wc.byteLen, 4u);
        QCOMPARE(wc.opcode, WcOpcode::recv);
        QCOMPARE(wc.qpNum, side.qp->qpn());
        // src_qp is defined for UD QPs only (ibv_poll_cq(3)); the sim fills
        // it for RC too, rxe leaves it 0.
        if (isSim()) QCOMPARE(wc.srcQp, remote.qpn);
        QCOMPARE(peer.wait(), 0);
    }

    // A thread asleep on the channel's word (no fds) is woken by the armed
    // CQ's completion, and the producer writes nothing into the FIFO for
    // it: the owner's drain finds nothing to read, a poll of the fds sees
    // nothing.
    void wordSleeperIsWokenWithoutTheFifo() {
        if (!isSim()) QSKIP("the channel's futex word is a sim feature");
        PeerProcess peer([](int ctl) { return sendsWhenSignalled(ctl, "word"); });
        Side side;
        Endpoint remote;
        QVERIFY(connectArmedForSolicited(side, peer.fd(), &remote));
        QVERIFY(side.channel->canSleepOnWord());
        WorkCompletion wc;
        const uint32_t ticket = side.channel->wordTicket();
        QVERIFY(signal(peer.fd()));
        const auto t0 = Clock::now();
        using WordSleep = smcr::fabric::CompletionChannel::WordSleep;
        WordSleep slept = side.channel->sleepOnWord(ticket, deadlineInMs(5000));
        // A wake-up without a change of the word (futex(2) allows them)
        // sleeps again, as the engine's wait loop does.
        while (slept == WordSleep::woken && side.channel->wordTicket() == ticket) {
            slept = side.channel->sleepOnWord(ticket, deadlineInMs(5000));
        }
        const auto elapsedMs = msSince(t0);
        QVERIFY2(slept == WordSleep::woken, qPrintable(QString("not woken: %1").arg(int(slept))));
        QVERIFY2(elapsedMs < 4000, qPrintable(QString("woken after %1 ms").arg(elapsedMs)));
        // Its event is not taken yet: a sleep now returns at once.
        QCOMPARE(side.channel->sleepOnWord(side.channel->wordTicket(), deadlineInMs(5000)), WordSleep::eventPending);
        std::array<int, smcr::fabric::CompletionChannel::kMaxSleepFds> fds{};
        const size_t n = side.channel->sleepFds(fds);
        pollfd pfd{fds[0], POLLIN, 0};
        QCOMPARE(n, size_t{2});
        QCOMPARE(::poll(&pfd, 1, 0), 0);  // the FIFO: nothing written for this wake-up
        // The event waits for the owner all the same (getEvent, no syscall).
        auto ev = side.channel->getEvent(0);
        QVERIFY2(ev.ok(), ev.ok() ? "" : ev.error().toString().c_str());
        QCOMPARE(ev.value(), side.recvCq.get());
        ev.value()->ackEvents(1);
        QCOMPARE(side.recvCq->poll(std::span<WorkCompletion>(&wc, 1)).value(), size_t{1});
        QCOMPARE(wc.byteLen, 4u);
        QCOMPARE(peer.wait(), 0);
    }

    // The word sleep ends at its deadline, at a wake from the process, and
    // at once for a wake between the ticket and the sleep.
    void wordSleepEndsOnWakeOrDeadline() {
        if (!isSim()) QSKIP("the channel's futex word is a sim feature");
        Side side;
        SideOptions o;
        o.open = simOptions();
        QVERIFY(side.setup(o).ok());
        using WordSleep = smcr::fabric::CompletionChannel::WordSleep;
        auto t0 = Clock::now();
        QCOMPARE(side.channel->sleepOnWord(side.channel->wordTicket(), deadlineInMs(30)), WordSleep::timedOut);
        QVERIFY2(msSince(t0) >= 29, qPrintable(QString("timed out after %1 ms").arg(msSince(t0))));

        uint32_t ticket = side.channel->wordTicket();
        side.channel->wakeWordSleepers();
        t0 = Clock::now();
        QCOMPARE(side.channel->sleepOnWord(ticket, deadlineInMs(5000)), WordSleep::woken);
        QVERIFY2(msSince(t0) < 1000, "a wake before the sleep did not end it at once");

        ticket = side.channel->wordTicket();
        std::thread waker([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            side.channel->wakeWordSleepers();
        });
        t0 = Clock::now();
        WordSleep slept = side.channel->sleepOnWord(ticket, deadlineInMs(5000));
        while (slept == WordSleep::woken && side.channel->wordTicket() == ticket) {
            slept = side.channel->sleepOnWord(ticket, deadlineInMs(5000));
        }
        const auto wokenMs = msSince(t0);
        waker.join();
        QCOMPARE(slept, WordSleep::woken);
        QVERIFY2(wokenMs < 4000, qPrintable(QString("woken after %1 ms").arg(wokenMs)));
    }

    // The link model is honoured relative to the ideal link: latency above
    // the modelled one-way delay, bandwidth below the modelled line rate.
    void linkModelHonoured() {
        if (!isSim()) QSKIP("link model is a sim feature");
        auto pingPong = [](const char* link) {
            constexpr int kRounds = 50;
            PeerProcess peer([link](int ctl) {
                SideOptions o;
                o.open = simOptions(link);
                o.recvWr = 64;
                return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                    PEER_CHECK(s.postRecvs(64).ok());
                    PEER_CHECK(signal(c));
                    for (int i = 0; i < kRounds; ++i) {
                        WorkCompletion wc;
                        PEER_CHECK(s.spinOne(*s.recvCq, &wc));
                        PEER_CHECK(s.postRecvs(1, 64 + i).ok());
                        PEER_CHECK(s.qp->postSend(s.sendWr(i, "pong", 4, SendFlags::signaled)).ok());
                        PEER_CHECK(s.spinOne(*s.sendCq, &wc));
                    }
                    return 0;
                });
            });
            Side side;
            SideOptions o;
            o.open = simOptions(link);
            o.recvWr = 64;
            Endpoint remote;
            std::vector<double> oneWayUs;
            if (!connectParent(side, o, peer.fd(), &remote) || !side.postRecvs(64).ok() || !waitSignal(peer.fd())) {
                return -1.0;
            }
            for (int i = 0; i < kRounds; ++i) {
                const auto start = Clock::now();
                if (!side.qp->postSend(side.sendWr(i, "ping", 4, SendFlags::signaled)).ok()) return -1.0;
                WorkCompletion wc;
                bool gotRecv = false;
                bool gotSend = false;
                while (!gotRecv || !gotSend) {
                    if (side.recvCq->poll(std::span<WorkCompletion>(&wc, 1)).valueOr(0) == 1) gotRecv = true;
                    if (side.sendCq->poll(std::span<WorkCompletion>(&wc, 1)).valueOr(0) == 1) gotSend = true;
                    if (msSince(start) > 5000) return -1.0;
                    std::this_thread::yield();
                }
                oneWayUs.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / 2);
                if (!side.postRecvs(1, 64 + i).ok()) return -1.0;
            }
            if (peer.wait() != 0) return -1.0;
            // The minimum: other load on a 2-vCPU host makes medians swing by
            // whole scheduler ticks; the fastest round shows the model.
            return *std::min_element(oneWayUs.begin(), oneWayUs.end());
        };
        // Up to three attempts: a loaded host can stall either run for whole
        // scheduler ticks; the model's floor holds in every attempt.
        double ideal = 0;
        double cx4 = 0;
        for (int attempt = 0; attempt < 3; ++attempt) {
            ideal = pingPong("ideal");
            cx4 = pingPong("cx4-25g");
            qInfo("send ping-pong one-way minimum: ideal %.2f us, cx4-25g %.2f us", ideal, cx4);
            QVERIFY(ideal > 0);
            QVERIFY(cx4 >= 1.25);  // the modelled wire latency is a floor
            if (cx4 > ideal) break;
        }
        // The comparison says something about the model only when the best
        // ideal round beat the modelled wire latency (1.25 us). On a loaded
        // host every poll loop pays a sched_yield of a few microseconds, in
        // both runs, and that noise swamps the model; the floor above, which
        // no noise can lower, still held.
        if (ideal < 1.25) {
            QVERIFY(cx4 > ideal);
        } else {
            qWarning("host too loaded to compare link models (ideal minimum %.2f us)", ideal);
        }

        // Bandwidth: 4 MiB as 64 KiB writes can never beat 25 Gbit/s.
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions("cx4-25g");
            o.rmbBytes = 1 << 20;
            return runChild(ctl, o, [](Side&, const Endpoint&, int c) { return waitSignal(c) ? 0 : 4; });
        });
        Side side;
        SideOptions o;
        o.open = simOptions("cx4-25g");
        o.sendWr = 64;
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        const auto start = Clock::now();
        for (int i = 0; i < 64; ++i) {
            QVERIFY(side.qp
                        ->postSend(side.writeWr(i, remote, (i % 16) * 65536, 65536,
                                                i == 63 ? SendFlags::signaled : SendFlags::none))
                        .ok());
        }
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::success);
        const double seconds = msSince(start) / 1000.0;
        const double gbps = 64.0 * 65536 * 8 / seconds / 1e9;
        qInfo("cx4-25g write bandwidth %.2f Gbit/s", gbps);
        QVERIFY(gbps <= 25.0);
        QVERIFY(signal(peer.fd()));
        QCOMPARE(peer.wait(), 0);
    }

    // Fault injection: fail a post, drop a completion, kill a QP, delay, dead peer.
    void faultInjection() {
        if (!isSim()) QSKIP("fault injection is a sim feature");
        PeerProcess peer([](int ctl) {
            SideOptions o;
            o.open = simOptions();
            o.recvWr = 32;
            return runChild(ctl, o, [](Side& s, const Endpoint&, int c) {
                PEER_CHECK(s.postRecvs(32).ok());
                PEER_CHECK(signal(c));
                return waitSignal(c, nullptr, 15000) ? 0 : 4;
            });
        });
        Side side;
        SideOptions o;
        o.open = simOptions("ideal", 200);
        Endpoint remote;
        QVERIFY(connectParent(side, o, peer.fd(), &remote));
        QVERIFY(waitSignal(peer.fd()));
        sim::SimControl* sim = sim::simControl(*side.dev);
        QVERIFY(sim != nullptr);

        QVERIFY(sim->injectFault(*side.qp, sim::Fault::failNextPost).ok());
        auto st = side.qp->postSend(side.sendWr(1, "x", 1, SendFlags::signaled));
        QVERIFY(!st.ok());
        QCOMPARE(st.error().code, Errc::systemError);
        QVERIFY(side.qp->postSend(side.sendWr(2, "x", 1, SendFlags::signaled)).ok());
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.wrId, uint64_t{2});

        QVERIFY(sim->injectFault(*side.qp, sim::Fault::dropCompletion).ok());
        QVERIFY(side.qp->postSend(side.sendWr(3, "x", 1, SendFlags::signaled)).ok());
        QVERIFY(!side.pollOne(*side.sendCq, &wc, 30));
        QVERIFY(side.qp->postSend(side.sendWr(4, "x", 1, SendFlags::signaled)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.wrId, uint64_t{4});

        QVERIFY(sim->injectFault(*side.qp, sim::Fault::delayDelivery, 20000000).ok());
        auto start = Clock::now();
        QVERIFY(side.qp->postSend(side.sendWr(5, "x", 1, SendFlags::signaled)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.wrId, uint64_t{5});
        QVERIFY(msSince(start) >= 20.0);

        QVERIFY(sim->injectFault(*side.qp, sim::Fault::deadPeer).ok());
        start = Clock::now();
        QVERIFY(side.qp->postSend(side.sendWr(6, "x", 1, SendFlags::signaled)).ok());
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::retryExcErr);
        QVERIFY(msSince(start) >= 190.0);
        QCOMPARE(side.qp->state(), QpState::error);
        QVERIFY(sim->counters().retryExceeded >= 1);

        // qpError on a fresh QP of the same device flushes its receives.
        QpInit init;
        init.sendCq = side.sendCq.get();
        init.recvCq = side.recvCq.get();
        init.caps = QpCaps{4, 4, 1, 1, 0};
        auto qp2 = side.pd->createQp(init);
        QVERIFY(qp2.ok());
        QpAttr attr;
        attr.state = QpState::init;
        attr.port = 2;
        QVERIFY(qp2.value()->modify(attr, kMaskResetToInit).ok());
        RecvWr recv;
        recv.wrId = 77;
        recv.numSge = 1;
        recv.sg[0] = Sge{side.recv->address(), 16, side.recv->lkey()};
        QVERIFY(qp2.value()->postRecv(recv).ok());
        QVERIFY(sim->injectFault(*qp2.value(), sim::Fault::qpError).ok());
        QCOMPARE(qp2.value()->state(), QpState::error);
        QVERIFY(side.pollOne(*side.recvCq, &wc));
        QCOMPARE(wc.wrId, uint64_t{77});
        QCOMPARE(wc.status, WcStatus::wrFlushErr);
        qp2.value().reset();
        QVERIFY(signal(peer.fd()));
        QCOMPARE(peer.wait(), 0);
    }
};

int main(int argc, char** argv) {
    const std::string backend = backendName();
    const BackendEntry* entry = findBackend(backend);
    if (entry == nullptr) {
        std::fprintf(stderr, "unknown backend %s\n", backend.c_str());
        return 1;
    }
    if (auto st = entry->probe(); !st) {
        std::printf("SKIP: fabric backend '%s' unavailable: %s\n", backend.c_str(), st.error().toString().c_str());
        return 77;
    }
    TestFabricConformance test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_fabric_conformance.moc"
