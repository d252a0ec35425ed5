// The agent's host state over a run (run_result.host_state) from known
// /proc texts: the aggregate cpu line, the agent's own utime + stime (with a
// command name holding spaces and parentheses), the load average, cpuinfo
// MHz, and the per-core percentages between two snapshots. One read of this
// host's /proc too: it parses (this is Linux) and the numbers are sane.
#include <unistd.h>

#include <QTemporaryDir>
#include <QTest>

#include "host_state.h"

using namespace smclab::daemon;

class TestHostState : public QObject {
    Q_OBJECT
private slots:
    void procStat() {
        const auto cpu = parseProcStat(
            QStringLiteral("cpu  100 5 50 800 20 3 2 10 0 0\ncpu0 50 2 25 400 10 1 1 5 0 0\nintr 1 2 3\n"));
        QVERIFY(cpu.has_value());
        QCOMPARE(cpu->totalTicks, qint64(100 + 5 + 50 + 800 + 20 + 3 + 2 + 10));
        QCOMPARE(cpu->idleTicks, qint64(820));
        QCOMPARE(cpu->stealTicks, qint64(10));
        // Old kernels without steal: 4 fields.
        QCOMPARE(parseProcStat(QStringLiteral("cpu 1 2 3 4\n"))->stealTicks, qint64(0));
        QVERIFY(!parseProcStat(QStringLiteral("intr 1\n")).has_value());
        QVERIFY(!parseProcStat(QStringLiteral("cpu a b c d\n")).has_value());
    }

    void selfStat() {
        // Field 2 is "(smclab (x) agent)"; utime is field 14, stime 15.
        const QString text = QStringLiteral(
            "4242 (smclab (x) agent) S 1 4242 4242 0 -1 4194560 1000 0 0 0 70 30 0 0 20 0 5 0 100 1000000 "
            "500");
        QCOMPARE(parseSelfStatTicks(text), std::optional<qint64>(100));
        QVERIFY(!parseSelfStatTicks(QStringLiteral("garbage")).has_value());
    }

    void loadAndMhz() {
        QCOMPARE(parseLoadAverage(QStringLiteral("1.25 0.80 0.50 2/300 12345\n")), std::optional<double>(1.25));
        QVERIFY(!parseLoadAverage(QString()).has_value());
        QCOMPARE(
            parseCpuInfoMhz(QStringLiteral("processor: 0\ncpu MHz\t\t: 2000.0\nprocessor: 1\ncpu MHz\t\t: 3000.0\n")),
            std::optional<double>(2500.0));
        QVERIFY(!parseCpuInfoMhz(QStringLiteral("processor: 0\n")).has_value());
    }

    void percentagesBetweenSnapshots() {
        // 2 s at 100 ticks/s: 300 busy ticks = 150% of a core, of which the
        // agent took 120 ticks (60%); 20 steal ticks = 10%.
        HostCpuSnapshot start;
        start.host = ProcStatCpu{1000, 600, 0};
        start.selfTicks = 50;
        start.load1 = 0.5;
        HostCpuSnapshot end;
        end.host = ProcStatCpu{1000 + 400, 600 + 80, 20};
        end.selfTicks = 170;
        end.load1 = 1.5;
        const QJsonObject o = hostStateJson(start, end, 2000, 2400.0, 2, 100);
        QCOMPARE(o.value("cpu_busy_pct").toDouble(), 150.0);
        QCOMPARE(o.value("agent_cpu_pct").toDouble(), 60.0);
        QCOMPARE(o.value("steal_pct").toDouble(), 10.0);
        QCOMPARE(o.value("load1_start").toDouble(), 0.5);
        QCOMPARE(o.value("load1_end").toDouble(), 1.5);
        QCOMPARE(o.value("cpu_mhz").toDouble(), 2400.0);
        QCOMPARE(o.value("cpu_count").toInt(), 2);
        QCOMPARE(o.value("interval_ms").toInteger(), 2000);
        // Unreadable sources leave their fields out.
        const QJsonObject bare = hostStateJson(HostCpuSnapshot{}, HostCpuSnapshot{}, 1000, std::nullopt, 0, 100);
        QVERIFY(!bare.contains("cpu_busy_pct"));
        QVERIFY(!bare.contains("cpu_mhz"));
    }

    void filesUnderARoot() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("self")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("sys/cpu0/cpufreq")));
        const auto write = [&](const QString& name, const QByteArray& text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("stat"), "cpu 10 0 10 80 0 0 0 0\n");
        write(QStringLiteral("self/stat"), "1 (a) R 0 0 0 0 0 0 0 0 0 0 7 3 0 0\n");
        write(QStringLiteral("loadavg"), "0.10 0.20 0.30 1/100 1\n");
        write(QStringLiteral("sys/cpu0/cpufreq/scaling_cur_freq"), "1800000\n");
        const HostCpuSnapshot s = readHostCpu(dir.path());
        QCOMPARE(s.host->totalTicks, qint64(100));
        QCOMPARE(s.selfTicks, std::optional<qint64>(10));
        QCOMPARE(s.load1, std::optional<double>(0.1));
        QCOMPARE(readCpuMhz(dir.filePath(QStringLiteral("sys")), dir.path()), std::optional<double>(1800.0));
    }

    void thisHost() {
        const HostCpuSnapshot s = readHostCpu();
        QVERIFY(s.host.has_value());
        QVERIFY(s.selfTicks.has_value());
        QVERIFY(s.load1.has_value());
        QVERIFY(s.host->totalTicks >= s.host->idleTicks);
    }
};

QTEST_GUILESS_MAIN(TestHostState)
#include "test_host_state.moc"
