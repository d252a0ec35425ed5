// The push decisions of the send path as a functional core (cork_policy.h):
// autocorking, the user's cork (TCP_CORK, MSG_MORE, sendfile pieces), the old
// timer mode, the completion push, tx deferral and the one-pusher gate.
#include <functional>

#include <QTest>

#include "core/connection/cork_policy.h"

using namespace smcr::core;

namespace {

SendCorkInput base() {
    SendCorkInput in;
    in.unsentBytes = 100;
    in.pendingCdcs = 1;
    in.sndbufBytes = 65536;
    in.sndbufFreeBytes = 60000;
    in.autocorkingSize = 65536;
    return in;
}

}  // namespace

class TestCoreCork : public QObject {
    Q_OBJECT
private slots:
    void firstMessageNeverCorks() {
        SendCorkInput in = base();
        in.pendingCdcs = 0;  // nothing outstanding: no completion to wait for
        QCOMPARE(decideAfterSend(in), SendDecision::push);
    }

    void autocorksWhileCdcOutstanding() {
        SendCorkInput in = base();
        QCOMPARE(decideAfterSend(in), SendDecision::autocork);
        in.pendingCdcs = 5;
        QCOMPARE(decideAfterSend(in), SendDecision::autocork);
    }

    void autocorkLimitIsMinOfSettingAndHalfSndbuf() {
        QCOMPARE(autocorkLimitBytes(65536, 65536), uint64_t{32768});
        QCOMPARE(autocorkLimitBytes(4096, 65536), uint64_t{4096});
        QCOMPARE(autocorkLimitBytes(65536, 16384), uint64_t{8192});
        SendCorkInput in = base();
        in.unsentBytes = 32768;  // at the limit: still corked (the kernel pushes only above it)
        QCOMPARE(decideAfterSend(in), SendDecision::autocork);
        in.unsentBytes = 32769;
        QCOMPARE(decideAfterSend(in), SendDecision::push);
        in.autocorkingSize = 1000;
        in.unsentBytes = 1001;
        QCOMPARE(decideAfterSend(in), SendDecision::push);
    }

    void autocorkOffPushes() {
        SendCorkInput in = base();
        in.autocorkingSize = 0;
        QCOMPARE(decideAfterSend(in), SendDecision::push);
    }

    void userCorkHoldsWhileSndbufHasRoom() {
        SendCorkInput in = base();
        in.autocorkingSize = 0;
        in.pendingCdcs = 0;
        in.tcpCork = true;
        QCOMPARE(decideAfterSend(in), SendDecision::userCork);
        QVERIFY(userCorkHolds(in));
        in.sndbufFreeBytes = 0;  // full: must drain
        QCOMPARE(decideAfterSend(in), SendDecision::push);
        QVERIFY(!userCorkHolds(in));
        in.tcpCork = false;
        in.msgMore = true;
        in.sndbufFreeBytes = 1;
        QCOMPARE(decideAfterSend(in), SendDecision::userCork);
        in.msgMore = false;
        in.notLast = true;
        QCOMPARE(decideAfterSend(in), SendDecision::userCork);
    }

    void autocorkDecidesFirstButUserCorkStillHolds() {
        SendCorkInput in = base();
        in.tcpCork = true;
        QCOMPARE(decideAfterSend(in), SendDecision::autocork);
        QVERIFY(userCorkHolds(in));  // so the completion must not push it
        QVERIFY(!pushOnCdcComplete(0, in.unsentBytes, userCorkHolds(in)));
    }

    void timerModeIsThePre2022Cork() {
        SendCorkInput in = base();
        in.autocorkingSize = 0;
        in.timerMode = true;
        in.notLast = true;  // sendfile pieces did not cork before seed 002
        QCOMPARE(decideAfterSend(in), SendDecision::push);
        in.notLast = false;
        in.tcpCork = true;
        in.sndbufFreeBytes = 40000;  // more than half free: corked
        QCOMPARE(decideAfterSend(in), SendDecision::userCork);
        in.sndbufFreeBytes = 30000;  // half or less free: the old code pushed
        QCOMPARE(decideAfterSend(in), SendDecision::push);
    }

    void nothingUnsentNeverHolds() {
        SendCorkInput in = base();
        in.unsentBytes = 0;
        in.tcpCork = true;
        QCOMPARE(decideAfterSend(in), SendDecision::push);
        QVERIFY(!userCorkHolds(in));
    }

    void lastCompletionPushes() {
        QVERIFY(pushOnCdcComplete(0, 10, false));
        QVERIFY(!pushOnCdcComplete(1, 10, false));  // not the last outstanding CDC
        QVERIFY(!pushOnCdcComplete(0, 0, false));   // nothing waits
        QVERIFY(!pushOnCdcComplete(0, 10, true));   // TCP_CORK holds it
    }

    void deferralOnlyForCompletionPushesWhileOwned() {
        QVERIFY(deferToOwner(PushOrigin::completion, true, 1));
        QVERIFY(deferToOwner(PushOrigin::cdcReceived, true, 2));
        QVERIFY(!deferToOwner(PushOrigin::completion, false, 1));  // lab.tx_defer_to_owner off
        QVERIFY(!deferToOwner(PushOrigin::completion, true, 0));   // nobody inside
        QVERIFY(!deferToOwner(PushOrigin::app, true, 1));
        QVERIFY(!deferToOwner(PushOrigin::nodelay, true, 1));
        QVERIFY(!deferToOwner(PushOrigin::corkTimer, true, 1));
        QVERIFY(appContext(PushOrigin::app));
        QVERIFY(appContext(PushOrigin::owner));
        QVERIFY(appContext(PushOrigin::nodelay));
        QVERIFY(appContext(PushOrigin::uncork));
        QVERIFY(!appContext(PushOrigin::completion));
        QVERIFY(!appContext(PushOrigin::cdcReceived));
        QVERIFY(!appContext(PushOrigin::corkTimer));
    }

    void gateRemembersAPushAttemptedMeanwhile() {
        PushGate gate;
        QVERIFY(!gate.busy());
        QVERIFY(gate.enter());
        QVERIFY(gate.busy());
        QVERIFY(!gate.enter());  // someone tried while we pushed
        QVERIFY(!gate.enter());
        QVERIFY(gate.again());   // so we go round once more (attempts collapse into one)
        QVERIFY(!gate.again());  // nobody tried during the second round
        QVERIFY(!gate.busy());
        QVERIFY(gate.enter());  // free again
        QVERIFY(!gate.again());
    }

    void gateDrivenPushLeavesNothingBehind() {
        // A push that re-enters itself (a flush leading back to a push) is
        // remembered; every round sends what is pending at that time.
        PushGate gate;
        uint64_t pending = 3;
        uint64_t rounds = 0;
        std::function<void()> push = [&] {
            if (!gate.enter()) return;
            do {
                ++rounds;
                if (pending > 0) {
                    --pending;
                    push();  // re-entry while pushing: remembered, not run
                }
            } while (gate.again());
        };
        push();
        QCOMPARE(pending, uint64_t{0});
        QCOMPARE(rounds, uint64_t{4});
        QVERIFY(!gate.busy());
    }
};

QTEST_APPLESS_MAIN(TestCoreCork)
#include "test_core_cork.moc"
