// smclab db copy SRC DST, both ways between an SQLite file and a PostgreSQL
// server the test starts: everything of every campaign arrives (a dump of
// each campaign compares equal, and the report prints seed 000's golden
// tables from the copy), copying twice adds nothing, runs added by a
// --resume in the source follow on the next copy, and the counts say so.
// Errors: a missing source, a store onto itself, a URL with a password, an
// unreachable server. The PostgreSQL cases skip only without its binaries.
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "postgres_server.h"
#include "report_fixtures.h"
#include "seed_campaign.h"
#include "smclab/db/result_store.h"
#include "smclab_process.h"

using namespace smclab::db;

namespace {

using smclab::test::Outcome;
using smclab::test::runSmclab;

template <typename T>
T must(smcr::Result<T> result) {
    if (!result) qWarning("%s", result.error().message.c_str());
    return result ? std::move(result).value() : T{};
}

// Everything stored about a campaign except ids, in a comparable text.
QString dump(ResultStore& store, const Campaign& c) {
    QStringList out{c.name,
                    c.preset,
                    c.notes,
                    statusName(c.status),
                    c.createdAt.toString(Qt::ISODateWithMs),
                    c.finishedAt.toString(Qt::ISODateWithMs),
                    QString::fromUtf8(QJsonDocument(c.spec).toJson(QJsonDocument::Compact))};
    for (const Run& run : must(store.runs(c.id))) {
        out << QStringLiteral("run %1/%2/%3/%4/%5 %6 %7 %8 %9")
                   .arg(run.cell.workload, run.cell.transport, run.cell.column)
                   .arg(run.cell.msgSize)
                   .arg(run.cell.repetition)
                   .arg(statusName(run.status), run.error, run.startedAt.toString(Qt::ISODateWithMs),
                        run.status == RunStatus::failed ? QString() : run.finishedAt.toString(Qt::ISODateWithMs));
        const auto settings = must(store.settings(run.id));
        for (auto it = settings.begin(); it != settings.end(); ++it) out << "  setting " + it.key() + "=" + it.value();
        const RunFacts facts = must(store.hostFacts(run.id));
        for (auto it = facts.client.begin(); it != facts.client.end(); ++it)
            out << "  client " + it.key() + "=" + it.value();
        for (auto it = facts.server.begin(); it != facts.server.end(); ++it)
            out << "  server " + it.key() + "=" + it.value();
        const auto results = must(store.results(run.id));
        for (auto it = results.begin(); it != results.end(); ++it)
            out << "  result " + it.key() + "=" + QString::number(it.value(), 'g', 17);
        for (const Histogram& h : must(store.histograms(run.id)))
            out << "  histogram " + h.metric + " " + h.encoding + " " + h.data.toHex();
        for (const Sample& s : must(store.samples(run.id)))
            out << QStringLiteral("  sample %1 %2 %3").arg(s.tMs).arg(s.metric).arg(s.value, 0, 'g', 17);
        for (const Counter& k : must(store.counters(run.id)))
            out << QStringLiteral("  counter %1 %2 %3").arg(QLatin1String(smcr::sideName(k.side)), k.name).arg(k.value);
        for (const SettingChange& ch : must(store.settingChanges(run.id)))
            out << QStringLiteral("  change %1 %2=%3").arg(ch.tMs).arg(ch.name, ch.value);
    }
    return out.join('\n');
}

// Campaign dumps oldest first.
QStringList dumpAll(const QString& location) {
    auto store = ResultStore::open(location);
    if (!store) return {QString::fromStdString(store.error().message)};
    QList<Campaign> campaigns = must((*store)->listCampaigns());
    std::reverse(campaigns.begin(), campaigns.end());
    QStringList out;
    for (const Campaign& c : campaigns) out << dump(**store, c);
    return out;
}

const QRegularExpression kCounts(
    QStringLiteral("copied (\\d+) campaign\\(s\\), (\\d+) run\\(s\\), (\\d+) sample\\(s\\) .*; "
                   "(\\d+) campaign\\(s\\) completed with new runs, (\\d+) already there"));

// {campaigns copied, runs, updated, present} from the summary line.
QList<int> countsOf(const Outcome& o) {
    const auto m = kCounts.match(o.out);
    if (!m.hasMatch()) return {};
    return {m.captured(1).toInt(), m.captured(2).toInt(), m.captured(4).toInt(), m.captured(5).toInt()};
}

}  // namespace

class TestCliDbCopy : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_sqlite;
    qint64 m_partial = 0;
    RunCell m_pendingCell;

    // Two seed-000 campaigns and one that stopped part-way (done, failed, planned).
    void seed(const QString& path) {
        auto store = ResultStore::open(path);
        QVERIFY(store);
        QVERIFY(dbtest::seedCampaign(**store) > 0);
        QTest::qWait(5);  // distinct creation times: the copy's identity of a campaign
        QVERIFY(dbtest::seedCampaign(**store) > 0);
        QTest::qWait(5);
        const RunCell a = dbtest::cell(QStringLiteral("TCP"), 1024);
        const RunCell b = dbtest::cell(QStringLiteral("SMC"), 1024);
        m_pendingCell = dbtest::cell(QStringLiteral("SMC"), 4096);
        m_partial = must((*store)->createCampaign({QStringLiteral("partial"), {}, {}, {}, {a, b, m_pendingCell}}));
        QVERIFY(m_partial > 0);
        QVERIFY((*store)->recordRun(dbtest::fullRecord(m_partial, a, 10.0)).ok());
        // Failed with what it saw before (samples, counters): the copy keeps them.
        RunRecord seen = dbtest::fullRecord(m_partial, b, 5.0);
        seen.results.clear();
        QVERIFY((*store)->recordFailedRun(seen, QStringLiteral("agent lost")).ok());
        QVERIFY((*store)->updateCampaignStatus(m_partial, CampaignStatus::paused).ok());
    }

private slots:
    void initTestCase() {
        if (qEnvironmentVariable("SMCLAB_BIN_DIR").isEmpty()) QSKIP("SMCLAB_BIN_DIR is not set (run through ctest)");
        m_sqlite = m_dir.filePath(QStringLiteral("desk.db"));
        seed(m_sqlite);
    }

    void sqliteToSqlite() {
        const QString copy = m_dir.filePath(QStringLiteral("copy.db"));
        const Outcome first = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite, copy});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        QCOMPARE(countsOf(first), (QList<int>{3, 2 * 102 + 2, 0, 0}));
        QCOMPARE(dumpAll(copy), dumpAll(m_sqlite));
        const Outcome again = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite, copy});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(countsOf(again), (QList<int>{0, 0, 0, 3}));
        QCOMPARE(dumpAll(copy), dumpAll(m_sqlite));
    }

    void sqliteToPostgresAndBack() {
        if (dbtest::PostgresServer::binDir().isEmpty()) {
            QSKIP("PostgreSQL server binaries (initdb, pg_ctl) are not installed; install postgresql");
        }
        QString why;
        dbtest::PostgresServer* server = dbtest::sharedPostgres(&why);
        QVERIFY2(server, qPrintable(why));
        QVERIFY2(server->createDatabase(QStringLiteral("team"), &why), qPrintable(why));
        const QString team = server->url(QStringLiteral("team"));

        const Outcome up = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite, team});
        QVERIFY2(up.exitCode == 0, qPrintable(up.err));
        QCOMPARE(countsOf(up), (QList<int>{3, 2 * 102 + 2, 0, 0}));
        QVERIFY(up.out.contains(team));
        QCOMPARE(dumpAll(team), dumpAll(m_sqlite));
        // The report reads the copy as it read the original.
        const Outcome report = runSmclab({QStringLiteral("report"), QStringLiteral("1"), QStringLiteral("--db"), team});
        QVERIFY2(report.exitCode == 0, qPrintable(report.err));
        QCOMPARE(report.out, fixtures::readGolden(QStringLiteral("seed000_tables.txt")));

        const Outcome twice = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite, team});
        QCOMPARE(twice.exitCode, 0);
        QCOMPARE(countsOf(twice), (QList<int>{0, 0, 0, 3}));

        // A --resume on the desktop finishes the partial campaign; the next copy brings that run.
        {
            auto store = ResultStore::open(m_sqlite);
            QVERIFY(store);
            QVERIFY((*store)->recordRun(dbtest::fullRecord(m_partial, m_pendingCell, 20.0)).ok());
            QVERIFY((*store)->updateCampaignStatus(m_partial, CampaignStatus::done).ok());
        }
        const Outcome resumed = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite, team});
        QCOMPARE(resumed.exitCode, 0);
        QCOMPARE(countsOf(resumed), (QList<int>{0, 1, 1, 2}));
        const QStringList there = dumpAll(team);
        const QStringList here = dumpAll(m_sqlite);
        QCOMPARE(there.size(), 3);
        QCOMPARE(there.mid(0, 2), here.mid(0, 2));
        QVERIFY(there[2].contains(QStringLiteral("run tcp_bw/smcr/SMC/4096/0 done")));

        // And back down into a fresh file.
        const QString back = m_dir.filePath(QStringLiteral("back.db"));
        const Outcome down = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), team, back});
        QVERIFY2(down.exitCode == 0, qPrintable(down.err));
        QCOMPARE(countsOf(down), (QList<int>{3, 2 * 102 + 3, 0, 0}));
        QCOMPARE(dumpAll(back), dumpAll(team));
        QCOMPARE(countsOf(runSmclab({QStringLiteral("db"), QStringLiteral("copy"), team, back})),
                 (QList<int>{0, 0, 0, 3}));
    }

    void errorsAreClear() {
        const Outcome missing =
            runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_dir.filePath(QStringLiteral("none.db")),
                       m_dir.filePath(QStringLiteral("x.db"))});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains(QStringLiteral("no results database")), qPrintable(missing.err));

        const Outcome self = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite, m_sqlite});
        QCOMPARE(self.exitCode, 2);
        QVERIFY2(self.err.contains(QStringLiteral("same database")), qPrintable(self.err));

        const Outcome secret = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite,
                                          QStringLiteral("postgresql://lab:hunter2@127.0.0.1/team")});
        QCOMPARE(secret.exitCode, 2);
        QVERIFY(secret.err.contains(QStringLiteral("pgpass")) && !secret.err.contains(QStringLiteral("hunter2")));

        const Outcome away = runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite,
                                        QStringLiteral("postgresql://lab@127.0.0.1:1/team")});
        QCOMPARE(away.exitCode, 1);
        QVERIFY2(away.err.contains(QStringLiteral("postgresql://lab@127.0.0.1:1/team")), qPrintable(away.err));

        QCOMPARE(runSmclab({QStringLiteral("db"), QStringLiteral("copy"), m_sqlite}).exitCode, 2);
        QCOMPARE(runSmclab({QStringLiteral("db"), QStringLiteral("move")}).exitCode, 2);
        QCOMPARE(runSmclab({QStringLiteral("db"), QStringLiteral("--help")}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestCliDbCopy)
#include "test_cli_db_copy.moc"
