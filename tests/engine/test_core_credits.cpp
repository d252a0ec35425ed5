// LinkCredits, the functional core of the RQ credits extension (seed 004):
// negotiation, spending, the announcement reserve, watermarks, and a two-link
// simulation showing that credits never let a SEND meet an empty queue.
#include <deque>
#include <random>

#include <QTest>

#include "core/link/credits.h"

using namespace smcr::core;

class TestCoreCredits : public QObject {
    Q_OBJECT
private slots:
    void disabledAllowsEverythingAndCarriesNothing() {
        LinkCredits c;
        QVERIFY(!c.enabled());
        QVERIFY(c.canSend(CreditSendKind::message));
        QVERIFY(c.take(CreditSendKind::message));
        c.onRecvReposted();
        QCOMPARE(c.takeForCdc(), uint8_t{0});
        QVERIFY(!c.announceDue());
        QVERIFY(!c.onPeerCredits(5));
        c.enable(48, 0);  // the peer offered nothing: stays off
        QVERIFY(!c.enabled());
    }

    void offerIsTheQueueDepthCappedToOneByte() {
        QCOMPARE(LinkCredits::offerFor(2), uint8_t{0});  // too small for credits
        QCOMPARE(LinkCredits::offerFor(3), uint8_t{3});
        QCOMPARE(LinkCredits::offerFor(48), uint8_t{48});
        QCOMPARE(LinkCredits::offerFor(255), uint8_t{255});
        QCOMPARE(LinkCredits::offerFor(2048), uint8_t{255});
    }

    void lastCreditIsKeptForTheAnnouncement() {
        LinkCredits c;
        c.enable(48, 3);
        QVERIFY(c.enabled());
        QCOMPARE(c.txCredits(), 3u);
        QVERIFY(c.take(CreditSendKind::message));
        QVERIFY(c.take(CreditSendKind::message));
        QVERIFY(!c.canSend(CreditSendKind::message));
        QVERIFY(!c.take(CreditSendKind::message));
        QVERIFY(c.canSend(CreditSendKind::announce));
        QVERIFY(c.take(CreditSendKind::announce));
        QVERIFY(!c.take(CreditSendKind::announce));
        QCOMPARE(c.txCredits(), 0u);
        // Credits arriving wake a waiting sender once it may send again.
        QVERIFY(!c.onPeerCredits(1));  // 1 credit: only the reserve
        QVERIFY(c.onPeerCredits(1));
        QVERIFY(c.take(CreditSendKind::message));
    }

    void watermarks() {
        LinkCredits c;
        c.enable(48, 30);
        QCOMPARE(c.highWatermark(), 16u);  // 1/3 of our 48 WQEs
        QCOMPARE(c.lowWatermark(), 20u);   // 2/3 of the peer's 30
        for (int i = 0; i < 15; ++i) c.onRecvReposted();
        QVERIFY(!c.announceDue());
        c.onRecvReposted();
        QVERIFY(c.announceDue());
        QCOMPARE(c.takeForAnnounce(), uint8_t{16});
        QCOMPARE(c.localCredits(), 0u);
        QVERIFY(!c.announceDue());
        for (int i = 0; i < 10; ++i) QVERIFY(c.take(CreditSendKind::message));
        QCOMPARE(c.lowEvents(), 1ull);  // 30 -> 20 crossed once
        QVERIFY(c.take(CreditSendKind::message));
        QCOMPARE(c.lowEvents(), 1ull);
        c.onPeerCredits(10);  // 29: above the watermark again
        while (c.txCredits() > 21) QVERIFY(c.take(CreditSendKind::message));
        QCOMPARE(c.lowEvents(), 1ull);
        QVERIFY(c.take(CreditSendKind::message));  // 21 -> 20
        QCOMPARE(c.lowEvents(), 2ull);
        // No announcement without a credit to carry it.
        LinkCredits d;
        d.enable(3, 1);
        QVERIFY(d.take(CreditSendKind::announce));
        d.onRecvReposted();
        QVERIFY(!d.announceDue());  // the watermark is at least 2
        d.onRecvReposted();
        QVERIFY(!d.announceDue());  // no credit to carry it
        d.onPeerCredits(1);
        QVERIFY(d.announceDue());
    }

    void cdcCarriesAtMost255() {
        LinkCredits c;
        c.enable(2048, 10);
        for (int i = 0; i < 300; ++i) c.onRecvReposted();
        QCOMPARE(c.takeForCdc(), uint8_t{255});
        QCOMPARE(c.takeForCdc(), uint8_t{45});
        QCOMPARE(c.takeForCdc(), uint8_t{0});
    }

    // Two links exchange random traffic through queues; a SEND never finds the
    // peer's receive queue empty and traffic never deadlocks.
    void simulatedPairNeverOverrunsAndNeverStalls() {
        struct Side {
            LinkCredits credits;
            uint32_t rqFree = 0;        // posted, unconsumed WQEs
            std::deque<uint8_t> inbox;  // messages delivered: credits carried
            std::deque<int> consumed;   // WQEs consumed, not yet reposted
            uint64_t sent = 0;
        };
        for (uint32_t recvWr : {3u, 4u, 8u, 48u}) {
            Side s[2];
            for (Side& x : s) x.rqFree = recvWr;
            s[0].credits.enable(recvWr, LinkCredits::offerFor(recvWr));
            s[1].credits.enable(recvWr, LinkCredits::offerFor(recvWr));
            std::mt19937 rng(recvWr);
            for (int step = 0; step < 20000; ++step) {
                const int i = static_cast<int>(rng() % 2);
                Side& me = s[i];
                Side& peer = s[1 - i];
                switch (rng() % 4) {
                    case 0:  // send a CDC when allowed
                        if (me.credits.take(CreditSendKind::message)) {
                            QVERIFY2(peer.rqFree > 0, "a SEND met an empty receive queue");
                            --peer.rqFree;
                            peer.inbox.push_back(me.credits.takeForCdc());
                            ++me.sent;
                        }
                        break;
                    case 1:  // process one arrival (its WQE repost comes later)
                        if (!me.inbox.empty()) {
                            me.credits.onPeerCredits(me.inbox.front());
                            me.inbox.pop_front();
                            me.consumed.push_back(1);
                        }
                        break;
                    case 2:  // slow repost
                        if (!me.consumed.empty()) {
                            me.consumed.pop_front();
                            ++me.rqFree;
                            me.credits.onRecvReposted();
                        }
                        break;
                    default:  // announcement when due
                        if (me.credits.announceDue()) {
                            QVERIFY(me.credits.take(CreditSendKind::announce));
                            QVERIFY2(peer.rqFree > 0, "an announcement met an empty receive queue");
                            --peer.rqFree;
                            peer.inbox.push_back(me.credits.takeForAnnounce());
                        }
                        break;
                }
            }
            QVERIFY2(s[0].sent > 100 && s[1].sent > 100, qPrintable(QString("recvWr %1: traffic stalled").arg(recvWr)));
            // Drain: both sides settle with every WQE accounted for, go quiet
            // (announcements do not answer each other forever), and neither is
            // left unable to send (no credit deadlock).
            bool active = true;
            for (int round = 0; round < 100 && active; ++round) {
                active = false;
                for (int i = 0; i < 2; ++i) {
                    Side& me = s[i];
                    Side& peer = s[1 - i];
                    while (!me.inbox.empty()) {
                        me.credits.onPeerCredits(me.inbox.front());
                        me.inbox.pop_front();
                        me.consumed.push_back(1);
                        active = true;
                    }
                    while (!me.consumed.empty()) {
                        me.consumed.pop_front();
                        ++me.rqFree;
                        me.credits.onRecvReposted();
                    }
                    if (me.credits.announceDue() && me.credits.take(CreditSendKind::announce)) {
                        --peer.rqFree;
                        peer.inbox.push_back(me.credits.takeForAnnounce());
                        active = true;
                    }
                }
            }
            QVERIFY2(!active, qPrintable(QString("recvWr %1: announcements keep going").arg(recvWr)));
            for (int i = 0; i < 2; ++i) {
                QVERIFY2(s[i].credits.canSend(CreditSendKind::message),
                         qPrintable(QString("recvWr %1: side %2 is left without credits").arg(recvWr).arg(i)));
            }
            for (int i = 0; i < 2; ++i) {
                // Conservation: what I may send + what the peer owes me + credits
                // on their way to me == the peer's posted, unconsumed WQEs.
                uint32_t inFlight = 0;
                for (uint8_t k : s[i].inbox) inFlight += k;
                QCOMPARE(s[i].credits.txCredits() + s[1 - i].credits.localCredits() + inFlight, s[1 - i].rqFree);
                QVERIFY(s[1 - i].rqFree <= recvWr);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestCoreCredits)
#include "test_core_credits.moc"
