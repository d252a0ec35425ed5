// The tool presets' cover-letter lines after `smclab report`'s tables
// (smclab/report/letter_lines.h, smclab/report/letter_query.h), byte for byte,
// from runs stored through the store API as the orchestrator stores them:
// seed004-redis's redis-benchmark -q lines per column, seed002-nginx's QPS
// rows, seed003-shortconn's wrk Requests/sec and Transfer/sec lines, and
// seed000-qperf's Bandwidth / Latency tables, which are the letter's layout
// of format_text.h with qperf's runs stored under qperf:LABEL.
#include <QTemporaryDir>
#include <QTest>

#include "db_test_util.h"
#include "report_fixtures.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "smclab/report/letter_lines.h"
#include "smclab/report/letter_query.h"
#include "workload.h"

using namespace smclab;

namespace {

struct StoredRun {
    QString workload;
    QString column;
    QString transport;
    qint64 size;
    int repetition;
    QMap<QString, double> results;
};

qint64 storeCampaign(db::ResultStore& store, const QString& preset, const QList<StoredRun>& runs) {
    db::NewCampaign campaign;
    campaign.name = preset;
    campaign.preset = preset;
    for (const StoredRun& r : runs) campaign.cells.append({r.workload, r.transport, r.column, r.size, r.repetition});
    auto id = store.createCampaign(campaign);
    if (!id) return 0;
    for (const StoredRun& r : runs) {
        db::RunRecord record = dbtest::fullRecord(*id, {r.workload, r.transport, r.column, r.size, r.repetition}, 0, 0);
        record.results = r.results;
        if (!store.recordRun(record)) return 0;
    }
    return *id;
}

}  // namespace

class TestReportLetters : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<db::ResultStore> m_store;

    QString lines(qint64 id) {
        auto text = db::letterLines(*m_store, id);
        if (!text) qWarning("letterLines: %s", text.error().message.c_str());
        return text.valueOr(QStringLiteral("(error)"));
    }

private slots:
    void initTestCase() {
        auto store = db::ResultStore::open(m_dir.filePath(QStringLiteral("letters.sqlite")));
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
        m_store = std::move(*store);
    }

    void redisQuietLinesPerColumn() {
        // Medians of three repetitions (Before SET: 205833.30), tests in
        // redis-benchmark's order whatever order the store lists them in.
        QList<StoredRun> runs;
        const double beforeSet[] = {205833.3, 201000.0, 209999.9};
        for (int rep = 0; rep < 3; ++rep) {
            runs.append({"redis",
                         "Before",
                         "smcr",
                         10,
                         rep,
                         {{"get_rps", 228385.4},
                          {"get_p50_latency_ms", 0.687},
                          {"set_rps", beforeSet[rep]},
                          {"set_p50_latency_ms", 0.799}}});
            runs.append({"redis",
                         "After",
                         "smcr",
                         10,
                         rep,
                         {{"get_rps", 673763.28},
                          {"get_p50_latency_ms", 0.159},
                          {"set_rps", 623225.44},
                          {"set_p50_latency_ms", 0.175}}});
        }
        const qint64 id = storeCampaign(*m_store, "seed004-redis", runs);
        QVERIFY(id > 0);
        QCOMPARE(lines(id), QStringLiteral("\n==== redis-benchmark ====\n"
                                           "Before:\n"
                                           "SET: 205833.30 requests per second, p50=0.799 msec\n"
                                           "GET: 228385.40 requests per second, p50=0.687 msec\n"
                                           "\n"
                                           "After:\n"
                                           "SET: 623225.44 requests per second, p50=0.175 msec\n"
                                           "GET: 673763.28 requests per second, p50=0.159 msec\n"));
    }

    void nginxQpsRows() {
        const qint64 id = storeCampaign(*m_store, "seed002-nginx",
                                        {{"nginx-wrk", "sendfile off", "smcr", 4096, 0, {{"rps", 13493.741}}},
                                         {"nginx-wrk", "sendfile on (orig)", "smcr", 4096, 0, {{"rps", 3218.5}}},
                                         {"nginx-wrk", "sendfile on (this)", "smcr", 4096, 0, {{"rps", 28093.3}}}});
        QVERIFY(id > 0);
        QCOMPARE(lines(id), QStringLiteral("\n==== QPS ====\n"
                                           "Items                      QPS\n"
                                           "sendfile off          13493.74\n"
                                           "sendfile on (orig)     3218.50\n"
                                           "sendfile on (this)    28093.30\n"));
    }

    void wrkRequestsAndTransferLines() {
        // A failed cell (no results) prints "-" for its numbers.
        const qint64 id = storeCampaign(
            *m_store, "seed003-shortconn",
            {{"nginx-wrk", "TCP", "tcp", 64, 0, {{"rps", 145438.65}, {"transfer_bytes_per_sec", 21957099.52}}},
             {"nginx-wrk", "fast fallback", "smcr", 64, 0, {{"rps", 143528.0}, {"transfer_bytes_per_sec", 1000.0}}},
             {"nginx-wrk", "original fallback path", "smcr", 64, 0, {}}});
        QVERIFY(id > 0);
        QCOMPARE(lines(id), QStringLiteral("\n==== wrk ====\n"
                                           "TCP:\n"
                                           "Requests/sec: 145438.65\n"
                                           "Transfer/sec:     20.94MB\n"
                                           "\n"
                                           "fast fallback:\n"
                                           "Requests/sec: 143528.00\n"
                                           "Transfer/sec:    1000.00B\n"
                                           "\n"
                                           "original fallback path:\n"
                                           "Requests/sec:         -\n"
                                           "Transfer/sec:          -B\n"));
        QCOMPARE(report::wrkBinaryUnits(113.02 * 1024 * 1024), QStringLiteral("113.02M"));
        QCOMPARE(report::wrkBinaryUnits(1536), QStringLiteral("1.50K"));
    }

    void qperfIsTheLettersTables() {
        // seed000-qperf stores tcp_bw and tcp_lat as qperf:Bandwidth and
        // qperf:Latency: the report's tables are the letter's, no extra lines.
        QList<StoredRun> runs;
        const QStringList columns = {"Origin SMC", "TCP", "SMC with patches"};
        for (const auto& [workload, metric, rows] : {std::tuple{"qperf:Bandwidth", "bw_mbps", &seed000::kBandwidth},
                                                     std::tuple{"qperf:Latency", "latency_us", &seed000::kLatency}}) {
            for (qsizetype c = 0; c < columns.size(); ++c) {
                for (const seed000::Row& row : *rows) {
                    runs.append({workload,
                                 columns[c],
                                 c == 1 ? "tcp" : "smcr",
                                 row.msgSize,
                                 0,
                                 {{metric, row.values[static_cast<size_t>(c)]}, {"cpu_sec", 1.0}}});
                }
            }
        }
        const qint64 id = storeCampaign(*m_store, "seed000-qperf", runs);
        QVERIFY(id > 0);
        auto tables = db::comparisonTables(*m_store, id, workloads::headlineMetricsByWorkload());
        QVERIFY(tables.ok());
        QCOMPARE(report::formatText(*tables), fixtures::readGolden(QStringLiteral("seed000_tables.txt")));
        QCOMPARE(lines(id), QString());
    }
};

QTEST_GUILESS_MAIN(TestReportLetters)
#include "test_report_letters.moc"
