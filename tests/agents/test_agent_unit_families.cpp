// The packaged systemd unit lets the agent do everything its hello offers:
// every transport and fabric a real agent reports finds the socket address
// families it needs (agents/daemon/address_families.cpp) in the unit's
// RestrictAddressFamilies=. The check itself is shown to catch the unit as
// it shipped before, which left out AF_SMC (ksmc failed under the unit
// while it worked from a shell).
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include "address_families.h"
#include "agent_harness.h"

using namespace smclab;
using namespace smclab::test;

namespace {

// The allow-list of RestrictAddressFamilies= lines (systemd adds them up;
// an empty assignment resets). A deny-list ("~AF_...") is not what the
// unit uses, so it is reported as a problem.
QStringList allowedFamilies(const QString& unitText, QString* problem) {
    QStringList families;
    for (const QString& raw : unitText.split('\n')) {
        const QString line = raw.trimmed();
        if (!line.startsWith(QLatin1String("RestrictAddressFamilies="))) continue;
        const QString value = line.section('=', 1).trimmed();
        if (value.isEmpty()) {
            families.clear();
            continue;
        }
        if (value.startsWith('~')) *problem = QStringLiteral("a deny-list RestrictAddressFamilies=%1").arg(value);
        families += value.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    }
    return families;
}

// "" when `allowed` covers every name, else what is missing for which name.
QString missingFamilies(const QStringList& allowed, const QStringList& names) {
    QStringList missing;
    for (const QString& family : daemon::agentBaseAddressFamilies()) {
        if (!allowed.contains(family)) missing << QStringLiteral("%1 (the agent itself)").arg(family);
    }
    for (const QString& name : names) {
        const auto needed = daemon::requiredAddressFamilies(name);
        if (!needed) {
            missing << QStringLiteral("%1 has no entry in address_families.cpp").arg(name);
            continue;
        }
        for (const QString& family : *needed) {
            if (!allowed.contains(family)) missing << QStringLiteral("%1 (for %2)").arg(family, name);
        }
    }
    return missing.join(QStringLiteral(", "));
}

}  // namespace

class TestAgentUnitFamilies : public QObject {
    Q_OBJECT

private slots:
    void unitAllowsEveryReportedTransportAndFabric() {
        QFile unit(qEnvironmentVariable("SMCLAB_SOURCE_DIR") +
                   QStringLiteral("/packaging/systemd/smclab-agent.service"));
        QVERIFY2(unit.open(QIODevice::ReadOnly), qPrintable(unit.fileName()));
        QString problem;
        const QStringList allowed = allowedFamilies(QString::fromUtf8(unit.readAll()), &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(!allowed.isEmpty());

        TokenFile token;
        AgentProcess agent;
        QVERIFY2(agent.start(token), qPrintable(agent.error()));
        TestController controller;
        QVERIFY(controller.connectTo("127.0.0.1", agent.port(), token.token()));
        const protocol::Capabilities& caps = controller.client.hello().capabilities;
        QStringList names;
        // Every name the agent offers, available here or not: the unit ships
        // to hosts where the unavailable ones work.
        for (const protocol::Availability& a : caps.transports) names << a.name;
        for (const protocol::Availability& a : caps.fabrics) names << a.name;
        QVERIFY(names.contains(QStringLiteral("ksmc")) && names.contains(QStringLiteral("tcp")));
        const QString missing = missingFamilies(allowed, names);
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("the unit's RestrictAddressFamilies= lacks ") + missing));
        QCOMPARE(agent.terminate(), 0);
    }

    // Under a seccomp filter refusing AF_SMC (what the unit did), the hello's
    // ksmc reason names the agent's own sandbox; without one it does not.
    void helloSaysWhenItsSandboxBlocksKsmc() {
        if (!QFile::exists(QStringLiteral(SMCLAB_SECCOMP_EXEC))) QSKIP("seccomp_exec is not built (x86-64 only)");
        TokenFile token;
        for (const bool sandboxed : {false, true}) {
            AgentProcess agent;
            const QStringList prefix = sandboxed ? QStringList{QStringLiteral(SMCLAB_SECCOMP_EXEC)} : QStringList{};
            QVERIFY2(agent.start(token, {}, QStringLiteral("127.0.0.1:0"), prefix), qPrintable(agent.error()));
            TestController controller;
            QVERIFY(controller.connectTo("127.0.0.1", agent.port(), token.token()));
            const protocol::Availability ksmc = controller.client.hello().capabilities.ksmc;
            if (!sandboxed && ksmc.available) {
                // This host has kernel SMC: the sandboxed agent must lose it and say why.
            } else if (!sandboxed) {
                QVERIFY2(!ksmc.reason.contains(QStringLiteral("sandbox")), qPrintable(ksmc.reason));
            } else {
                QVERIFY(!ksmc.available);
                QVERIFY2(ksmc.reason.contains(QStringLiteral("sandbox")) &&
                             ksmc.reason.contains(QStringLiteral("RestrictAddressFamilies")),
                         qPrintable(ksmc.reason));
            }
            QCOMPARE(agent.terminate(), 0);
        }
    }

    void theCheckCatchesTheUnitWithoutAfSmc() {
        QString problem;
        const QStringList old = allowedFamilies(
            QStringLiteral("[Service]\nRestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK\n"), &problem);
        QCOMPARE(missingFamilies(old, {QStringLiteral("tcp"), QStringLiteral("ksmc")}),
                 QStringLiteral("AF_SMC (for ksmc)"));
        QVERIFY(missingFamilies(old, {QStringLiteral("quic")}).contains(QStringLiteral("no entry")));
        // Lines add up; an empty assignment resets.
        const QStringList reset =
            allowedFamilies(QStringLiteral("RestrictAddressFamilies=AF_UNIX\nRestrictAddressFamilies="
                                           "\nRestrictAddressFamilies=AF_INET\n"),
                            &problem);
        QCOMPARE(reset, QStringList{QStringLiteral("AF_INET")});
    }
};

QTEST_GUILESS_MAIN(TestAgentUnitFamilies)
#include "test_agent_unit_families.moc"
