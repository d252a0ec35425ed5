#include <cstring>
#include <random>
#include <vector>

#include <QTest>

#include "core/connection/connection_core.h"

using namespace smcr::core;

namespace {

// One direction of a connection pair with real byte rings, driven the way the
// shell drives it: copy into the sndbuf, RDMA-write per plan, deliver the CDC.
struct Pipe {
    ConnectionCore sender;
    ConnectionCore receiver;
    std::vector<uint8_t> sndbuf;
    std::vector<uint8_t> rmbe;
    uint64_t writes = 0;
    uint64_t cdcs = 0;
    uint64_t writeBlocked = 0;

    Pipe(uint32_t sndbufBytes, uint32_t rmbeBytes)
        : sender(ConnectionParams{11, 22, sndbufBytes, 16384, rmbeBytes}),
          receiver(ConnectionParams{22, 11, 16384, rmbeBytes, 16384}),
          sndbuf(sndbufBytes),
          rmbe(rmbeBytes) {}

    uint32_t write(const uint8_t* data, uint32_t len) {
        ConnTx& tx = sender.tx();
        const uint32_t n = std::min(len, tx.sndbufFreeBytes());
        RingSpans spans = tx.reserve(n);
        uint32_t done = 0;
        for (uint8_t i = 0; i < spans.count; ++i) {
            std::memcpy(sndbuf.data() + spans.spans[i].offset, data + done, spans.spans[i].lengthBytes);
            done += spans.spans[i].lengthBytes;
        }
        tx.commit(n);
        return n;
    }

    // Posts what the core returns next (ConnectionCore::nextCdc, as the
    // shell's flushLocked does): the RDMA WRITEs, then the CDC. False when
    // nothing is to be sent.
    bool push(CdcInfo* out) {
        const CdcStep step = sender.nextCdc({.userCorked = false, .linkCanPost = true});
        if (step.kind == CdcStepKind::none) return false;
        if (step.kind != CdcStepKind::data) qFatal("the sender owes no control CDC");
        const TxPlan& plan = step.plan;
        if (plan.writeCount > 2) qFatal("more than two writes");
        for (uint8_t w = 0; w < plan.writeCount; ++w) {
            const RdmaWritePlan& wr = plan.writes[w];
            if (wr.source.count > 2) qFatal("more than two SGEs");
            uint32_t dst = wr.remoteOffset;
            for (uint8_t s = 0; s < wr.source.count; ++s) {
                std::memcpy(rmbe.data() + dst, sndbuf.data() + wr.source.spans[s].offset,
                            wr.source.spans[s].lengthBytes);
                dst += wr.source.spans[s].lengthBytes;
            }
            if (dst != wr.remoteOffset + wr.lengthBytes) qFatal("SGE lengths do not add up");
            ++writes;
        }
        *out = step.cdc;
        if (out->writeBlocked) ++writeBlocked;
        ++cdcs;
        return true;
    }

    // The receiver's owed window update, as the core returns it: a control
    // CDC with the consumer cursor and no close flag.
    CdcInfo windowUpdate() {
        const CdcStep step = receiver.nextCdc({.userCorked = false, .linkCanPost = true});
        if (step.kind != CdcStepKind::control || !step.windowUpdate) qFatal("no window update owed");
        return step.cdc;
    }

    uint32_t read(uint8_t* out, uint32_t len) {
        ConnRx& rx = receiver.rx();
        const auto n = static_cast<uint32_t>(std::min<uint64_t>(len, rx.availableBytes()));
        RingSpans spans = rx.readSpans(0, n);
        uint32_t done = 0;
        for (uint8_t i = 0; i < spans.count; ++i) {
            std::memcpy(out + done, rmbe.data() + spans.spans[i].offset, spans.spans[i].lengthBytes);
            done += spans.spans[i].lengthBytes;
        }
        rx.consume(n);
        return n;
    }
};

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
    void randomStreamIsIntactAcrossWraps() {
        std::mt19937 rng(1234);
        Pipe pipe(32768, 16384);
        std::vector<uint8_t> sent;
        std::vector<uint8_t> received;
        std::vector<uint8_t> buf(200000);
        uint64_t windowUpdates = 0;
        for (int round = 0; round < 3000; ++round) {
            const uint32_t len = std::uniform_int_distribution<uint32_t>(1, 70000)(rng);
            std::vector<uint8_t> msg(len);
            for (auto& b : msg) b = static_cast<uint8_t>(rng());
            uint32_t off = 0;
            while (off < len) {
                off += pipe.write(msg.data() + off, len - off);
                CdcInfo cdc;
                while (pipe.push(&cdc)) {
                    CdcRxResult r = pipe.receiver.onCdc(cdc);
                    QCOMPARE(r.verdict, CdcVerdict::accepted);
                    pipe.sender.tx().onCdcSendComplete();
                    // Read a random amount, then maybe announce the window.
                    const uint32_t want = std::uniform_int_distribution<uint32_t>(1, 40000)(rng);
                    const uint32_t got = pipe.read(buf.data(), want);
                    received.insert(received.end(), buf.begin(), buf.begin() + got);
                    if (pipe.receiver.oweWindowUpdateIfDue(WindowUpdateLimit::max)) {
                        CdcInfo upd = pipe.windowUpdate();
                        QCOMPARE(pipe.sender.onCdc(upd).verdict, CdcVerdict::accepted);
                        pipe.receiver.tx().onCdcSendComplete();
                        ++windowUpdates;
                    }
                }
                // Sender blocked: the reader drains all and announces.
                if (pipe.sender.tx().unsentBytes() > 0 && pipe.sender.tx().peerSpaceBytes() == 0) {
                    const uint32_t got = pipe.read(buf.data(), static_cast<uint32_t>(buf.size()));
                    received.insert(received.end(), buf.begin(), buf.begin() + got);
                    QVERIFY(pipe.receiver.oweWindowUpdateIfDue(WindowUpdateLimit::max));
                    CdcInfo upd = pipe.windowUpdate();
                    pipe.sender.onCdc(upd);
                    pipe.receiver.tx().onCdcSendComplete();
                    ++windowUpdates;
                }
            }
            sent.insert(sent.end(), msg.begin(), msg.end());
        }
        // Drain the tail.
        for (;;) {
            const uint32_t got = pipe.read(buf.data(), static_cast<uint32_t>(buf.size()));
            received.insert(received.end(), buf.begin(), buf.begin() + got);
            pipe.receiver.oweCdc();  // announce whatever was read
            CdcInfo upd = pipe.windowUpdate();
            pipe.sender.onCdc(upd);
            CdcInfo cdc;
            if (!pipe.push(&cdc)) break;
            pipe.receiver.onCdc(cdc);
            pipe.sender.tx().onCdcSendComplete();
        }
        QCOMPARE(received.size(), sent.size());
        QVERIFY(received == sent);
        QVERIFY(pipe.writeBlocked > 0);
        QVERIFY(windowUpdates > 0);
        QVERIFY(sent.size() > 100u * 16384u);  // many RMBE wraps
    }
    void staleSequenceAndWrongTokenAreDropped() {
        Pipe pipe(16384, 16384);
        const uint8_t data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        pipe.write(data, 5);
        CdcInfo first;
        QVERIFY(pipe.push(&first));
        pipe.write(data + 5, 5);
        CdcInfo second;
        QVERIFY(pipe.push(&second));
        QCOMPARE(pipe.receiver.onCdc(second).newBytes, 10u);
        CdcRxResult r = pipe.receiver.onCdc(first);
        QCOMPARE(r.verdict, CdcVerdict::staleSeqno);
        QCOMPARE(pipe.receiver.rx().availableBytes(), 10ull);
        CdcInfo foreign = second;
        foreign.token = 999;
        QCOMPARE(pipe.receiver.onCdc(foreign).verdict, CdcVerdict::wrongToken);
        // Sequence numbers wrap at 16 bits: 0xFFFF then 0 is newer.
        CdcInfo a = second;
        a.seqno = 0xFFFF;
        CdcInfo b = second;
        b.seqno = 0;
        QCOMPARE(pipe.receiver.onCdc(a).verdict, CdcVerdict::staleSeqno);  // older than 2
        ConnectionCore fresh(ConnectionParams{22, 11, 16384, 16384, 16384});
        QCOMPARE(fresh.onCdc(a).verdict, CdcVerdict::accepted);
        QCOMPARE(fresh.onCdc(b).verdict, CdcVerdict::accepted);
        QCOMPARE(fresh.onCdc(a).verdict, CdcVerdict::staleSeqno);
    }
    void producerBeyondRmbeIsAViolation() {
        ConnectionCore c(ConnectionParams{22, 11, 16384, 16384, 16384});
        CdcInfo cdc;
        cdc.token = 22;
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
