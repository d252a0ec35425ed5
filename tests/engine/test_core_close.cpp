#include <QTest>

#include "core/connection/close_machine.h"
#include "core/connection/connection_core.h"

using namespace smcr::core;
using smcr::Errc;

// smc-protocol.md section 7: orderly close both ways, abnormal close, abort.
class TestCoreClose : public QObject {
    Q_OBJECT
private slots:
    void activeCloseThenPeerClose() {
        CloseMachine us;
        CloseMachine peer;
        QCOMPARE(us.state(), CloseState::active);
        CloseActions a = us.on(CloseEvent::appClose);
        QVERIFY(a.sendConnClosed);
        QVERIFY(!a.sendAbnormalClose);
        QCOMPARE(us.state(), CloseState::peerCloseWait1);
        QVERIFY(!us.canSend());
        CloseActions p = peer.on(CloseEvent::peerConnClosed);
        QVERIFY(p.readerEof);
        QCOMPARE(peer.state(), CloseState::appCloseWait2);
        QVERIFY(!peer.canSend());  // the peer is gone: sends fail
        p = peer.on(CloseEvent::appClose);
        QVERIFY(p.sendConnClosed);
        QCOMPARE(peer.state(), CloseState::closed);
        us.on(CloseEvent::peerConnClosed);
        QCOMPARE(us.state(), CloseState::closed);
        QVERIFY(us.finished());
        QCOMPARE(us.error(), Errc::invalid);
    }
    void shutdownWriteHalfClose() {
        CloseMachine us;
        CloseMachine peer;
        QVERIFY(us.on(CloseEvent::appShutdownWrite).sendDoneWriting);
        QCOMPARE(us.state(), CloseState::peerCloseWait1);
        QVERIFY(!us.canSend());
        QVERIFY(!us.on(CloseEvent::appShutdownWrite).sendDoneWriting);  // once only
        CloseActions p = peer.on(CloseEvent::peerDoneWriting);
        QVERIFY(p.readerEof);
        QCOMPARE(peer.state(), CloseState::appCloseWait1);
        QVERIFY(peer.canSend());  // half close: the peer may still answer
        QVERIFY(peer.on(CloseEvent::appShutdownWrite).sendDoneWriting);
        QCOMPARE(peer.state(), CloseState::appFinCloseWait);
        us.on(CloseEvent::peerDoneWriting);
        QCOMPARE(us.state(), CloseState::peerCloseWait2);
        QVERIFY(peer.on(CloseEvent::appClose).sendConnClosed);
        QCOMPARE(peer.state(), CloseState::peerFinCloseWait);
        us.on(CloseEvent::peerConnClosed);
        QCOMPARE(us.state(), CloseState::appCloseWait2);
        QVERIFY(us.on(CloseEvent::appClose).sendConnClosed);
        QCOMPARE(us.state(), CloseState::closed);
        peer.on(CloseEvent::peerConnClosed);
        QCOMPARE(peer.state(), CloseState::closed);
    }
    void closeWithUnreadDataIsAbnormal() {
        CloseMachine us;
        CloseMachine peer;
        CloseActions a = us.on(CloseEvent::appCloseUnreadData);
        QVERIFY(a.sendAbnormalClose);
        QCOMPARE(us.state(), CloseState::closed);
        CloseActions p = peer.on(CloseEvent::peerAbnormalClose);
        QCOMPARE(p.error, Errc::connectionReset);
        QCOMPARE(peer.state(), CloseState::processAbort);
        QVERIFY(!peer.canSend());
        QCOMPARE(peer.error(), Errc::connectionReset);
        QVERIFY(!peer.on(CloseEvent::appClose).sendConnClosed);  // nothing left to tell
        QCOMPARE(peer.state(), CloseState::closed);
    }
    void linkGroupLossAbortsLocally() {
        CloseMachine us;
        CloseActions a = us.on(CloseEvent::linkGroupLost);
        QCOMPARE(a.error, Errc::connectionAborted);
        QVERIFY(!a.sendAbnormalClose);
        QCOMPARE(us.state(), CloseState::processAbort);
        QCOMPARE(us.on(CloseEvent::peerConnClosed).readerEof, false);  // ignored after abort
        us.on(CloseEvent::appClose);
        QCOMPARE(us.state(), CloseState::closed);
    }
    void flagsRideOnEveryLaterCdc() {
        ConnectionCore a(ConnectionParams{1, 2, 16384, 16384, 16384});
        ConnectionCore b(ConnectionParams{2, 1, 16384, 16384, 16384});
        CloseActions act = a.closer().on(CloseEvent::appShutdownWrite);
        CdcInfo cdc = a.buildControlCdc(act);
        QVERIFY(cdc.connFlags.peerDoneWriting);
        QVERIFY(!cdc.connFlags.peerConnClosed);
        CdcRxResult r = b.onCdc(cdc);
        QVERIFY(r.close.readerEof);
        QCOMPARE(b.closer().state(), CloseState::appCloseWait1);
        CdcInfo again = a.buildControlCdc();
        QVERIFY(again.connFlags.peerDoneWriting);
        QVERIFY(!b.onCdc(again).close.readerEof);  // idempotent
        act = a.closer().on(CloseEvent::appClose);
        cdc = a.buildControlCdc(act);
        QVERIFY(cdc.connFlags.peerConnClosed);
        b.onCdc(cdc);
        QCOMPARE(b.closer().state(), CloseState::appCloseWait2);
    }
    void stateNames() {
        QCOMPARE(QString(closeStateName(CloseState::peerCloseWait1)), QString("PEERCLOSEWAIT1"));
        QCOMPARE(QString(closeStateName(CloseState::closed)), QString("CLOSED"));
    }
};

QTEST_APPLESS_MAIN(TestCoreClose)
#include "test_core_close.moc"
