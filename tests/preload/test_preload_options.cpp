// smcr_run's checks before it executes anything: settings validated against
// libsmcr's table, a program that cannot run, and the environment it passes.
#include <QFile>
#include <QTest>

#include "preload_harness.h"
#include "run_options.h"

using smcr::preload::parseRunOptions;

class TestPreloadOptions : public QObject {
    Q_OBJECT

private slots:
    void parsesSettingsInOrder() {
        auto o = parseRunOptions(
            {"--fabric", "sim", "--set", "autocorking_size=0", "-v", "--stats", "/tmp/x", "qperf", "-t", "1"});
        QVERIFY2(o.ok(), o.ok() ? "" : o.error().message.c_str());
        QCOMPARE(o.value().settings.size(), size_t{2});
        QCOMPARE(o.value().settings[0].first, std::string("lab.fabric"));
        QCOMPARE(o.value().command.size(), size_t{3});
        QVERIFY(o.value().verbose);
        const auto env = smcr::preload::runEnvironment(o.value());
        QCOMPARE(env[0].first, std::string("SMCR_SETTINGS"));
        QCOMPARE(env[0].second, std::string("lab.fabric=sim,autocorking_size=0"));
    }

    void rejectsUnknownSettingName() {
        auto o = parseRunOptions({"--set", "no_such_setting=1", "true"});
        QVERIFY(!o.ok());
        QVERIFY2(o.error().message.find("no_such_setting") != std::string::npos, o.error().message.c_str());
    }

    void rejectsBadValue() {
        QVERIFY(!parseRunOptions({"--set", "smcr_max_conns_per_lgr=1000", "true"}).ok());
        QVERIFY(!parseRunOptions({"--set", "lab.cq_mode=sideways", "true"}).ok());
        QVERIFY(!parseRunOptions({"--set", "novalue", "true"}).ok());
        QVERIFY(!parseRunOptions({"--fabric", "carrier-pigeon", "true"}).ok());
        QVERIFY(!parseRunOptions({"--set", "wmem=64K"}).ok());  // no program
    }

    // --syn-option: the ports smc_synopt is to mark, each checked.
    void synOptionPorts() {
        auto o = parseRunOptions({"--syn-option", "5000,6379", "redis-server"});
        QVERIFY2(o.ok(), o.ok() ? "" : o.error().message.c_str());
        QCOMPARE(o.value().synOptionPorts, (std::vector<std::string>{"5000", "6379"}));
        QCOMPARE(o.value().command.size(), size_t{1});
        QVERIFY(!parseRunOptions({"--syn-option", "5000,", "true"}).ok());
        QVERIFY(!parseRunOptions({"--syn-option", "70000", "true"}).ok());
        QVERIFY(!parseRunOptions({"--syn-option", "http", "true"}).ok());
    }

    // The program never starts when a setting is bad.
    void badSetStopsBeforeExec() {
        PreloadHarness h;
        const QString marker = h.path("ran");
        QString out;
        QString err;
        const int rc = h.runClient(true, "/usr/bin/touch", {marker}, &out, 10000, {}, &err);
        QCOMPARE(rc, 0);
        QVERIFY(QFile::exists(marker));
        QFile::remove(marker);
        QProcess p;
        p.start(PreloadHarness::smcrRun(), {"--set", "lab.bogus=1", "/usr/bin/touch", marker});
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("lab.bogus"));
        QVERIFY(!QFile::exists(marker));
    }

    void nonExecutableProgram() {
        PreloadHarness h;
        const QString script = h.path("plain.txt");
        QFile f(script);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("echo hi\n");
        f.close();
        QProcess p;
        p.start(PreloadHarness::smcrRun(), {script});
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 126);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("not executable"));
        p.start(PreloadHarness::smcrRun(), {"no-such-program-anywhere"});
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 127);
    }

    // The library never writes to the program's stdout, even with -v.
    void stdoutUntouched() {
        PreloadHarness h;
        QString out;
        QCOMPARE(h.runClient(true, "/bin/echo", {"hello"}, &out), 0);
        QCOMPARE(out, QString("hello\n"));
    }
};

QTEST_GUILESS_MAIN(TestPreloadOptions)
#include "test_preload_options.moc"
