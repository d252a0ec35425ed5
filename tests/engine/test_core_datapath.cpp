#include <cstring>
#include <random>
#include <vector>

#include <QTest>

#include "core/connection/connection_core.h"
#include "core_pair.h"

using namespace smcr::core;

namespace {

// A plain send of `bytes` already copied into the sndbuf: no cork, no autocorking.
AppSendEvent committed(uint32_t bytes) {
    AppSendEvent e;
    e.committedBytes = bytes;
    return e;
}

using smcr::core::testing::CorePair;
using smcr::core::testing::CorePairSettings;

// The data CDC a lone sender core posts next, for tests that hand CDCs to a
// receiver in their own order.
CdcInfo nextDataCdc(ConnectionCore& sender, uint32_t bytes) {
    const AppSendActions a = sender.onAppSend(committed(bytes));
    if (!a.push) qFatal("the send did not push");
    const CdcStep step = sender.nextCdc({.linkCanPost = true});
    if (step.kind != CdcStepKind::data) qFatal("no data CDC");
    return step.cdc;
}

}  // namespace

class TestCoreDatapath : public QObject {
    Q_OBJECT
private slots:
    void planSplitsAtBothWraps() {
        ConnTx tx(16384, 16384);
        std::vector<uint8_t> junk(16384);
        // Move both rings to an odd position: sndbuf at 10000, peer at 10000.
        tx.commit(10000);
        TxPlan p = tx.plan();
        tx.markSent(p);
        tx.onCdcSendComplete();
        tx.onPeerConsumer(cursorAt(10000, 16384));
        QCOMPARE(tx.sndbufFreeBytes(), 16384u);
        tx.commit(16384);
        p = tx.plan();
        QCOMPARE(p.bytes, 16384u);
        QCOMPARE(int(p.writeCount), 2);
        QCOMPARE(p.writes[0].remoteOffset, 10000u);
        QCOMPARE(p.writes[0].lengthBytes, 6384u);
        QCOMPARE(p.writes[1].remoteOffset, 0u);
        QCOMPARE(p.writes[1].lengthBytes, 10000u);
        QVERIFY(p.writeBlocked);                   // fills the peer's window
        QCOMPARE(p.producer, (Cursor{1, 10000}));  // 26384 bytes = one wrap + 10000
    }
    void sourceWrapGivesTwoSges() {
        ConnTx tx(16384, 65536);
        tx.commit(16000);
        TxPlan p = tx.plan();
        tx.markSent(p);
        tx.onCdcSendComplete();
        tx.commit(1000);
        p = tx.plan();
        QCOMPARE(int(p.writeCount), 1);
        QCOMPARE(int(p.writes[0].source.count), 2);
        QCOMPARE(p.writes[0].source.spans[0], (RingSpan{16000, 384}));
        QCOMPARE(p.writes[0].source.spans[1], (RingSpan{0, 616}));
        QVERIFY(!p.writeBlocked);
    }
    void sndbufSpaceReturnsOnCdcCompletion() {
        ConnTx tx(16384, 65536);
        tx.commit(16384);
        QCOMPARE(tx.sndbufFreeBytes(), 0u);
        tx.markSent(tx.plan());
        QCOMPARE(tx.sndbufFreeBytes(), 0u);  // written, but the CDC has not completed
        QVERIFY(!tx.drained());
        tx.onCdcSendComplete();
        QCOMPARE(tx.sndbufFreeBytes(), 16384u);
        QVERIFY(tx.drained());
    }
    void peerSpaceFromConsumerCursor() {
        ConnTx tx(65536, 16384);
        tx.commit(20000);
        TxPlan p = tx.plan();
        QCOMPARE(p.bytes, 16384u);
        QVERIFY(p.writeBlocked);
        tx.markSent(p);
        QCOMPARE(tx.peerSpaceBytes(), 0u);
        QCOMPARE(tx.plan().bytes, 0u);
        QCOMPARE(tx.onPeerConsumer(Cursor{0, 5000}), 5000u);
        QCOMPARE(tx.peerSpaceBytes(), 5000u);
        QCOMPARE(tx.onPeerConsumer(Cursor{0, 4000}), 0u);  // stale: ignored
        QCOMPARE(tx.peerSpaceBytes(), 5000u);
        p = tx.plan();
        QCOMPARE(p.bytes, 3616u);
        QVERIFY(!p.writeBlocked);
    }
    // Both cores driven through their events only (send, read, completions,
    // received CDCs), every byte checked across many wraps of both rings.
    void randomStreamIsIntactAcrossWraps_data() {
        QTest::addColumn<uint64_t>("autocorking");
        QTest::addColumn<bool>("defer");
        QTest::newRow("no cork") << uint64_t{0} << false;
        QTest::newRow("autocorking, tx deferral") << uint64_t{65536} << true;
    }
    void randomStreamIsIntactAcrossWraps() {
        QFETCH(uint64_t, autocorking);
        QFETCH(bool, defer);
        std::mt19937 rng(1234);
        CorePair pair(32768, 16384, CorePairSettings{.autocorkingSize = autocorking, .txDeferToOwner = defer});
        std::vector<uint8_t> sent;
        std::vector<uint8_t> received;
        std::vector<uint8_t> buf(200000);
        auto readSome = [&](uint32_t want) {
            const uint32_t got = pair.read(1, buf.data(), want);
            received.insert(received.end(), buf.begin(), buf.begin() + got);
            return got;
        };
        for (int round = 0; round < 1500; ++round) {
            const uint32_t len = std::uniform_int_distribution<uint32_t>(1, 70000)(rng);
            std::vector<uint8_t> msg(len);
            for (auto& b : msg) b = static_cast<uint8_t>(rng());
            uint32_t off = 0;
            pair.enter(0);  // the sender's thread is inside its socket while it sends
            while (off < len) {
                const uint32_t took = pair.send(0, msg.data() + off, len - off);
                off += took;
                if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) pair.completeSends(0);
                readSome(std::uniform_int_distribution<uint32_t>(1, 40000)(rng));
                pair.completeSends(1);
                if (took == 0) {
                    // The sender waits (it leaves the socket): ACKs and the reader free space.
                    pair.leave(0);
                    pair.completeSends(0);
                    readSome(static_cast<uint32_t>(buf.size()));
                    pair.completeSends(1);
                    pair.enter(0);
                }
            }
            pair.leave(0);
            sent.insert(sent.end(), msg.begin(), msg.end());
        }
        // Drain the tail: ACKs push what autocorking held, reads announce.
        for (int i = 0; i < 100 && received.size() < sent.size(); ++i) {
            pair.completeSends(0);
            readSome(static_cast<uint32_t>(buf.size()));
            pair.completeSends(1);
        }
        QCOMPARE(received.size(), sent.size());
        QVERIFY(received == sent);
        const smcr::ConnectionStats& tx = pair.core(0).counters();
        const smcr::ConnectionStats& rx = pair.core(1).counters();
        QVERIFY(tx.bufFullPeer > 0);
        QVERIFY(rx.windowUpdates > 0);
        QVERIFY(sent.size() > 100u * 16384u);  // many RMBE wraps
        if (autocorking != 0) QVERIFY(tx.autocorkedSends > 0 && tx.autocorkPushes > 0);
        if (defer) QVERIFY(tx.pushesDeferred > 0);
    }

    // ---- the decisions, one event at a time ----------------------------------
    void completionReleasesSndbufSpace() {
        CorePair pair(16384, 65536);
        std::vector<uint8_t> data(16384, 7);
        QCOMPARE(pair.send(0, data.data(), 16384), 16384u);
        QCOMPARE(pair.side(0).dataCdcs, uint64_t{1});
        QCOMPARE(pair.core(1).rx().availableBytes(), uint64_t{16384});
        // Written and delivered, but the sndbuf holds it until the CDC completes.
        QCOMPARE(pair.core(0).tx().sndbufFreeBytes(), 0u);
        QCOMPARE(pair.send(0, data.data(), 1), 0u);
        pair.completeSends(0);
        QCOMPARE(pair.core(0).tx().sndbufFreeBytes(), 16384u);
    }
    void lastCompletionPushesAutocorkedData() {
        CorePair pair(65536, 65536, CorePairSettings{.autocorkingSize = 65536});
        const uint8_t data[300] = {};
        pair.send(0, data, 100);  // nothing outstanding: goes at once
        QCOMPARE(pair.side(0).dataCdcs, uint64_t{1});
        pair.send(0, data, 100);  // a CDC is outstanding: corked
        pair.send(0, data, 100);
        QCOMPARE(pair.side(0).dataCdcs, uint64_t{1});
        QCOMPARE(pair.core(0).counters().autocorkedSends, uint64_t{2});
        QVERIFY(pair.core(0).awaitsCdcCompletion());
        pair.completeSends(0);  // the completion pushes both in one CDC
        QCOMPARE(pair.side(0).dataCdcs, uint64_t{2});
        QCOMPARE(pair.core(0).counters().autocorkPushes, uint64_t{1});
        QCOMPARE(pair.core(1).rx().availableBytes(), uint64_t{300});
        QVERIFY(!pair.core(0).awaitsCdcCompletion());
    }
    void userCorkHoldsUntilCleared() {
        CorePair pair(65536, 65536);
        const uint8_t data[100] = {};
        pair.send(0, data, 100, SendHints{.tcpCork = true});
        QCOMPARE(pair.side(0).dataCdcs, uint64_t{0});
        QVERIFY(pair.core(0).userCorked());
        QVERIFY(!pair.core(0).onNoDelay(true));  // TCP_NODELAY does not lift TCP_CORK
        QCOMPARE(pair.core(0).onCorkCleared(false, 0), UncorkAction::push);
        pair.push(0, PushOrigin::uncork);
        QCOMPARE(pair.side(0).dataCdcs, uint64_t{1});
        QCOMPARE(pair.core(1).rx().availableBytes(), uint64_t{100});
        // The old timer mode: clearing the cork only schedules the timer.
        pair.send(0, data, 50, SendHints{.tcpCork = true});
        QCOMPARE(pair.core(0).onCorkCleared(true, 1000), UncorkAction::timer);
        QCOMPARE(pair.core(0).corkDeadlineMs(), uint64_t{1000});
        QVERIFY(!pair.core(0).onCorkTimer(999));
        QVERIFY(pair.core(0).onCorkTimer(1000));
        QCOMPARE(pair.core(0).counters().corkTimerPushes, uint64_t{1});
    }
    void receivedCursorPushesPendingData() {
        CorePair pair(65536, 16384);
        std::vector<uint8_t> data(20000, 3);
        QCOMPARE(pair.send(0, data.data(), 20000), 20000u);
        QCOMPARE(pair.core(1).rx().availableBytes(), uint64_t{16384});  // the peer's RMBE is full
        QCOMPARE(pair.core(0).tx().unsentBytes(), uint64_t{20000 - 16384});
        QCOMPARE(pair.core(0).counters().bufFullPeer, uint64_t{1});
        // The reader's read announces the window; the CDC that carries it
        // pushes the pending bytes at once, with no call by the sender.
        std::vector<uint8_t> out(16384);
        QCOMPARE(pair.read(1, out.data(), 16384), 16384u);
        QCOMPARE(pair.core(1).counters().windowUpdates, uint64_t{1});
        QCOMPARE(pair.core(0).tx().unsentBytes(), uint64_t{0});
        QCOMPARE(pair.core(1).rx().availableBytes(), uint64_t{20000 - 16384});
        QCOMPARE(pair.core(0).counters().pushesCompletion, uint64_t{1});
    }
    void deferredPushRunsWhenTheOwnerLeaves() {
        CorePair pair(65536, 16384, CorePairSettings{.txDeferToOwner = true});
        std::vector<uint8_t> data(20000, 3);
        pair.enter(0);
        QCOMPARE(pair.send(0, data.data(), 20000), 20000u);
        std::vector<uint8_t> out(16384);
        pair.read(1, out.data(), 16384);
        // The window update arrived while the sender is inside: left to it.
        QCOMPARE(pair.core(0).counters().pushesDeferred, uint64_t{1});
        QCOMPARE(pair.core(0).tx().unsentBytes(), uint64_t{20000 - 16384});
        pair.leave(0);
        QCOMPARE(pair.core(0).tx().unsentBytes(), uint64_t{0});
        QCOMPARE(pair.core(0).counters().pushesApp, uint64_t{2});  // the send's, then the owner's
        QCOMPARE(pair.core(1).rx().availableBytes(), uint64_t{20000 - 16384});
    }
    void oneAnnouncementPerWholeRead() {
        // A 64 KiB RMBE read whole (kernel-like waiting reads whole): one
        // window update, not one per piece.
        CorePair pair(65536, 65536);
        std::vector<uint8_t> data(65536, 1);
        QCOMPARE(pair.send(0, data.data(), 65536), 65536u);
        std::vector<uint8_t> out(65536);
        QCOMPARE(pair.read(1, out.data(), 65536), 65536u);
        QCOMPARE(pair.core(1).counters().windowUpdates, uint64_t{1});
        QCOMPARE(pair.side(1).cdcsSent, uint64_t{1});
        // A sliver below the limit announces nothing.
        pair.completeSends(0);
        QCOMPARE(pair.send(0, data.data(), 100), 100u);
        pair.read(1, out.data(), 100);
        QCOMPARE(pair.core(1).counters().windowUpdates, uint64_t{1});
    }
    void staleSequenceAndWrongTokenAreDropped() {
        ConnectionCore sender(ConnectionParams{11, 22, 16384, 16384, 16384});
        ConnectionCore receiver(ConnectionParams{22, 11, 16384, 16384, 16384});
        const CdcInfo first = nextDataCdc(sender, 5);
        const CdcInfo second = nextDataCdc(sender, 5);
        QCOMPARE(receiver.onCdc(second).newBytes, 10u);
        CdcRxResult r = receiver.onCdc(first);
        QCOMPARE(r.verdict, CdcVerdict::staleSeqno);
        QCOMPARE(receiver.rx().availableBytes(), 10ull);
        CdcInfo foreign = second;
        foreign.alertToken = 999;
        QCOMPARE(receiver.onCdc(foreign).verdict, CdcVerdict::wrongToken);
        // Sequence numbers wrap at 16 bits: 0xFFFF then 0 is newer.
        CdcInfo a = second;
        a.seqno = 0xFFFF;
        CdcInfo b = second;
        b.seqno = 0;
        QCOMPARE(receiver.onCdc(a).verdict, CdcVerdict::staleSeqno);  // older than 2
        ConnectionCore fresh(ConnectionParams{22, 11, 16384, 16384, 16384});
        QCOMPARE(fresh.onCdc(a).verdict, CdcVerdict::accepted);
        QCOMPARE(fresh.onCdc(b).verdict, CdcVerdict::accepted);
        QCOMPARE(fresh.onCdc(a).verdict, CdcVerdict::staleSeqno);
    }
    void producerBeyondRmbeIsAViolation() {
        ConnectionCore c(ConnectionParams{22, 11, 16384, 16384, 16384});
        CdcInfo cdc;
        cdc.alertToken = 22;
        cdc.seqno = 1;
        cdc.producer = Cursor{0, 16000};
        QCOMPARE(c.onCdc(cdc).newBytes, 16000u);
        cdc.seqno = 2;
        cdc.producer = Cursor{1, 1000};  // 1384 more: 17384 > 16384 unread
        QCOMPARE(c.onCdc(cdc).verdict, CdcVerdict::protocolViolation);
    }
    void readPiecesAnnounceMidRead() {
        // A quarter of the RMBE, at least a page.
        QCOMPARE(readPieceBytes(65536), 16384u);
        QCOMPARE(readPieceBytes(16384), 4096u);
        QCOMPARE(readPieceBytes(8192), 4096u);
        // A full RMBE read in pieces: after the first piece the sender sees
        // a quarter free and the rule (either limit) asks for an update, so
        // the sender refills while the other three are copied.
        ConnRx rx(65536);
        QCOMPARE(rx.onProducer(Cursor{1, 0}), int64_t{65536});
        rx.consume(readPieceBytes(rx.rmbeBytes()));
        QVERIFY(rx.windowUpdateNeeded(WindowUpdateLimit::max));
        QVERIFY(rx.windowUpdateNeeded(WindowUpdateLimit::min));
        rx.markAnnounced();
        rx.consume(100);  // below both limits: no update for a sliver
        QVERIFY(!rx.windowUpdateNeeded(WindowUpdateLimit::max));
    }
    void readPiecesOnlyWhileTheSenderIsAwake() {
        using W = ConnRx::SenderWaits;
        ConnRx rx(65536);
        QCOMPARE(rx.onProducer(Cursor{1, 0}), int64_t{65536});
        // A busy-polling sender refills every piece; a sleeping one would
        // wake for each, so it gets one announcement per read.
        QCOMPARE(rx.readPieceBytes(W::busyPolls), 16384u);
        QCOMPARE(rx.readPieceBytes(W::sleeps), UINT32_MAX);
        // A sender that polls only for our window: pieces once it says it
        // is blocked on it (write_blocked) and this reader caught its data
        // polling (it keeps up, so the sender is awake), not otherwise.
        using R = ConnRx::RecvWait;
        rx.onRecv(R::polled);
        QCOMPARE(rx.readPieceBytes(W::pollsForWindow), UINT32_MAX);
        rx.onPeerFlags(true, false);
        rx.onRecv(R::none);  // the data was queued: this reader is the slower end
        QCOMPARE(rx.readPieceBytes(W::pollsForWindow), UINT32_MAX);
        rx.onRecv(R::slept);  // the sender did not answer while we polled
        QCOMPARE(rx.readPieceBytes(W::pollsForWindow), UINT32_MAX);
        rx.onRecv(R::polled);
        QCOMPARE(rx.readPieceBytes(W::pollsForWindow), 16384u);
        QCOMPARE(rx.readPieceBytes(W::sleeps), UINT32_MAX);
        rx.onPeerFlags(false, false);
        QCOMPARE(rx.readPieceBytes(W::pollsForWindow), UINT32_MAX);
    }
    void refillIsExpectedOnlyOnceTheBlockedSenderIsReleased() {
        ConnRx rx(65536);
        QVERIFY(!rx.peerRefillExpected());  // nothing said yet
        // The sender filled the RMBE and said it is blocked on our window.
        QCOMPARE(rx.onProducer(Cursor{1, 0}), int64_t{65536});
        rx.onPeerFlags(true, false);
        // Its bytes cannot come while ours are unread or unannounced.
        QVERIFY(!rx.peerRefillExpected());
        rx.consume(65536);
        QVERIFY(!rx.peerRefillExpected());
        // The window update that releases it went out: its bytes follow.
        rx.markAnnounced();
        QVERIFY(rx.peerRefillExpected());
        // Its next CDC is not blocked (it had no more to send): nothing follows.
        rx.onPeerFlags(false, false);
        QVERIFY(!rx.peerRefillExpected());
    }
    void windowUpdateLimitPolicies() {
        QCOMPARE(windowUpdateLimitBytes(WindowUpdateLimit::max, 16384), 2304u);
        QCOMPARE(windowUpdateLimitBytes(WindowUpdateLimit::min, 16384), 1638u);
        QCOMPARE(windowUpdateLimitBytes(WindowUpdateLimit::max, 65536), 6553u);
        QCOMPARE(windowUpdateLimitBytes(WindowUpdateLimit::min, 65536), 2304u);
        WindowUpdateInput in;
        in.rmbeBytes = 65536;
        in.unannouncedConsumedBytes = 4000;
        in.senderFreeBytes = 1000;
        QVERIFY(windowUpdateNeeded(WindowUpdateLimit::min, in));   // 4000 > 2304
        QVERIFY(!windowUpdateNeeded(WindowUpdateLimit::max, in));  // 4000 <= 6553
        in.unannouncedConsumedBytes = 7000;
        QVERIFY(windowUpdateNeeded(WindowUpdateLimit::max, in));
        in.senderFreeBytes = 40000;  // the sender still sees more than half free
        QVERIFY(!windowUpdateNeeded(WindowUpdateLimit::max, in));
        in.peerWriteBlocked = true;
        QVERIFY(windowUpdateNeeded(WindowUpdateLimit::max, in));
        in.peerWriteBlocked = false;
        in.peerRequestedUpdate = true;
        in.unannouncedConsumedBytes = 1;
        QVERIFY(windowUpdateNeeded(WindowUpdateLimit::max, in));
        in.unannouncedConsumedBytes = 0;
        QVERIFY(!windowUpdateNeeded(WindowUpdateLimit::max, in));
    }
};

QTEST_APPLESS_MAIN(TestCoreDatapath)
#include "test_core_datapath.moc"
