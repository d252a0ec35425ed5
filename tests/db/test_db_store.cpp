// The store's API: campaigns, runs, per-run data round trips, recordRun's
// atomicity, resume's pending cells, and the comparison query that feeds
// the reports (seed 000 stored and printed back byte for byte). Runs on
// SQLite files, and as test_db_store_postgresql on a PostgreSQL server the
// test starts (postgres_server.h).
#include <QTemporaryDir>
#include <QTest>

#include "postgres_server.h"
#include "report_fixtures.h"
#include "seed_campaign.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"
#include "workload.h"

using namespace smclab::db;

namespace {

// The headline metrics the registered workloads declare (agents/workloads).
const smclab::report::HeadlineMetrics& headlines() {
    static const smclab::report::HeadlineMetrics kDeclared = smclab::workloads::headlineMetricsByWorkload();
    return kDeclared;
}

}  // namespace

class TestDbStore : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<ResultStore> openStore(const QString& name) {
        QString why;
        const QString location = dbtest::storeLocation(m_dir, name, &why);
        if (location.isEmpty()) {
            qWarning("%s", qPrintable(why));
            return nullptr;
        }
        auto store = ResultStore::open(location);
        if (!store) qWarning("%s", store.error().message.c_str());
        return store ? std::move(store).value() : nullptr;
    }

private slots:
    void runnerLockLivesInAStoreThatCanHoldIt() {
        // Two controllers of one database: two connections.
        QString why;
        const QString location = dbtest::storeLocation(m_dir, QStringLiteral("runner.db"), &why);
        QVERIFY2(!location.isEmpty(), qPrintable(why));
        auto a = ResultStore::open(location);
        auto b = ResultStore::open(location);
        QVERIFY(a && b);
        const qint64 id =
            (*a)->createCampaign({QStringLiteral("c"), {}, {}, {}, {dbtest::cell(QStringLiteral("TCP"), 1)}})
                .valueOr(0);
        QVERIFY(id > 0);
        if (!dbtest::usePostgres()) {
            // SQLite: the orchestrator's lock file beside the file does it.
            QVERIFY(!(*a)->hasRunnerLocks());
            QCOMPARE((*a)->tryLockCampaignRunner(id).error().code, smcr::Errc::notSupported);
            return;
        }
        QVERIFY((*a)->hasRunnerLocks());
        QCOMPARE((*b)->campaignRunnerHeld(id).valueOr(true), false);
        QCOMPARE((*a)->tryLockCampaignRunner(id).valueOr(false), true);
        QCOMPARE((*b)->campaignRunnerHeld(id).valueOr(false), true);  // seen from the other controller
        QCOMPARE((*b)->tryLockCampaignRunner(id).valueOr(true), false);
        QCOMPARE((*b)->campaignRunnerHeld(id + 1).valueOr(true), false);  // one lock per campaign
        // It outlives transactions: a run recorded meanwhile keeps it.
        QVERIFY((*a)->recordRun(dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 1), 1.0)).ok());
        QCOMPARE((*b)->campaignRunnerHeld(id).valueOr(false), true);
        QVERIFY((*a)->unlockCampaignRunner(id).ok());
        QCOMPARE((*b)->campaignRunnerHeld(id).valueOr(true), false);
        // A runner whose connection ends (killed, network gone) frees it.
        QCOMPARE((*b)->tryLockCampaignRunner(id).valueOr(false), true);
        b->reset();
        QTRY_COMPARE_WITH_TIMEOUT((*a)->campaignRunnerHeld(id).valueOr(true), false, 5000);
    }

    void initTestCase() {
        if (dbtest::usePostgres() && dbtest::PostgresServer::binDir().isEmpty()) {
            QSKIP("PostgreSQL server binaries (initdb, pg_ctl) are not installed; install postgresql");
        }
    }

    void campaignLifecycle() {
        auto store = openStore(QStringLiteral("life.db"));
        QVERIFY(store);
        NewCampaign nc{QStringLiteral("datapath"),
                       QStringLiteral("datapath"),
                       {{QStringLiteral("k"), 1}},
                       QStringLiteral("notes"),
                       {}};
        for (qint64 size : {1, 2, 4}) nc.cells << dbtest::cell(QStringLiteral("TCP"), size);
        const qint64 id = store->createCampaign(nc).valueOr(0);
        QVERIFY(id > 0);
        Campaign c = store->campaign(id).value();
        QCOMPARE(c.status, CampaignStatus::planned);
        QCOMPARE(c.runsTotal, 3);
        QCOMPARE(c.runsDone, 0);
        QVERIFY(c.createdAt.isValid());
        QVERIFY(!c.finishedAt.isValid());
        QCOMPARE(store->pendingCells(id)->size(), 3);

        QVERIFY(store->updateCampaignStatus(id, CampaignStatus::running).ok());
        QVERIFY(store->markRunStarted(id, dbtest::cell(QStringLiteral("TCP"), 1)).ok());
        QCOMPARE(store->runs(id)->at(0).status, RunStatus::running);
        QVERIFY(store->recordRun(dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 1), 5.0)).ok());
        QVERIFY(store->markRunFailed(id, dbtest::cell(QStringLiteral("TCP"), 2), QStringLiteral("agent lab-b vanished"))
                    .ok());
        const QList<RunCell> pending = store->pendingCells(id).value();
        QCOMPARE(pending,
                 (QList<RunCell>{dbtest::cell(QStringLiteral("TCP"), 2), dbtest::cell(QStringLiteral("TCP"), 4)}));
        const QList<Run> runs = store->runs(id).value();
        QCOMPARE(runs[1].status, RunStatus::failed);
        QCOMPARE(runs[1].error, QStringLiteral("agent lab-b vanished"));
        QCOMPARE(runs[2].status, RunStatus::planned);

        QVERIFY(store->updateCampaignStatus(id, CampaignStatus::done).ok());
        c = store->campaign(id).value();
        QCOMPARE(c.runsDone, 1);
        QCOMPARE(c.runsFailed, 1);
        QVERIFY(c.finishedAt.isValid());
        QCOMPARE(store->listCampaigns()->first().id, id);

        QCOMPARE(store->campaign(999).error().code, smcr::Errc::notFound);
        QCOMPARE(store->updateCampaignStatus(999, CampaignStatus::done).error().code, smcr::Errc::notFound);
        QCOMPARE(store->recordRun(dbtest::fullRecord(999, dbtest::cell(QStringLiteral("TCP"), 1), 1.0)).error().code,
                 smcr::Errc::notFound);
        QCOMPARE(store->runs(999).error().code, smcr::Errc::notFound);
        nc.cells << nc.cells.first();
        QCOMPARE(store->createCampaign(nc).error().code, smcr::Errc::invalidArgument);
    }

    void runDataRoundTrips() {
        auto store = openStore(QStringLiteral("round.db"));
        QVERIFY(store);
        const qint64 host =
            store->upsertHost(QStringLiteral("lab-a"), {{QStringLiteral("kernel"), QStringLiteral("6.1")}}).valueOr(0);
        const qint64 agentA = store
                                  ->upsertAgent(QStringLiteral("10.0.0.1:7000"), host, QStringLiteral("0.1.0"),
                                                {{QStringLiteral("fabrics"), QStringLiteral("sim")}})
                                  .valueOr(0);
        const qint64 agentB =
            store->upsertAgent(QStringLiteral("10.0.0.2:7000"), std::nullopt, QStringLiteral("0.1.0"), {}).valueOr(0);
        QVERIFY(host > 0 && agentA > 0 && agentB > 0);
        QCOMPARE(store->upsertAgent(QStringLiteral("10.0.0.1:7000"), host, QStringLiteral("0.2.0"), {}).valueOr(0),
                 agentA);
        QCOMPARE(store->agents()->first().version, QStringLiteral("0.2.0"));
        QCOMPARE(store->hosts()->first().facts.value(QStringLiteral("kernel")), QStringLiteral("6.1"));

        const qint64 id = store->createCampaign({QStringLiteral("c"), {}, {}, {}, {}}).valueOr(0);
        RunRecord record = dbtest::fullRecord(id, dbtest::cell(QStringLiteral("SMC"), 64), 148.668, 50);
        record.clientAgentId = agentA;
        record.serverAgentId = agentB;
        const qint64 runId = store->recordRun(record).valueOr(0);  // an unplanned cell is added
        QVERIFY(runId > 0);
        const Run run = store->run(runId).value();
        QCOMPARE(run.cell, record.cell);
        QCOMPARE(run.status, RunStatus::done);
        QCOMPARE(run.startedAt, record.startedAt);
        QCOMPARE(run.finishedAt, record.finishedAt);
        QCOMPARE(run.clientAgentId, std::optional<qint64>(agentA));
        QCOMPARE(store->settings(runId).value(), record.settings);
        QCOMPARE(store->hostFacts(runId)->client, record.clientFacts);
        QCOMPARE(store->hostFacts(runId)->server, record.serverFacts);
        QCOMPARE(store->results(runId).value(), record.results);
        QCOMPARE(store->histograms(runId).value(), record.histograms);
        QCOMPARE(store->samples(runId).value(), record.samples);
        QCOMPARE(store->samples(runId, QStringLiteral("nothing"))->size(), 0);
        QCOMPARE(store->counters(runId).value(), record.counters);
        QCOMPARE(store->settingChanges(runId).value(), record.settingChanges);

        // A second attempt at the same cell replaces the first one's data.
        RunRecord again = dbtest::fullRecord(id, record.cell, 150.0, 5);
        QCOMPARE(store->recordRun(again).valueOr(0), runId);
        QCOMPARE(store->samples(runId)->size(), 5);
        QCOMPARE(store->results(runId)->value(QStringLiteral("bw_mbps")), 150.0);
    }

    void recordRunIsAllOrNothing() {
        auto store = openStore(QStringLiteral("atomic.db"));
        QVERIFY(store);
        const RunCell cell = dbtest::cell(QStringLiteral("TCP"), 8);
        const qint64 id = store->createCampaign({QStringLiteral("c"), {}, {}, {}, {cell}}).valueOr(0);
        RunRecord bad = dbtest::fullRecord(id, cell, 1.0, 100);
        // Settings, facts, results, histograms and samples are written before
        // the counters; the bad counter fails the transaction.
        bad.counters.append({smcr::Side::invalid, QStringLiteral("oops"), 1});
        auto recorded = store->recordRun(bad);
        QVERIFY(!recorded.ok());
        QCOMPARE(recorded.error().code, smcr::Errc::invalidArgument);
        const Run run = store->runs(id)->first();
        QCOMPARE(run.status, RunStatus::planned);
        QCOMPARE(store->samples(run.id)->size(), 0);
        QCOMPARE(store->settings(run.id)->size(), 0);
        QCOMPARE(store->results(run.id)->size(), 0);
        QCOMPARE(store->histograms(run.id)->size(), 0);
        // The store is still usable afterwards.
        QVERIFY(store->recordRun(dbtest::fullRecord(id, cell, 1.0)).ok());
        QCOMPARE(store->pendingCells(id)->size(), 0);
    }

    void seedCampaignPrintsTheGoldenTables() {
        auto store = openStore(QStringLiteral("seed.db"));
        QVERIFY(store);
        const qint64 id = dbtest::seedCampaign(*store);
        QVERIFY(id > 0);
        QCOMPARE(store->columns(id).value(), dbtest::kSeedColumns);
        auto tables = comparisonTables(*store, id, headlines());
        QVERIFY(tables.ok());
        QCOMPARE(tables->size(), 2);
        // Every seeded run changed a setting live (dbtest::fullRecord): every
        // cell says so; the numbers are the letter's.
        for (smclab::report::ComparisonTable& table : *tables) {
            for (smclab::report::Row& row : table.rows) {
                for (smclab::report::Cell& cell : row.cells) {
                    QCOMPARE(cell.liveChangedRepetitions, 1);
                    cell.liveChangedRepetitions = 0;
                }
            }
        }
        QCOMPARE(tables->at(0), fixtures::bandwidth());
        QCOMPARE(tables->at(1), fixtures::latency());
        QCOMPARE(smclab::report::formatText(*tables), fixtures::readGolden(QStringLiteral("seed000_tables.txt")));
    }

    void repetitionsGiveMeanAndSpread() {
        auto store = openStore(QStringLiteral("reps.db"));
        QVERIFY(store);
        const qint64 id = store->createCampaign({QStringLiteral("c"), {}, {}, {}, {}}).valueOr(0);
        const double values[] = {10.0, 12.0, 14.0};
        for (int rep = 0; rep < 3; ++rep) {
            RunRecord r = dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 64, rep), values[rep]);
            QVERIFY(store->recordRun(r).ok());
        }
        QVERIFY(store->markRunFailed(id, dbtest::cell(QStringLiteral("SMC"), 64), QStringLiteral("x")).ok());
        auto tables = comparisonTables(*store, id, headlines());
        QVERIFY(tables.ok());
        const smclab::report::ComparisonTable& bw = tables->first();
        QCOMPARE(bw.columns, (QStringList{"TCP", "SMC"}));
        QCOMPARE(bw.rows.size(), 1);
        QCOMPARE(bw.rows[0].cells[0].value.value(), 12.0);
        QCOMPARE(bw.rows[0].cells[0].spread, 2.0);
        QCOMPARE(bw.rows[0].cells[0].repetitions, 3);
        QVERIFY(!bw.rows[0].cells[1].value.has_value());  // the failed run leaves a hole
    }

    void repetitionsCarryIntervalsAndBusyRuns() {
        auto store = openStore(QStringLiteral("busy.db"));
        QVERIFY(store);
        const qint64 id = store->createCampaign({QStringLiteral("c"), {}, {}, {}, {}}).valueOr(0);
        const double values[] = {10.0, 30.0, 11.0};
        for (int rep = 0; rep < 3; ++rep) {
            RunRecord r = dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 64, rep), values[rep]);
            // The orchestrator's verdict (host_load.h): the second run was busy.
            r.clientFacts.insert(QStringLiteral("host_state.busy"),
                                 rep == 1 ? QStringLiteral("yes") : QStringLiteral("no"));
            QVERIFY(store->recordRun(r).ok());
        }
        auto tables = comparisonTables(*store, id, headlines());
        QVERIFY(tables.ok());
        const smclab::report::Cell& cell = tables->first().rows[0].cells[0];
        QCOMPARE(cell.value.value(), 11.0);  // the median; the mean would be 17
        QCOMPARE(cell.samples, (QList<double>{10.0, 30.0, 11.0}));
        QCOMPARE(cell.interval->low, 10.0);
        QCOMPARE(cell.interval->high, 30.0);
        QCOMPARE(cell.busyRepetitions, 1);
        auto busy = store->campaignRunFact(id, smcr::Side::client, QStringLiteral("host_state.busy"));
        QVERIFY(busy.ok());
        QCOMPARE(busy->size(), 3);
    }

    void kvEntriesUnderLabelsAreKvTables() {
        // The credits preset stores its two kv entries as "kv:SET" and
        // "kv:GET": each gets the kv headline (rps), not every stored metric.
        using smclab::report::baseWorkload;
        using smclab::report::headlineMetrics;
        QCOMPARE(headlineMetrics(headlines(), QStringLiteral("kv:SET")).value(), QStringList{QStringLiteral("rps")});
        QCOMPARE(headlineMetrics(headlines(), QStringLiteral("kv")).value(), QStringList{QStringLiteral("rps")});
        QCOMPARE(headlineMetrics(headlines(), QStringLiteral("tcp_bw:Small")).value(),
                 QStringList{QStringLiteral("bw_mbps")});
        QCOMPARE(baseWorkload(QStringLiteral("kv:GET")), QStringLiteral("kv"));
        auto store = openStore(QStringLiteral("kv.db"));
        QVERIFY(store);
        const qint64 id = store->createCampaign({QStringLiteral("credits"), {}, {}, {}, {}}).valueOr(0);
        QVERIFY(id > 0);
        const QString entries[] = {QStringLiteral("kv:SET"), QStringLiteral("kv:GET")};
        for (const QString& workload : entries) {
            for (const QString& column : {QStringLiteral("SMC credits off"), QStringLiteral("TCP")}) {
                RunRecord r = dbtest::fullRecord(id, dbtest::cell(column, 10, 0, workload), 0.0);
                const double rps = workload.endsWith(QLatin1String("SET")) ? 90000.0 : 110000.0;
                r.results = {{QStringLiteral("rps"), column == QLatin1String("TCP") ? rps : 2 * rps},
                             {QStringLiteral("p50_us"), 120.0},
                             {QStringLiteral("p99_us"), 400.0}};
                QVERIFY(store->recordRun(r).ok());
            }
        }
        auto tables = comparisonTables(*store, id, headlines());
        QVERIFY(tables.ok());
        QCOMPARE(tables->size(), 2);
        QCOMPARE(tables->at(0).metric, QStringLiteral("rps"));
        QCOMPARE(tables->at(1).metric, QStringLiteral("rps"));
        QCOMPARE(tables->at(0).title, QStringLiteral("Requests/sec (SET)"));
        QCOMPARE(tables->at(1).title, QStringLiteral("Requests/sec (GET)"));
        QCOMPARE(tables->at(0).columns, (QStringList{"SMC credits off", "TCP"}));
        QCOMPARE(tables->at(0).rows.size(), 1);
        QCOMPARE(tables->at(0).rows[0].cells[0].value.value(), 180000.0);
        QCOMPARE(tables->at(1).rows[0].cells[1].value.value(), 110000.0);
    }

    void kvEntryWithSeveralTestsGetsOneTableEach() {
        // One kv entry running -t set,get stores set_rps and get_rps.
        auto store = openStore(QStringLiteral("kv2.db"));
        QVERIFY(store);
        const qint64 id = store->createCampaign({QStringLiteral("kv"), {}, {}, {}, {}}).valueOr(0);
        RunRecord r = dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 3, 0, QStringLiteral("kv")), 0.0);
        r.results = {{QStringLiteral("set_rps"), 1000.0},
                     {QStringLiteral("get_rps"), 2000.0},
                     {QStringLiteral("set_p50_us"), 50.0}};
        QVERIFY(store->recordRun(r).ok());
        auto tables = comparisonTables(*store, id, headlines());
        QVERIFY(tables.ok());
        QStringList metrics;
        for (const auto& t : *tables) metrics << t.metric;
        metrics.sort();
        QCOMPARE(metrics, (QStringList{"get_rps", "set_rps"}));
    }

    void workloadWithoutHeadlineMetricIsAnError() {
        // A workload that declares no headline metric would be in no table:
        // the query says so (naming it) instead of dropping its runs.
        auto undeclared = smclab::report::headlineMetrics(headlines(), QStringLiteral("custom:A"));
        QCOMPARE(undeclared.error().code, smcr::Errc::notFound);
        QVERIFY2(QString::fromStdString(undeclared.error().message).contains(QStringLiteral("custom:A")),
                 undeclared.error().message.c_str());
        auto store = openStore(QStringLiteral("undeclared.db"));
        QVERIFY(store);
        const qint64 id = store->createCampaign({QStringLiteral("c"), {}, {}, {}, {}}).valueOr(0);
        QVERIFY(store->recordRun(dbtest::fullRecord(id, dbtest::cell(QStringLiteral("TCP"), 64), 1.0)).ok());
        QVERIFY(store
                    ->recordRun(dbtest::fullRecord(
                        id, dbtest::cell(QStringLiteral("TCP"), 64, 0, QStringLiteral("custom")), 1.0))
                    .ok());
        auto tables = comparisonTables(*store, id, headlines());
        QCOMPARE(tables.error().code, smcr::Errc::notFound);
        QVERIFY2(QString::fromStdString(tables.error().message).contains(QStringLiteral("custom")),
                 tables.error().message.c_str());
        QCOMPARE(campaignReport(*store, id, headlines(), QDateTime::currentDateTimeUtc()).error().code,
                 smcr::Errc::notFound);
    }

    void twoCampaignsSideBySide() {
        auto store = openStore(QStringLiteral("compare.db"));
        QVERIFY(store);
        const qint64 a = dbtest::seedCampaign(*store);
        const qint64 b = dbtest::seedCampaign(*store);
        auto tables = comparisonTables(*store, a, b, headlines());
        QVERIFY(tables.ok());
        QCOMPARE(tables->size(), 2);
        const auto& bw = tables->first();
        QCOMPARE(bw.columns.size(), 6);
        QCOMPARE(bw.columns[0], QStringLiteral("#%1 Origin SMC").arg(a));
        QCOMPARE(bw.columns[3], QStringLiteral("#%1 Origin SMC").arg(b));
        QCOMPARE(bw.rows[0].cells[3].value, bw.rows[0].cells[0].value);
        QCOMPARE(comparisonTables(*store, a, 999, headlines()).error().code, smcr::Errc::notFound);
    }

    void reportDocumentCarriesProvenance() {
        auto store = openStore(QStringLiteral("doc.db"));
        QVERIFY(store);
        const qint64 id = dbtest::seedCampaign(*store);
        const QDateTime now(QDate(2026, 11, 30), QTime(8, 0), Qt::UTC);
        auto doc = campaignReport(*store, id, headlines(), now);
        QVERIFY(doc.ok());
        QCOMPARE(doc->tables.size(), 2);
        QCOMPARE(doc->generatedAt, QStringLiteral("2026-11-30T08:00:00Z"));
        QVERIFY(doc->title.contains(QStringLiteral("datapath (seed 000)")));
        const QString md = smclab::report::formatMarkdown(*doc);
        for (const char* needle : {"link_model", "cx4-25g", "6.1.0-18-amd64", "autocorking_size", "cdc_msgs_sent",
                                   "ConnectX-4 Lx", "rdma_writes"}) {
            QVERIFY2(md.contains(QLatin1String(needle)), needle);
        }
        // Counters: 17 sizes x 2 workloads per column, 1000 + size each.
        const auto& counters = doc->details.last();
        QCOMPARE(counters.columns, dbtest::kSeedColumns);
        const qint64 sizesSum = 2 * ((1 << 17) - 1);
        QCOMPARE(counters.rows.first().name, QStringLiteral("client cdc_msgs_sent"));
        QCOMPARE(counters.rows.first().values.first(), QString::number(34 * 1000 + sizesSum));
        auto compared = compareReport(*store, id, id, headlines(), now);
        QVERIFY(compared.ok());
        QCOMPARE(compared->tables.first().columns.size(), 6);
    }

    // A campaign resumed on a relaunched lab lists every
    // wire its runs crossed, and when it was resumed and on what; its text
    // tables end with each column's wire(s).
    void resumedCampaignListsEveryWireAndSession() {
        auto store = openStore(QStringLiteral("resumed.db"));
        QVERIFY(store);
        NewCampaign campaign;
        campaign.name = QStringLiteral("resumed");
        for (int rep = 0; rep < 3; ++rep)
            campaign.cells.append({QStringLiteral("tcp_bw"), QStringLiteral("tcp"), QStringLiteral("TCP"), 64, rep});
        auto id = store->createCampaign(campaign);
        QVERIFY(id.ok());
        auto first = store->upsertAgent(QStringLiteral("127.0.0.1:4001"), std::nullopt, QStringLiteral("0.1"), {});
        auto second = store->upsertAgent(QStringLiteral("127.0.0.1:5001"), std::nullopt, QStringLiteral("0.1"), {});
        QVERIFY(first.ok() && second.ok());
        for (int rep = 0; rep < 3; ++rep) {
            const bool resumed = rep > 0;
            RunRecord r;
            r.campaignId = *id;
            r.cell = campaign.cells[rep];
            r.clientAgentId = resumed ? *second : *first;
            r.serverAgentId = r.clientAgentId;
            r.startedAt = QDateTime(QDate(2026, 12, 1), QTime(resumed ? 11 : 10, rep), Qt::UTC);
            r.finishedAt = r.startedAt.addSecs(2);
            r.results = {{QStringLiteral("bw_mbps"), 100.0 + rep}};
            r.clientFacts = {
                {QStringLiteral("wire"),
                 resumed ? QStringLiteral("veth probed 8.45 Gbit/s") : QStringLiteral("veth probed 10.08 Gbit/s")},
                {QStringLiteral("wire.model"), QStringLiteral("cx4-25g")},
                {QStringLiteral("wire.tcp_path"), QStringLiteral("veth between network namespaces")},
                {QStringLiteral("wire.tcp_capacity"),
                 resumed ? QStringLiteral("measured 8.45 Gbit/s") : QStringLiteral("measured 10.08 Gbit/s")},
                {QStringLiteral("session.started"),
                 resumed ? QStringLiteral("2026-12-01T11:00:00Z") : QStringLiteral("2026-12-01T10:00:00Z")},
                {QStringLiteral("session.resumed"), resumed ? QStringLiteral("yes") : QStringLiteral("no")}};
            QVERIFY(store->recordRun(r).ok());
        }
        auto doc = campaignReport(*store, *id, headlines(), QDateTime::currentDateTimeUtc());
        QVERIFY(doc.ok());
        QMap<QString, QString> entries;
        for (const auto& entry : doc->provenance.first().entries) entries.insert(entry.key, entry.value);
        QCOMPARE(
            entries.value(QStringLiteral("wires")),
            QStringLiteral("2 different wires: veth probed 10.08 Gbit/s (1 run); veth probed 8.45 Gbit/s (2 runs)"));
        QCOMPARE(entries.value(QStringLiteral("session 1")),
                 QStringLiteral("started 2026-12-01T10:00:00Z: 1 run on agents 127.0.0.1:4001 -> 127.0.0.1:4001, "
                                "wire: veth probed 10.08 Gbit/s"));
        QCOMPARE(entries.value(QStringLiteral("session 2")),
                 QStringLiteral("resumed 2026-12-01T11:01:00Z: 2 runs on agents 127.0.0.1:5001 -> 127.0.0.1:5001, "
                                "wire: veth probed 8.45 Gbit/s"));
        QVERIFY(doc->provenance[1].title.endsWith(QStringLiteral(", first run)")));
        // The text tables: the TCP column's two wires with their runs.
        const QString text = smclab::report::formatText(doc->tables);
        QVERIFY2(text.contains(QStringLiteral("TCP  TCP over veth between network namespaces; measured 10.08 Gbit/s "
                                              "(1 run); TCP over veth between network namespaces; measured 8.45 "
                                              "Gbit/s (2 runs)\n")),
                 qPrintable(text));
    }

    // A tool campaign's report carries each column's tool
    // program, version and command line (JSON and HTML render the details).
    void toolCampaignReportCarriesEachColumnsCommand() {
        auto store = openStore(QStringLiteral("tools.db"));
        QVERIFY(store);
        NewCampaign campaign;
        campaign.name = QStringLiteral("qperf");
        campaign.cells = {{QStringLiteral("qperf"), QStringLiteral("tcp"), QStringLiteral("TCP"), 64, 0},
                          {QStringLiteral("qperf"), QStringLiteral("smcr"), QStringLiteral("SMC"), 64, 0}};
        auto id = store->createCampaign(campaign);
        QVERIFY(id.ok());
        for (const RunCell& c : campaign.cells) {
            RunRecord r;
            r.campaignId = *id;
            r.cell = c;
            r.startedAt = QDateTime::currentDateTimeUtc();
            r.finishedAt = r.startedAt;
            r.results = {{QStringLiteral("bw_mbps"), 10.0}};
            const QString prefix = c.transport == QLatin1String("smcr") ? QStringLiteral("smcr_run ") : QString();
            r.clientFacts = {{QStringLiteral("tool.program"), QStringLiteral("/usr/bin/qperf")},
                             {QStringLiteral("tool.version"), QStringLiteral("0.4.11")},
                             {QStringLiteral("tool.command"), prefix + QStringLiteral("qperf 10.0.0.2 tcp_bw")}};
            r.serverFacts = {{QStringLiteral("tool.command"), prefix + QStringLiteral("qperf -lp 19765")}};
            QVERIFY(store->recordRun(r).ok());
        }
        auto doc = campaignReport(*store, *id, headlines(), QDateTime::currentDateTimeUtc());
        QVERIFY(doc.ok());
        const auto tools = std::find_if(doc->details.begin(), doc->details.end(),
                                        [](const auto& d) { return d.title.startsWith(QStringLiteral("Tools")); });
        QVERIFY(tools != doc->details.end());
        QCOMPARE(tools->columns, (QStringList{QStringLiteral("TCP"), QStringLiteral("SMC")}));
        QCOMPARE(tools->rows.size(), 4);  // client program, version, command; server command
        QCOMPARE(tools->rows[2].values, (QStringList{QStringLiteral("qperf 10.0.0.2 tcp_bw"),
                                                     QStringLiteral("smcr_run qperf 10.0.0.2 tcp_bw")}));
        const QString json = smclab::report::formatJson(*doc);
        QVERIFY(json.contains(QStringLiteral("smcr_run qperf -lp 19765")));
        QVERIFY(smclab::report::formatHtml(*doc).contains(QStringLiteral("smcr_run qperf 10.0.0.2 tcp_bw")));
    }
};

QTEST_GUILESS_MAIN(TestDbStore)
#include "test_db_store.moc"
