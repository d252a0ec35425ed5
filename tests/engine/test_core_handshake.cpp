#include <QTest>

#include "core/handshake/handshake.h"

using namespace smcr::core;
using smcr::Side;
using smcr::wire::DeclineReason;

namespace {
HandshakeEvent ev(HandshakeEventKind kind) {
    HandshakeEvent e;
    e.kind = kind;
    return e;
}
uint32_t code(DeclineReason r) {
    return static_cast<uint32_t>(r);
}
}  // namespace

// smc-protocol.md 1.6-1.7: every failure declines with the right code.
class TestCoreHandshake : public QObject {
    Q_OBJECT
private slots:
    void clientFirstContact() {
        Handshake hs(Side::client);
        HandshakeActions a = hs.on(ev(HandshakeEventKind::start));
        QVERIFY(a.sendProposal);
        QCOMPARE(a.armTimer, TimerKind::clcWait);
        HandshakeEvent acc = ev(HandshakeEventKind::accept);
        acc.firstContact = true;
        a = hs.on(acc);
        QVERIFY(a.sendConfirm);
        QCOMPARE(a.armTimer, TimerKind::llcWait);
        QCOMPARE(hs.state(), HandshakeState::awaitConfirmLink);
        a = hs.on(ev(HandshakeEventKind::confirmLinkRequest));
        QVERIFY(a.sendConfirmLinkResponse);
        QVERIFY(a.established);
        QVERIFY(hs.done());
    }
    void clientReuse() {
        Handshake hs(Side::client);
        hs.on(ev(HandshakeEventKind::start));
        HandshakeActions a = hs.on(ev(HandshakeEventKind::accept));
        QVERIFY(a.sendConfirm);
        QVERIFY(a.established);
    }
    void serverFirstContact() {
        Handshake hs(Side::server);
        QCOMPARE(hs.on(ev(HandshakeEventKind::start)).armTimer, TimerKind::firstBytes);
        HandshakeActions a = hs.on(ev(HandshakeEventKind::proposal));
        QVERIFY(a.sendAccept);
        HandshakeEvent conf = ev(HandshakeEventKind::confirm);
        conf.firstContact = true;
        a = hs.on(conf);
        QVERIFY(a.sendConfirmLinkRequest);
        QCOMPARE(hs.state(), HandshakeState::awaitConfirmLinkResp);
        QVERIFY(hs.on(ev(HandshakeEventKind::confirmLinkResponse)).established);
    }
    void plainTcpPeersFallBackWithoutDecline() {
        Handshake server(Side::server);
        server.on(ev(HandshakeEventKind::start));
        HandshakeActions a = server.on(ev(HandshakeEventKind::notClc));
        QVERIFY(a.fallBack);
        QVERIFY(!a.sendDecline);
        QVERIFY(!a.handshakeError);
        QCOMPARE(a.fallbackReason, code(DeclineReason::peerNoSmc));
        Handshake silent(Side::server);
        silent.on(ev(HandshakeEventKind::start));
        QCOMPARE(silent.on(ev(HandshakeEventKind::timeout)).fallbackReason, code(DeclineReason::peerNoSmc));
        Handshake client(Side::client);
        client.on(ev(HandshakeEventKind::start));
        a = client.on(ev(HandshakeEventKind::timeout));
        QVERIFY(a.fallBack);
        QVERIFY(!a.sendDecline);
        QCOMPARE(client.fallbackReason(), code(DeclineReason::peerNoSmc));
    }
    void declinePaths() {
        struct Case {
            Side role;
            std::vector<HandshakeEvent> events;
            DeclineReason reason;
            bool outOfSync;
        };
        HandshakeEvent badSize = ev(HandshakeEventKind::accept);
        badSize.rmbeSizeValid = false;
        HandshakeEvent unknownLgr = ev(HandshakeEventKind::accept);
        unknownLgr.linkGroupFound = false;
        HandshakeEvent fcAccept = ev(HandshakeEventKind::accept);
        fcAccept.firstContact = true;
        HandshakeEvent fcConfirm = ev(HandshakeEventKind::confirm);
        fcConfirm.firstContact = true;
        HandshakeEvent noSmcr = ev(HandshakeEventKind::proposal);
        noSmcr.smcrOffered = false;
        HandshakeEvent mem = ev(HandshakeEventKind::localFailure);
        mem.reason = DeclineReason::mem;
        const HandshakeEvent start = ev(HandshakeEventKind::start);
        const std::vector<Case> cases = {
            {Side::client, {start, badSize}, DeclineReason::cnfErr, false},
            {Side::client, {start, unknownLgr}, DeclineReason::syncErr, true},
            {Side::client, {start, fcAccept, ev(HandshakeEventKind::timeout)}, DeclineReason::timeoutCl, false},
            {Side::client, {start, ev(HandshakeEventKind::malformed)}, DeclineReason::cnfErr, false},
            {Side::client, {start, mem}, DeclineReason::mem, false},
            {Side::server, {start, noSmcr}, DeclineReason::modeUnsupp, false},
            {Side::server, {start, ev(HandshakeEventKind::proposal), mem}, DeclineReason::mem, false},
            {Side::server,
             {start, ev(HandshakeEventKind::proposal), fcConfirm, ev(HandshakeEventKind::timeout)},
             DeclineReason::timeoutCl,
             false},
            {Side::server,
             {start, ev(HandshakeEventKind::proposal), ev(HandshakeEventKind::timeout)},
             DeclineReason::intErr,
             false},
        };
        for (const Case& c : cases) {
            Handshake hs(c.role);
            HandshakeActions last;
            for (const HandshakeEvent& e : c.events) last = hs.on(e);
            QVERIFY(last.sendDecline);
            QVERIFY(last.fallBack);
            QVERIFY(last.handshakeError);
            QCOMPARE(last.declineReason, c.reason);
            QCOMPARE(last.declineOutOfSync, c.outOfSync);
            QCOMPARE(hs.fallbackReason(), code(c.reason));
            QCOMPARE(hs.state(), HandshakeState::fellBack);
            QVERIFY(!hs.on(ev(HandshakeEventKind::confirmLinkRequest)).established);  // done stays done
        }
    }
    void peerDeclineAtAnyStep() {
        for (int steps = 0; steps < 3; ++steps) {
            Handshake hs(Side::client);
            hs.on(ev(HandshakeEventKind::start));
            if (steps >= 1) {
                HandshakeEvent acc = ev(HandshakeEventKind::accept);
                acc.firstContact = true;
                hs.on(acc);
            }
            HandshakeEvent d = ev(HandshakeEventKind::decline);
            d.peerReason = 0x03030000;
            HandshakeActions a = hs.on(d);
            QVERIFY(a.fallBack);
            QVERIFY(!a.sendDecline);
            QCOMPARE(a.fallbackReason, code(DeclineReason::peerDecl));
            QCOMPARE(a.peerReason, 0x03030000u);
        }
    }
};

QTEST_APPLESS_MAIN(TestCoreHandshake)
#include "test_core_handshake.moc"
