// The seed presets with the letters' own tools (qperf, redis) on the default
// local lab, where the server agent sits in a network namespace behind the
// veth: their SMC columns must run SMC-R (the counters of every run say so)
// and the TCP column must cross the veth. Exits 77 where namespaces cannot
// be made (not root) or a tool is missing: the columns would then not be
// what this test checks.
#include <unistd.h>

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "agent_process.h"

namespace {

struct Outcome {
    int exitCode = -1;
    QString out;
    QString err;
};

// `smclab ARGS` with no lab file, so it starts the local lab itself.
Outcome runSmclab(const QStringList& args, const QString& labFile) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SMCLAB_LAB"), labFile);
    process.setProcessEnvironment(env);
    process.start(smclab::test::smclabBinary(), args);
    Outcome outcome;
    if (!process.waitForFinished(100'000)) {
        process.kill();
        process.waitForFinished();
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = QString::fromUtf8(process.readAllStandardOutput());
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
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
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit %1\n%2\n%3").arg(run.exitCode).arg(run.out, run.err)));
        QVERIFY2(!run.out.contains(QLatin1String("[TCP]")) && !run.out.contains(QLatin1String("[fb]")),
                 qPrintable(run.out));
        const Outcome show = runSmclab({"show", "1", "--db", db}, noLab);
        QCOMPARE(show.exitCode, 0);
        QVERIFY2(show.out.contains(QLatin1String("veth between network namespaces")), qPrintable(show.out));
        const QString expected = QStringLiteral("connections: %1 runs of SMC columns: %1 on SMC-R, 0 with fallbacks, "
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
};

QTEST_GUILESS_MAIN(TestSeedPresetsLab)
#include "test_seed_presets_lab.moc"
