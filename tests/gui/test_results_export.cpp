// The Results page plots the values stored through the db API, and the
// Export page's cover-letter text equals `smclab report --format text` for
// the same campaign (and the same baseline); CSV, PNG, PDF and HTML exports
// are written.
#include <QClipboard>
#include <QDateTime>
#include <QProcess>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "app/lab_context.h"
#include "data/comparison.h"
#include "models/comparison_table_model.h"
#include "orchestrator/campaign_analysis.h"
#include "pages/export_page.h"
#include "pages/results_page.h"
#include "seed_comparison.h"
#include "seed_store.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/formats.h"
#include "widgets/comparison_plot.h"
#include "widgets/comparison_view.h"
#include "workload.h"

using namespace smclab::gui;

class TestResultsExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void plotsStoredValues();
    void textEqualsCliReport();
    void baselineChangeFollowsCliBaseline();
    void filesAreWritten();
    void showsTheDatapathShapes();
    void twoCampaignsSideBySide();
    void showsCountersAndPercentiles();

private:
    // `smclab report` output, or the same formatter path when the CLI is not built.
    QString cliReport(const QStringList& extra) { return cliReport(m_campaign, extra); }
    QString cliReport(qint64 campaign, const QStringList& extra);

    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_campaign = 0;
    LabContext* m_lab = nullptr;
    ResultsPage* m_results = nullptr;
    ExportPage* m_export = nullptr;
};

void TestResultsExport::initTestCase() {
    QVERIFY(m_dir.isValid());
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    m_db = m_dir.filePath(QStringLiteral("results.db"));
    m_campaign = testing::seedStore(m_db, QStringLiteral("seed000"));
    QVERIFY(m_campaign > 0);
    m_lab = new LabContext(this);
    m_lab->setDatabasePath(m_db);
    m_results = new ResultsPage(m_lab);
    m_results->resize(1150, 700);
    m_export = new ExportPage(m_lab);
    m_export->setSource(m_results->comparisonView());
    connect(m_results, &ResultsPage::comparisonChanged, this,
            [this] { m_export->setSource(m_results->comparisonView()); });
    QCOMPARE(m_results->campaignTree()->topLevelItemCount(), 1);
    QVERIFY(m_results->showCampaign(m_campaign));
}

void TestResultsExport::plotsStoredValues() {
    const ComparisonView* view = m_results->comparisonView();
    QCOMPARE(view->paneCount(), 2);
    const Comparison seed = testing::seedComparison();
    for (const ComparisonSection& expected : seed.sections) {
        ComparisonPlot* plot = view->plot(expected.metric);
        QVERIFY(plot != nullptr);
        QCOMPARE(plot->graphCount(), 3);
        for (int c = 0; c < 3; ++c) {
            QCOMPARE(plot->graph(c)->name().startsWith(expected.columns[c]), true);
            QCOMPARE(plot->graph(c)->dataCount(), 17);
            for (int r = 0; r < 17; ++r) {
                QCOMPARE(plot->graph(c)->data()->at(r)->key, static_cast<double>(expected.sizesBytes[r]));
                QCOMPARE(plot->graph(c)->data()->at(r)->value, expected.values[c][r]);
            }
        }
        const ComparisonTableModel* model = view->tableModel(expected.metric);
        QCOMPARE(model->rowCount(), 17);
        QCOMPARE(model->data(model->index(16, 1), ComparisonTableModel::valueRole).toDouble(), expected.values[0][16]);
    }
}

QString TestResultsExport::cliReport(qint64 campaign, const QStringList& extra) {
    const QString cli = QDir(qEnvironmentVariable("SMCLAB_BIN_DIR")).filePath(QStringLiteral("smclab"));
    QProcess process;
    process.start(cli, QStringList{QStringLiteral("report"), QString::number(campaign), QStringLiteral("--format"),
                                   QStringLiteral("text"), QStringLiteral("--db"), m_db} +
                           extra);
    if (process.waitForFinished(20000) && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0) {
        return QString::fromUtf8(process.readAllStandardOutput());
    }
    qWarning("smclab report not available (%s): comparing with the report formatters directly",
             qPrintable(process.errorString() + QString::fromUtf8(process.readAllStandardError())));
    auto store = smclab::db::ResultStore::open(m_db);
    if (!store) return QStringLiteral("cannot open store");
    auto document = smclab::db::campaignReport(*store.value(), campaign, smclab::workloads::headlineMetricsByWorkload(),
                                               QDateTime::currentDateTimeUtc());
    if (!document) return QStringLiteral("no report");
    smclab::report::ReportDocument doc = document.value();
    if (!smclab::orchestrator::addCampaignAnalysis(*store.value(), campaign, doc)) return QStringLiteral("no analysis");
    if (extra.size() == 2) doc = smclab::report::withBaseline(doc, extra[1]).value();
    return smclab::report::render(doc, smclab::report::Format::text);
}

void TestResultsExport::textEqualsCliReport() {
    const QString gui = m_export->coverLetterText();
    QVERIFY(gui.startsWith(QStringLiteral("==== Bandwidth ====\n")));
    QVERIFY2(gui.contains(QStringLiteral("       1         0.578 MB/s      2.392 MB/s(313.84%)")), qPrintable(gui));
    QCOMPARE(gui, cliReport({}));
    m_export->copyToClipboard();
    QCOMPARE(QApplication::clipboard()->text(), gui);
}

void TestResultsExport::baselineChangeFollowsCliBaseline() {
    m_results->comparisonView()->setBaselineColumn(1);
    QCOMPARE(m_results->comparisonView()->baselineLabel(), QStringLiteral("TCP"));
    const QString gui = m_export->coverLetterText();
    QVERIFY2(gui.contains(QStringLiteral("MsgSize        TCP")), qPrintable(gui));
    QCOMPARE(gui, cliReport({QStringLiteral("--baseline"), QStringLiteral("TCP")}));
    m_results->comparisonView()->setBaselineColumn(0);
}

void TestResultsExport::filesAreWritten() {
    const QString csv = m_dir.filePath(QStringLiteral("out.csv"));
    const QString png = m_dir.filePath(QStringLiteral("out.png"));
    const QString pdf = m_dir.filePath(QStringLiteral("out.pdf"));
    const QString html = m_dir.filePath(QStringLiteral("out.html"));
    QVERIFY(m_export->saveCsv(csv));
    QVERIFY(m_export->savePng(png));
    QVERIFY(m_export->savePdf(pdf));
    QVERIFY(m_export->saveHtml(html));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QString csvText = QString::fromUtf8(csvFile.readAll());
    QCOMPARE(csvText, smclab::report::formatCsv(m_export->document().tables));
    // The CSV carries full precision: it reads back to the stored values.
    const auto tables = smclab::report::tablesFromCsv(csvText);
    QVERIFY(tables.ok());
    QCOMPARE(tables.value()[0].rows[0].cells[1].value.value(), 2.392);
    const QImage image(png);
    QCOMPARE(image.width(), 1000);
    QCOMPARE(image.height(), 2 * 520);
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.read(5) == "%PDF-");
    QVERIFY(QFileInfo(html).size() > 2000);
}

// A datapath campaign shows the shapes' verdicts above its plots and carries
// them in the document its exports render, as `smclab report` and `smclab
// bench stream` give them.
void TestResultsExport::showsTheDatapathShapes() {
    const ComparisonView* view = m_results->comparisonView();
    const QString verdicts = view->verdictsText();
    QVERIFY2(verdicts.startsWith(QStringLiteral("==== Shapes ====\n")), qPrintable(verdicts));
    const smclab::report::DetailTable* shapes = nullptr;
    for (const smclab::report::DetailTable& table : m_export->document().details) {
        if (table.title == QLatin1String("Shapes")) shapes = &table;
    }
    QVERIFY(shapes != nullptr);
    QCOMPARE(shapes->rows.size(), verdicts.count(QLatin1Char('\n')) - 1);
    const QStringList lines = verdicts.split(QLatin1Char('\n'));
    for (const smclab::report::DetailRow& row : shapes->rows) {
        const QString title = row.name.section(QStringLiteral(": "), 1);
        const auto line = std::find_if(lines.begin(), lines.end(), [&](const QString& l) { return l.contains(title); });
        QVERIFY2(line != lines.end() && line->startsWith(row.values[0] + QLatin1Char(' ')), qPrintable(row.name));
    }
    QFile html(m_dir.filePath(QStringLiteral("out.html")));
    QVERIFY(html.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(html.readAll()).contains(QStringLiteral("Shapes")));
}

void TestResultsExport::twoCampaignsSideBySide() {
    const qint64 second = testing::seedStore(m_db, QStringLiteral("seed000-again"));
    QVERIFY(second > 0);
    m_results->refresh();
    QCOMPARE(m_results->campaignTree()->topLevelItemCount(), 2);
    QVERIFY(m_results->showComparison(m_campaign, second));
    const QStringList columns = m_results->comparisonView()->comparison().columns();
    QCOMPARE(columns.size(), 6);
    QCOMPARE(columns[0], QStringLiteral("#%1 Origin SMC").arg(m_campaign));
    QCOMPARE(columns[3], QStringLiteral("#%1 Origin SMC").arg(second));
    // Identical stored values: every percentage of B's baseline against A's is 0.
    const ComparisonTableModel* model = m_results->comparisonView()->tableModel(Metric::bandwidth);
    QCOMPARE(model->data(model->index(5, 4), ComparisonTableModel::percentRole).toDouble(), 0.0);
}

// The analysis the bench commands print shows too: engine counters per 1000
// messages of the tcp_bw runs, and the p50 / p99 tables of a workload that
// stores them, as tabs with their values and in the document the exports render.
void TestResultsExport::showsCountersAndPercentiles() {
    auto opened = smclab::db::ResultStore::open(m_db);
    QVERIFY(opened.ok());
    smclab::db::ResultStore& store = *opened.value();
    smclab::db::NewCampaign campaign;
    campaign.name = QStringLiteral("counters and percentiles");
    const QStringList columns = {QStringLiteral("SMC"), QStringLiteral("TCP")};
    const QStringList transports = {QStringLiteral("smcr"), QStringLiteral("tcp")};
    for (qint64 size : {1024, 65536}) {
        for (int c = 0; c < 2; ++c)
            campaign.cells.append({QStringLiteral("tcp_bw"), transports[c], columns[c], size, 0});
    }
    for (int c = 0; c < 2; ++c) campaign.cells.append({QStringLiteral("kv:SET"), transports[c], columns[c], 10, 0});
    const auto id = store.createCampaign(campaign);
    QVERIFY(id.ok());
    for (const smclab::db::RunCell& cell : campaign.cells) {
        smclab::db::RunRecord record;
        record.campaignId = *id;
        record.cell = cell;
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.finishedAt = record.startedAt;
        const bool smc = cell.column == QLatin1String("SMC");
        if (cell.workload == QLatin1String("tcp_bw")) {
            record.results.insert(QStringLiteral("bw_mbps"), smc ? 2000.0 : 1000.0);
            // 1000 messages; the SMC engines send 2 CDCs per message at 1 KiB, 3 at 64 KiB.
            record.results.insert(QStringLiteral("recv_bytes"), 1000.0 * static_cast<double>(cell.msgSize));
            if (smc) {
                const qint64 cdcs = cell.msgSize == 1024 ? 2000 : 3000;
                record.counters = {{smcr::Side::client, QStringLiteral("smcr.cdc_sent"), cdcs / 4},
                                   {smcr::Side::server, QStringLiteral("smcr.cdc_sent"), cdcs - cdcs / 4}};
            }
        } else {
            record.results.insert(QStringLiteral("rps"), smc ? 90000.0 : 60000.0);
            record.results.insert(QStringLiteral("p50_us"), smc ? 110.0 : 160.0);
            record.results.insert(QStringLiteral("p99_us"), smc ? 410.0 : 620.0);
        }
        QVERIFY(store.recordRun(record).ok());
    }
    QVERIFY(store.updateCampaignStatus(*id, smclab::db::CampaignStatus::done).ok());
    m_results->refresh();
    QVERIFY(m_results->showCampaign(*id));

    // Each table as the view shows it: its tab's title and its cells' text.
    const ComparisonView* view = m_results->comparisonView();
    const auto* tabs = view->findChild<QTabWidget*>();
    QVERIFY(tabs != nullptr);
    auto shown = [tabs](const QString& title) -> const ComparisonTableModel* {
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->tabText(i) != title) continue;
            const auto* table = tabs->widget(i)->findChild<QTableView*>();
            return table != nullptr ? qobject_cast<const ComparisonTableModel*>(table->model()) : nullptr;
        }
        return nullptr;
    };
    const ComparisonTableModel* cdcs = shown(QStringLiteral("CDC messages sent per 1000 messages (tcp_bw)"));
    QVERIFY(cdcs != nullptr);
    QCOMPARE(cdcs->section().columns, columns);
    QCOMPARE(cdcs->section().sizesBytes, (QList<qint64>{1024, 65536}));
    QVERIFY2(cdcs->cellText(0, 0).startsWith(QStringLiteral("2000.000")), qPrintable(cdcs->cellText(0, 0)));
    QVERIFY2(cdcs->cellText(0, 1).startsWith(QStringLiteral("3000.000")), qPrintable(cdcs->cellText(0, 1)));
    QCOMPARE(cdcs->cellText(1, 0), QStringLiteral("-"));  // TCP has no engine counters
    const ComparisonTableModel* p50 = shown(QStringLiteral("SET p50 latency"));
    QVERIFY(p50 != nullptr);
    QCOMPARE(p50->section().sizesBytes, (QList<qint64>{10}));
    QVERIFY2(p50->cellText(0, 0).startsWith(QStringLiteral("110.000")), qPrintable(p50->cellText(0, 0)));
    QVERIFY2(p50->cellText(1, 0).startsWith(QStringLiteral("160.000")), qPrintable(p50->cellText(1, 0)));
    const ComparisonTableModel* p99 = shown(QStringLiteral("SET p99 latency"));
    QVERIFY(p99 != nullptr);
    QVERIFY2(p99->cellText(1, 0).startsWith(QStringLiteral("620.000")), qPrintable(p99->cellText(1, 0)));
    // tcp_bw stores no percentiles: no empty tables for it.
    QVERIFY(shown(QStringLiteral("tcp_bw p50 latency")) == nullptr);

    QStringList exported;
    for (const smclab::report::ComparisonTable& table : view->comparison().document.tables) exported << table.title;
    QVERIFY2(exported.contains(QStringLiteral("CDC messages sent per 1000 messages (tcp_bw)")),
             qPrintable(exported.join(", ")));
    QVERIFY2(exported.contains(QStringLiteral("SET p99 latency")), qPrintable(exported.join(", ")));
    // The same tables as `smclab report` prints.
    m_results->comparisonView()->setBaselineColumn(0);
    QCOMPARE(m_export->coverLetterText(), cliReport(*id, {}));
}

QTEST_MAIN(TestResultsExport)
#include "test_results_export.moc"
