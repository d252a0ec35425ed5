// The agent's path for live settings on the smcr transport: the JSON the
// orchestrator presets send (datapath columns, sendfile-cork columns) goes
// through the daemon's settings bridge into the running engine, and a
// snapshot reads the values back.
#include <QJsonObject>
#include <QTest>

#include "settings_bridge.h"
#include "transport.h"

using namespace smclab;
using namespace smclab::transports;

class TestSmcrLiveSettings : public QObject {
    Q_OBJECT
private slots:
    void presetSpellingsApplyLive() {
        auto t = createTransport("smcr");
        QVERIFY2(t.ok(),
                 ("the smcr transport is built in but unavailable: " + (t.ok() ? std::string() : t.error().message))
                     .c_str());
        const QJsonObject noCork{{"autocorking_size", 0},
                                 {"lab.wnd_update_limit", "min"},
                                 {"lab.cq_mode", "arm_first"},
                                 {"lab.tx_defer_to_owner", "off"},
                                 {"lab.cork_timer_ms", 250}};
        std::map<std::string, std::string> previous;
        QJsonObject applied;
        const protocol::ProtocolError e = daemon::applySettings(**t, noCork, &previous, &applied);
        QVERIFY2(e.code.isEmpty(), qPrintable(e.message));
        QCOMPARE(applied.size(), noCork.size());
        QJsonObject snap = daemon::settingsSnapshot(**t);
        QCOMPARE(snap.value("autocorking_size").toString(), QString("0"));
        QCOMPARE(snap.value("lab.wnd_update_limit").toString(), QString("min"));
        QCOMPARE(snap.value("lab.cq_mode").toString(), QString("arm_first"));
        QCOMPARE(snap.value("lab.tx_defer_to_owner").toString(), QString("0"));
        QCOMPARE(snap.value("lab.cork_timer_ms").toString(), QString("250"));
        // The values in force before the change, to put back after a run.
        QCOMPARE(previous.at("lab.cq_mode"), std::string("drain_then_arm"));
        QCOMPARE(previous.at("lab.tx_defer_to_owner"), std::string("1"));
        QCOMPARE(previous.at("autocorking_size"), std::string("65536"));

        const QJsonObject patches{{"autocorking_size", 65536},
                                  {"lab.wnd_update_limit", "max"},
                                  {"lab.cq_mode", "drain_then_arm"},
                                  {"lab.tx_defer_to_owner", true},
                                  {"lab.cork_timer_ms", 0}};
        QJsonObject applied2;
        const protocol::ProtocolError e2 = daemon::applySettings(**t, patches, nullptr, &applied2);
        QVERIFY2(e2.code.isEmpty(), qPrintable(e2.message));
        snap = daemon::settingsSnapshot(**t);
        QCOMPARE(snap.value("lab.cq_mode").toString(), QString("drain_then_arm"));
        QCOMPARE(snap.value("lab.tx_defer_to_owner").toString(), QString("1"));
        QCOMPARE(snap.value("lab.wnd_update_limit").toString(), QString("max"));

        QJsonObject applied3;
        const protocol::ProtocolError bad =
            daemon::applySettings(**t, QJsonObject{{"lab.cq_mode", "napi"}}, nullptr, &applied3);
        QVERIFY(!bad.code.isEmpty());
        QVERIFY2(bad.message.contains("drain_then_arm"), qPrintable(bad.message));
    }
};

QTEST_GUILESS_MAIN(TestSmcrLiveSettings)
#include "test_smcr_live_settings.moc"
