// smclab list / show / report / compare against a database seeded through
// the store API with seed 000's numbers: `report --format text` prints the
// golden cover-letter tables; errors are clear and exit non-zero.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "report_fixtures.h"
#include "seed_campaign.h"
#include "smclab/db/result_store.h"

using namespace smclab::db;

namespace {

struct Outcome {
    int exitCode = -1;
    QString out;
    QString err;
};

}  // namespace

class TestCliStore : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_campaign = 0;
    qint64 m_second = 0;

    Outcome smclab(const QStringList& args) {
        QProcess p;
        p.start(qEnvironmentVariable("SMCLAB_BIN_DIR") + QStringLiteral("/smclab"), args);
        Outcome o;
        if (!p.waitForFinished(20000)) return o;
        o.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }

private slots:
    void initTestCase() {
        if (qEnvironmentVariable("SMCLAB_BIN_DIR").isEmpty()) QSKIP("SMCLAB_BIN_DIR is not set (run through ctest)");
        m_db = m_dir.filePath(QStringLiteral("cli.db"));
        auto store = ResultStore::open(m_db);
        QVERIFY(store.ok());
        m_campaign = dbtest::seedCampaign(**store);
        m_second = dbtest::seedCampaign(**store);
        QVERIFY(m_campaign > 0 && m_second > 0);
    }

    void reportTextIsTheGoldenTable() {
        const Outcome o = smclab({QStringLiteral("report"), QString::number(m_campaign), QStringLiteral("--format"),
                                  QStringLiteral("text"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        QCOMPARE(o.out, fixtures::readGolden(QStringLiteral("seed000_tables.txt")));
        // text is the default format, and the env var names the database.
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SMCLAB_DB"), m_db);
        p.setProcessEnvironment(env);
        p.start(qEnvironmentVariable("SMCLAB_BIN_DIR") + QStringLiteral("/smclab"),
                {QStringLiteral("report"), QStringLiteral("#%1").arg(m_campaign)});
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()),
                 fixtures::readGolden(QStringLiteral("seed000_tables.txt")));
    }

    void baselineAndOtherFormats() {
        Outcome o = smclab({QStringLiteral("report"), QString::number(m_campaign), QStringLiteral("--baseline"),
                            QStringLiteral("TCP"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.out.contains(
            QStringLiteral("       1         2.392 MB/s      0.578 MB/s(-75.84%)      2.561 MB/s(  7.07%)")));
        o = smclab({QStringLiteral("report"), QString::number(m_campaign), QStringLiteral("--baseline"),
                    QStringLiteral("RDMA"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 2);
        QVERIFY2(
            o.err.contains(QStringLiteral("no column 'RDMA'")) && o.err.contains(QStringLiteral("Origin SMC, TCP")),
            qPrintable(o.err));
        o = smclab({QStringLiteral("report"), QString::number(m_campaign), QStringLiteral("--format"),
                    QStringLiteral("csv"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        QCOMPARE(o.out.count(QLatin1Char('\n')), 1 + 2 * 17 * 3);
        const QString html = m_dir.filePath(QStringLiteral("r.html"));
        o = smclab({QStringLiteral("report"), QString::number(m_campaign), QStringLiteral("--format"),
                    QStringLiteral("html"), QStringLiteral("-o"), html, QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.startsWith("<!DOCTYPE html>"));
        QCOMPARE(bytes.count("<svg "), 2);
        QVERIFY(bytes.contains("cx4-25g"));
        o = smclab({QStringLiteral("report"), QString::number(m_campaign), QStringLiteral("--format"),
                    QStringLiteral("pdf"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 2);
        QVERIFY(o.err.contains(QStringLiteral("unknown format 'pdf'")));
    }

    void compareLabelsColumnsWithTheirCampaign() {
        const Outcome o = smclab({QStringLiteral("compare"), QString::number(m_campaign), QString::number(m_second),
                                  QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        const QStringList lines = o.out.split(QLatin1Char('\n'));
        QCOMPARE(lines[0], QStringLiteral("==== Bandwidth ===="));
        QVERIFY(lines[1].contains(QStringLiteral("#%1 Origin SMC").arg(m_campaign)));
        QVERIFY(lines[1].contains(QStringLiteral("#%1 SMC with patches").arg(m_second)));
        // B's copy of the baseline column is 0.00 % off A's.
        QVERIFY(lines[2].contains(QStringLiteral("0.578 MB/s(  0.00%)")));
        QCOMPARE(
            smclab({QStringLiteral("compare"), QString::number(m_campaign), QStringLiteral("--db"), m_db}).exitCode, 2);
    }

    void listAndShow() {
        Outcome o = smclab({QStringLiteral("list"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.out.contains(QStringLiteral("datapath (seed 000)")));
        QVERIFY(o.out.contains(QStringLiteral("102/102")));
        o = smclab({QStringLiteral("show"), QString::number(m_campaign), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.out.contains(QStringLiteral("workloads    tcp_bw, tcp_lat")));
        QVERIFY(o.out.contains(QStringLiteral("Origin SMC (smcr), TCP (tcp), SMC with patches (smcr)")));
        QVERIFY(o.out.contains(
            QStringLiteral("1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1K, 2K, 4K, 8K, 16K, 32K, 64K (17)")));
        QVERIFY2(o.out.contains(QStringLiteral("autocorking_size")) && !o.out.contains(QStringLiteral("  wmem")),
                 qPrintable(o.out));
        // One line per run; no LOAD flag (these runs recorded no host_state).
        QCOMPARE(o.out.count(QStringLiteral(" done          2026-03-01 09:44:32")), 102);
    }

    void errorsAreClear() {
        Outcome o = smclab({QStringLiteral("report"), QStringLiteral("99"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains(QStringLiteral("no campaign 99")), qPrintable(o.err));
        o = smclab({QStringLiteral("show"), QStringLiteral("abc"), QStringLiteral("--db"), m_db});
        QCOMPARE(o.exitCode, 2);
        o = smclab({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"),
                    m_dir.filePath(QStringLiteral("none.db"))});
        QCOMPARE(o.exitCode, 1);
        QVERIFY(o.err.contains(QStringLiteral("no results database at")));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("none.db"))));  // nothing created by a read
        o = smclab({QStringLiteral("list"), QStringLiteral("--db"), m_dir.filePath(QStringLiteral("none.db"))});
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.out.contains(QStringLiteral("no campaigns yet")));
        for (const char* command : {"list", "show", "report", "compare"}) {
            o = smclab({QString::fromLatin1(command), QStringLiteral("--help")});
            QCOMPARE(o.exitCode, 0);
            QVERIFY(o.out.startsWith(QStringLiteral("usage: smclab ")));
        }
    }

    void lockedDatabase() {
        // Another process holds the file exclusively (locking_mode EXCLUSIVE
        // keeps even WAL readers out): the command waits its busy timeout,
        // then says so.
        dbtest::RawDb other(m_db);
        QVERIFY(other.exec(QStringLiteral("PRAGMA locking_mode = EXCLUSIVE")));
        QVERIFY(other.exec(QStringLiteral("BEGIN EXCLUSIVE")));
        const Outcome o = smclab({QStringLiteral("list"), QStringLiteral("--db"), m_db});
        QVERIFY(other.exec(QStringLiteral("COMMIT")));
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains(QStringLiteral("database is locked")), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestCliStore)
#include "test_cli_store.moc"
