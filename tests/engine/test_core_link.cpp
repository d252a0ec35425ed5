#include <QTest>

#include "core/link/link_core.h"
#include "core/link/link_group_core.h"

using namespace smcr::core;
namespace wire = smcr::wire;

class TestCoreLink : public QObject {
    Q_OBJECT
private slots:
    void testLinkAfterIdleAndLinkDownWithoutAnswer() {
        LinkCore link(1, LinkTimers{30000, 2000}, 0);
        link.activate(0);
        QVERIFY(!link.poll(29999).send);
        LinkActions a = link.poll(30000);
        QVERIFY(a.send);
        const auto& req = std::get<wire::LlcTestLink>(*a.send);
        QVERIFY(!req.response);
        QVERIFY(!link.poll(31000).send);  // one outstanding at a time
        QCOMPARE(link.nextDeadlineMs(), 32000ull);
        a = link.poll(32000);
        QVERIFY(a.linkDown);
        QVERIFY(a.terminateLinkGroup);
        QCOMPARE(a.reason, wire::DeleteLinkReason::lostPath);
        QCOMPARE(link.state(), LinkState::down);
    }
    void testLinkResponseKeepsTheLinkUp() {
        LinkCore link(1, LinkTimers{1000, 2000}, 0);
        link.activate(0);
        LinkActions a = link.poll(1000);
        wire::LlcTestLink resp = std::get<wire::LlcTestLink>(*a.send);
        resp.response = true;
        link.onLlc(resp, 1500);
        QCOMPARE(link.state(), LinkState::active);
        QVERIFY(!link.poll(2499).send);
        a = link.poll(2500);  // idle again since the response
        QVERIFY(a.send);
        resp = std::get<wire::LlcTestLink>(*a.send);
        resp.response = true;
        link.onLlc(resp, 2600);
        // Traffic postpones the next probe.
        link.onRxActivity(3000);
        QVERIFY(!link.poll(3999).send);
        QVERIFY(link.poll(4000).send);
        LinkCore off(1, LinkTimers{0, 2000}, 0);  // smcr_testlink_time = 0 disables
        off.activate(0);
        QVERIFY(!off.poll(1000000).send);
    }
    void testLinkRequestIsEchoed() {
        LinkCore link(1, LinkTimers{}, 0);
        wire::LlcTestLink req;
        req.userData[3] = 0x42;
        LinkActions a = link.onLlc(req, 5);
        const auto& resp = std::get<wire::LlcTestLink>(*a.send);
        QVERIFY(resp.response);
        QCOMPARE(int(resp.userData[3]), 0x42);
    }
    void addLinkIsRejectedLikeTheKernel() {
        LinkCore link(1, LinkTimers{}, 0);
        wire::LlcAddLink req;
        req.linkNumber = 2;
        LinkActions a = link.onLlc(req, 0);
        QVERIFY(a.addLinkRejected);
        const auto& resp = std::get<wire::LlcAddLink>(*a.send);
        QVERIFY(resp.response);
        QVERIFY(resp.rejected);
        QCOMPARE(int(resp.rejectReason), 1);
        // The encoded flags byte carries 0x80 | 0x40.
        wire::LlcBytes bytes = wire::encode(resp);
        QCOMPARE(int(bytes[3] & 0xC0), 0xC0);
    }
    void deleteLinkTakesTheGroupDown() {
        LinkCore link(1, LinkTimers{}, 0);
        link.activate(0);
        wire::LlcDeleteLink req;
        req.allLinks = true;
        req.reason = static_cast<uint32_t>(wire::DeleteLinkReason::programTerm);
        LinkActions a = link.onLlc(req, 0);
        QVERIFY(a.linkDown);
        QVERIFY(a.terminateLinkGroup);
        QVERIFY(std::get<wire::LlcDeleteLink>(*a.send).response);
        QCOMPARE(link.state(), LinkState::down);
        LinkCore other(1, LinkTimers{}, 0);
        QVERIFY(other.onUnknownLlc().terminateLinkGroup);
    }
    void tokensAndConnectionLimit() {
        LinkGroupCore lgr(3, 10000, 0xFFFFFFFF);
        auto a = lgr.addConnection();
        auto b = lgr.addConnection();
        auto c = lgr.addConnection();
        QVERIFY(a && b && c);
        QVERIFY(*a != 0 && *b != 0 && *c != 0);  // 0 is skipped after the wrap
        QVERIFY(*a != *b && *b != *c && *a != *c);
        QVERIFY(lgr.full());
        QVERIFY(!lgr.addConnection());
        lgr.removeConnection(*b, 100);
        QVERIFY(!lgr.lingerExpired(100000));  // still has connections
        auto d = lgr.addConnection();
        QVERIFY(d && !lgr.hasToken(*b) == (*d != *b));
    }
    void lingerAfterLastConnection() {
        LinkGroupCore lgr(255, 10000, 7);
        auto a = lgr.addConnection();
        lgr.removeConnection(*a, 1000);
        QVERIFY(!lgr.lingerExpired(10999));
        QVERIFY(lgr.lingerExpired(11000));
        auto b = lgr.addConnection();  // a reconnect cancels the linger
        QVERIFY(b);
        QVERIFY(!lgr.lingerExpired(50000));
    }
    void buffersArePooledPerSizeClass() {
        QCOMPARE(int(bufferClassFor(1)), 0);
        QCOMPARE(int(bufferClassFor(16384)), 0);
        QCOMPARE(int(bufferClassFor(16385)), 1);
        QCOMPARE(int(bufferClassFor(65536)), 2);
        QCOMPARE(int(bufferClassFor(10u << 20)), 5);  // capped at 512 KiB
        QCOMPARE(bufferClassBytes(5), 512u * 1024u);
        BufferPool pool;
        QVERIFY(!pool.acquire(2));
        pool.add(10, 2);
        pool.add(11, 1);
        QVERIFY(!pool.acquire(2));
        pool.release(10);
        QCOMPARE(pool.acquire(1), std::nullopt);
        QCOMPARE(pool.acquire(2), std::optional<uint32_t>(10));
        QCOMPARE(pool.reuses(), 1ull);
        QCOMPARE(pool.inUse(), 2u);
    }
};

QTEST_APPLESS_MAIN(TestCoreLink)
#include "test_core_link.moc"
