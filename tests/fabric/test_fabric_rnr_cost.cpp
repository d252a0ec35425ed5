// What an RNR NAK costs on the sim fabric, against hardware: the requester
// learns of it only when the NAK is back, waits the responder's
// min_rnr_timer from then, and the retransmission travels out again; the
// send queue is stalled meanwhile. With a link model that has a wire latency
// the first retry is due no earlier than timer + one round trip after the
// SEND arrived, and no retry runs before it is due.
#include <time.h>

#include <QTest>

#include "fabric_pair.h"

using namespace fabrictest;

namespace {

uint64_t monoNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

SideOptions cx4Options() {
    SideOptions o;
    o.open["link"] = "cx4-25g";
    return o;
}

}  // namespace

class TestFabricRnrCost : public QObject {
    Q_OBJECT
private slots:
    void retryWaitsTimerPlusRoundTrip() {
        if (backendName() != "sim") QSKIP("sim fabric only");
        auto preset = smcr::fabric::sim::linkPreset("cx4-25g");
        QVERIFY(preset.ok());
        const uint64_t latencyNs = preset.value().wireLatencyNs;
        QVERIFY(latencyNs > 0);
        constexpr uint8_t kTimerCode = 1;  // 0.01 ms: the round trip is a quarter of it
        const auto timerNs = static_cast<uint64_t>(rnrTimerMs(kTimerCode) * 1e6);

        // The responder posts no receive until told to: every SEND meets RNR.
        PeerProcess peer([](int ctl) {
            Side side;
            SideOptions o = cx4Options();
            o.minRnrTimer = kTimerCode;
            PEER_CHECK(side.setup(o).ok());
            Endpoint remote;
            PEER_CHECK(sendValue(ctl, side.local()));
            PEER_CHECK(recvValue(ctl, &remote));
            PEER_CHECK(side.connect(remote).ok());
            PEER_CHECK(signal(ctl));
            PEER_CHECK(waitSignal(ctl));  // the requester saw its NAKs
            PEER_CHECK(side.postRecvs(1).ok());
            WorkCompletion wc;
            PEER_CHECK(side.pollOne(*side.recvCq, &wc, 10000));
            PEER_CHECK(wc.status == WcStatus::success);
            PEER_CHECK(signal(ctl));
            return 0;
        });
        Side side;
        QVERIFY(side.setup(cx4Options()).ok());
        Endpoint remote;
        QVERIFY(recvValue(peer.fd(), &remote));
        QVERIFY(sendValue(peer.fd(), side.local()));
        QVERIFY(side.connect(remote).ok());
        QVERIFY(waitSignal(peer.fd()));
        smcr::fabric::sim::SimControl* sim = smcr::fabric::sim::simControl(*side.dev);
        QVERIFY(sim != nullptr);

        const uint64_t postNs = monoNs();
        QVERIFY(side.qp->postSend(side.sendWr(9, "ping", 4, SendFlags::signaled)).ok());
        // Drive the requester until its first NAK. The SEND meets the empty
        // queue inside one of these polls (the sim runs it lazily, at the
        // first poll after its arrival), no earlier than that poll began.
        WorkCompletion wc;
        const uint64_t giveUpNs = postNs + 5'000'000'000ull;
        uint64_t nakPollNs = 0;
        while (sim->counters().rnrNaksReceived == 0 && monoNs() < giveUpNs) {
            nakPollNs = monoNs();
            auto n = side.sendCq->poll(std::span<WorkCompletion>(&wc, 1));
            QVERIFY(n.ok());
            QCOMPARE(n.value(), size_t{0});  // no completion while the SEND is NAKed
        }
        QCOMPARE(sim->counters().rnrNaksReceived, uint64_t{1});
        QCOMPARE(side.dev->rnrCounters()->naksReceived, uint64_t{1});  // the same count through fabric.h
        const uint64_t dueNs = side.dev->nextDueNs();
        // From the SEND's arrival: NAK back, timer, retransmission out. Only
        // the timer would leave the retry due a round trip too early.
        QVERIFY2(dueNs >= nakPollNs + timerNs + 2 * latencyNs,
                 qPrintable(QString("retry due %1 ns after the NAK's poll began; timer %2 ns, one-way %3 ns")
                                .arg(static_cast<double>(dueNs) - static_cast<double>(nakPollNs))
                                .arg(static_cast<double>(timerNs))
                                .arg(static_cast<double>(latencyNs))));
        // Nothing runs before it is due: the second NAK (the retry) comes at
        // or after that time, and the SEND still holds the send queue.
        while (sim->counters().rnrNaksReceived < 2 && monoNs() < giveUpNs) {
            auto n = side.sendCq->poll(std::span<WorkCompletion>(&wc, 1));
            QVERIFY(n.ok());
            QCOMPARE(n.value(), size_t{0});
        }
        QVERIFY(monoNs() >= dueNs);
        QCOMPARE(sim->counters().rnrNaksReceived, uint64_t{2});

        // A posted receive lets a later retry through (rnr_retry 7: forever).
        QVERIFY(signal(peer.fd()));
        QVERIFY(side.pollOne(*side.sendCq, &wc, 10000));
        QCOMPARE(wc.status, WcStatus::success);
        QCOMPARE(wc.wrId, uint64_t{9});
        QVERIFY(waitSignal(peer.fd()));
        QCOMPARE(peer.wait(), 0);
    }
};

QTEST_APPLESS_MAIN(TestFabricRnrCost)
#include "test_fabric_rnr_cost.moc"
