// The seed presets with the letters' own tools (qperf, redis) on the default
// local lab, where the server agent sits in a network namespace behind the
// veth: their SMC columns must run SMC-R (the counters of every run say so)
// and the TCP column must cross the veth. A column whose smcr_run'd client
// meets a plain server (a real fallback, no counters typed in) is marked
// over TCP in every format and makes `smclab run` exit 3. Exits 77 where namespaces cannot
// be made (not root) or a tool is missing: the columns would then not be
// what this test checks.
#include <unistd.h>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "agent_process.h"
#include "smclab_process.h"

namespace {

using smclab::test::Outcome;

// `smclab ARGS` with no lab file, so it starts the local lab itself.
Outcome runSmclab(const QStringList& args, const QString& labFile) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SMCLAB_LAB"), labFile);
    return smclab::test::runSmclab(args, 100'000, env);
}

}  // namespace

class TestSeedPresetsLab : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // Runs `preset` --quick on the local lab and checks what `smclab show`
    // reads from the stored counters: every run of an SMC column on SMC-R.
    void runsSmc(const QString& preset, const QStringList& extra, int smcRuns) {
        const QString db = m_dir.filePath(preset + QStringLiteral(".db"));
        const QString noLab = m_dir.filePath(QStringLiteral("no-lab.json"));
        const Outcome run = runSmclab(QStringList{"run", preset, "--quick", "--db", db} + extra, noLab);
        QVERIFY2(run.exitCode == 0,
                 qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
        QVERIFY2(!run.out.contains(QLatin1String("[TCP]")) && !run.out.contains(QLatin1String("[fb]")),
                 qPrintable(run.out));
        const Outcome show = runSmclab({"show", "1", "--db", db}, noLab);
        QCOMPARE(show.exitCode, 0);
        QVERIFY2(show.out.contains(QLatin1String("veth between network namespaces")), qPrintable(show.out));
        const QString expected = QStringLiteral(
                                     "connections: %1 runs of SMC columns: %1 on SMC-R, 0 with fallbacks, "
                                     "0 over TCP (not SMC-R)")
                                     .arg(smcRuns);
        QVERIFY2(show.out.contains(expected), qPrintable(show.out));
        // Each SMC run's CONNECTIONS cell: all of them on SMC-R ("SMC-R 2/2").
        static const QRegularExpression cell(QStringLiteral(R"(SMC-R (\d+)/(\d+))"));
        int cells = 0;
        for (auto it = cell.globalMatch(show.out); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            QVERIFY2(m.captured(1).toInt() > 0 && m.captured(1) == m.captured(2), qPrintable(m.captured(0)));
            ++cells;
        }
        QCOMPARE(cells, smcRuns);
    }

private slots:
    void initTestCase() {
        if (::geteuid() != 0) QSKIP("the local lab's namespaces need root");
        QVERIFY(m_dir.isValid());
    }

    void qperfSmcColumnsRunSmc() {
        if (QStandardPaths::findExecutable("qperf").isEmpty()) QSKIP("qperf is not installed (Debian package qperf)");
        // Origin SMC and SMC with patches, tcp_bw and tcp_lat, one size.
        runsSmc(QStringLiteral("seed000-qperf"), {"--sizes", "1K"}, 4);
    }

    void redisSmcColumnsRunSmc() {
        if (QStandardPaths::findExecutable("redis-server").isEmpty() ||
            QStandardPaths::findExecutable("redis-benchmark").isEmpty())
            QSKIP("redis-server and redis-benchmark are not installed (Debian packages redis-server, redis-tools)");
        // Before and After, both SMC columns.
        runsSmc(QStringLiteral("seed004-redis"), {}, 2);
    }

    void plainServerBehindAnSmcColumnIsMarkedEverywhere() {
        if (QStandardPaths::findExecutable("qperf").isEmpty()) QSKIP("qperf is not installed (Debian package qperf)");
        // The middle column's client runs under smcr_run, its server is the
        // plain qperf: the client finds no libsmcr listener and stays TCP.
        const QString file = m_dir.filePath(QStringLiteral("forced.json"));
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(R"json({"name": "forced fallback",
                "workloads": [{"label": "Bandwidth", "workload": "qperf", "params": {"test": "tcp_bw"}}],
                "columns": [{"label": "TCP", "transport": "tcp"},
                            {"label": "SMC (plain server)", "transport": "tcp", "clientTransport": "smcr"},
                            {"label": "SMC", "transport": "smcr"}],
                "sizes": [1024], "duration": 1, "warmupMs": 0, "repetitions": 1,
                "transportOptions": {"fabric": "sim", "link": "cx4lx-vf"}})json");
        }
        const QString db = m_dir.filePath(QStringLiteral("forced.db"));
        const QString noLab = m_dir.filePath(QStringLiteral("no-lab.json"));
        const Outcome run = runSmclab({"run", file, "--db", db}, noLab);
        QVERIFY2(run.exitCode == 3,
                 qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
        QVERIFY2(run.err.contains(QLatin1String("Bandwidth, SMC (plain server) at 1024 B: not_libsmcr_peer")),
                 qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("[TCP] SMC (plain server) at every size: the data went over TCP, "
                                                "not SMC-R (no percentage): not_libsmcr_peer")),
                 qPrintable(run.out));
        // The marked cell has no percentage; the real SMC-R column has one.
        const QString row = run.out.section(QLatin1Char('\n'), 2, 2);
        QVERIFY2(row.contains(QLatin1String("MB/s          [TCP]")) && row.trimmed().endsWith(QLatin1String("%)")),
                 qPrintable(row));
        QVERIFY2(run.out.contains(QLatin1String("over TCP 1/1 (not_libsmcr_peer")), qPrintable(run.out));

        const Outcome show = runSmclab({"show", "1", "--db", db}, noLab);
        QVERIFY2(show.out.contains(QLatin1String("OVER TCP: not_libsmcr_peer")), qPrintable(show.out));
        const Outcome csv = runSmclab({"report", "1", "--format", "csv", "--db", db}, noLab);
        QVERIFY2(csv.out.contains(QLatin1String(",SMC (plain server),1024,")) &&
                     csv.out.contains(QLatin1String("not_libsmcr_peer")),
                 qPrintable(csv.out));
        const Outcome json = runSmclab({"report", "1", "--format", "json", "--db", db}, noLab);
        QVERIFY2(json.out.contains(QLatin1String("\"tcpRepetitions\": 1")), qPrintable(json.out));
        const Outcome md = runSmclab({"report", "1", "--format", "md", "--db", db}, noLab);
        QVERIFY2(md.out.contains(QLatin1String("**over TCP, not SMC-R: 1/1**")), qPrintable(md.out));
        const QString html = m_dir.filePath(QStringLiteral("forced.html"));
        QCOMPARE(runSmclab({"report", "1", "--format", "html", "-o", html, "--db", db}, noLab).exitCode, 0);
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        QVERIFY(page.readAll().contains("over TCP, not SMC-R: 1 of 1 runs"));
    }
};

QTEST_GUILESS_MAIN(TestSeedPresetsLab)
#include "test_seed_presets_lab.moc"
