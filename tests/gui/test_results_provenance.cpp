// Results tell where their numbers came from: a failed run shows its
// reason, a run with a live setting change is flagged in the list, in the
// comparison and in the exported report, a campaign whose runner went away
// is interrupted (resumable) and never "running", repetitions give error
// bars, and a run opens in the single-run view with its samples, markers,
// counters (non-zero first), settings and CSV export.
#include <cmath>

#include <QCheckBox>
#include <QLockFile>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "app/lab_context.h"
#include "data/run_detail.h"
#include "models/comparison_table_model.h"
#include "orchestrator/runner_lock.h"
#include "pages/export_page.h"
#include "pages/results_page.h"
#include "seed_store.h"
#include "smclab/db/result_store.h"
#include "smclab/report/formats.h"
#include "widgets/comparison_plot.h"
#include "widgets/comparison_view.h"
#include "widgets/run_view.h"

using namespace smclab;
using namespace smclab::gui;

class TestResultsProvenance : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void failedRunShowsItsReason();
    void liveChangeIsFlaggedInResultsAndReport();
    void wireAndHostLoadAreShown();
    void campaignWithoutRunnerIsInterrupted();
    void repetitionsGiveErrorBars();
    void runOpensInTheSingleRunView();
    void twoCampaignComparisonKeepsTheFlags();
    void compareWithOneCheckedSaysWhy();
    void fallenBackRunsAreShownAsTcp();
    void campaignWithEveryRunFailedIsFailed();
    void comparisonFollowsTheStore();
    void resumedCampaignNotesEveryWire();
    void runViewTabsStayPut();
    void cleanupTestCase() { delete m_page; }

private:
    QTemporaryDir m_dir;
    QString m_db;
    LabContext* m_lab = nullptr;
    ResultsPage* m_page = nullptr;
    qint64 m_liveCampaign = 0;
    qint64 m_interrupted = 0;
    qint64 m_other = 0;
    qint64 m_changedRun = 0;
    qint64 m_failedRun = 0;
    qint64 m_fellBack = 0;  // an SMC column whose connection fell back to TCP
    qint64 m_fellBackRun = 0;
    qint64 m_allFailed = 0;  // every run failed
    qint64 m_resumed = 0;    // resumed on a relaunched lab with another wire
};

namespace {

db::RunCell cell(const QString& transport, const QString& column, int repetition) {
    return {QStringLiteral("tcp_bw"), transport, column, 64, repetition};
}

}  // namespace

void TestResultsProvenance::initTestCase() {
    QVERIFY(m_dir.isValid());
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    m_db = m_dir.filePath(QStringLiteral("results.db"));
    {
        auto opened = db::ResultStore::open(m_db);
        QVERIFY(opened);
        db::ResultStore& store = *opened.value();
        db::NewCampaign campaign;
        campaign.name = QStringLiteral("live toggles");
        const QList<db::RunCell> cells = {cell(QStringLiteral("smcr"), QStringLiteral("SMC"), 0),
                                          cell(QStringLiteral("smcr"), QStringLiteral("SMC"), 1),
                                          cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 0),
                                          cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 1)};
        campaign.cells = cells;
        auto id = store.createCampaign(campaign);
        QVERIFY(id);
        m_liveCampaign = id.value();
        const double bw[] = {100.0, 120.0, 80.0};
        for (int i = 0; i < 3; ++i) {
            db::RunRecord record;
            record.campaignId = m_liveCampaign;
            record.cell = cells[i];
            record.startedAt = QDateTime::currentDateTimeUtc();
            record.finishedAt = record.startedAt;
            record.results.insert(QStringLiteral("bw_mbps"), bw[i]);
            record.settings.insert(QStringLiteral("autocorking_size"), QStringLiteral("65536"));
            record.settings.insert(QStringLiteral("transport"), cells[i].transport);
            if (i == 0) {
                for (int t = 0; t < 10; ++t) {
                    const qint64 ms = 100 * (t + 1);
                    record.samples.append({ms, QStringLiteral("throughput_mbps"), t < 5 ? 120.0 : 60.0});
                    record.samples.append({ms, QStringLiteral("latency_mean_us"), 10.0 + t});
                    record.samples.append({ms, QStringLiteral("latency_p99_us"), 20.0 + t});
                    record.samples.append({ms, QStringLiteral("cpu_client_pct"), 50.0});
                }
                // Zeros named to sort first alphabetically: the view must still put the non-zero first.
                record.counters = {{smcr::Side::client, QStringLiteral("aaa_zero"), 0},
                                   {smcr::Side::client, QStringLiteral("abort_zero"), 0},
                                   {smcr::Side::client, QStringLiteral("rdma_writes"), 4200},
                                   {smcr::Side::server, QStringLiteral("cdc_msgs_sent"), 17}};
                record.settingChanges = {{550, QStringLiteral("autocorking_size"), QStringLiteral("0")}};
            }
            if (i == 1) {
                // What the orchestrator records: the local lab's wire, the host-load verdict.
                record.clientFacts = {
                    {QStringLiteral("wire.model"), QStringLiteral("cx4-25g")},
                    {QStringLiteral("wire.bandwidth_gbps"), QStringLiteral("25")},
                    {QStringLiteral("wire.latency_ns"), QStringLiteral("1500")},
                    {QStringLiteral("wire.tcp_path"), QStringLiteral("loopback")},
                    {QStringLiteral("wire.tcp_rate"), QStringLiteral("unshaped")},
                    {QStringLiteral("wire"), QStringLiteral("TCP over loopback, unshaped: not root")},
                    {QStringLiteral("host_state.busy"), QStringLiteral("yes")},
                    {QStringLiteral("host_state.busy_reason"), QStringLiteral("other processes took 80% of a core")}};
            }
            auto run = store.recordRun(record);
            QVERIFY(run);
            if (i == 0) m_changedRun = run.value();
        }
        auto failed = store.markRunFailed(m_liveCampaign, cells[3],
                                          QStringLiteral("agent 127.0.0.1:7601 lost: connection reset by peer"));
        QVERIFY(failed);
        m_failedRun = failed.value();
        QVERIFY(store.updateCampaignStatus(m_liveCampaign, db::CampaignStatus::done));

        // A campaign whose runner was killed: stored as running, no lock held.
        db::NewCampaign orphan;
        orphan.name = QStringLiteral("killed runner");
        orphan.cells = {cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 0)};
        auto orphanId = store.createCampaign(orphan);
        QVERIFY(orphanId);
        m_interrupted = orphanId.value();
        QVERIFY(store.updateCampaignStatus(m_interrupted, db::CampaignStatus::running));

        // A second finished campaign to compare with.
        db::NewCampaign other;
        other.name = QStringLiteral("other");
        other.cells = {cell(QStringLiteral("smcr"), QStringLiteral("SMC"), 0)};
        auto otherId = store.createCampaign(other);
        QVERIFY(otherId);
        m_other = otherId.value();
        db::RunRecord record;
        record.campaignId = m_other;
        record.cell = other.cells.front();
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.finishedAt = record.startedAt;
        record.results.insert(QStringLiteral("bw_mbps"), 90.0);
        QVERIFY(store.recordRun(record));
        QVERIFY(store.updateCampaignStatus(m_other, db::CampaignStatus::done));

        // An smcr column whose client fell back (a plain TCP server
        // behind it), as libsmcr's engine and transport count it.
        db::NewCampaign fellBack;
        fellBack.name = QStringLiteral("fell back");
        fellBack.cells = {cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 0),
                          cell(QStringLiteral("smcr"), QStringLiteral("SMC"), 0)};
        auto fellBackId = store.createCampaign(fellBack);
        QVERIFY(fellBackId);
        m_fellBack = fellBackId.value();
        for (const db::RunCell& c : fellBack.cells) {
            db::RunRecord r;
            r.campaignId = m_fellBack;
            r.cell = c;
            r.startedAt = QDateTime::currentDateTimeUtc();
            r.finishedAt = r.startedAt;
            r.results.insert(QStringLiteral("bw_mbps"), c.transport == QLatin1String("tcp") ? 100.0 : 98.0);
            if (c.transport == QLatin1String("smcr")) {
                r.counters = {{smcr::Side::client, QStringLiteral("smcr.clnt_success"), 0},
                              {smcr::Side::client, QStringLiteral("smcr.clnt_fallbacks"), 1},
                              {smcr::Side::client, QStringLiteral("smcr.fallback.client.PEERNOSMC"), 1},
                              {smcr::Side::client, QStringLiteral("smcr.tx_bytes"), 0},
                              {smcr::Side::client, QStringLiteral("smcr.tcp_tx_bytes"), 4'000'000},
                              {smcr::Side::client, QStringLiteral("smcr.tcp_rx_bytes"), 64}};
            }
            auto run = store.recordRun(r);
            QVERIFY(run);
            if (c.transport == QLatin1String("smcr")) m_fellBackRun = run.value();
        }
        QVERIFY(store.updateCampaignStatus(m_fellBack, db::CampaignStatus::done));

        // A campaign in which every run failed (stored as
        // done by an orchestrator before it called such campaigns failed).
        db::NewCampaign allFailed;
        allFailed.name = QStringLiteral("nothing ran");
        allFailed.cells = {cell(QStringLiteral("smcr"), QStringLiteral("SMC"), 0),
                           cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 0)};
        auto allFailedId = store.createCampaign(allFailed);
        QVERIFY(allFailedId);
        m_allFailed = allFailedId.value();
        for (const db::RunCell& c : allFailed.cells)
            QVERIFY(store.markRunFailed(m_allFailed, c, QStringLiteral("transport smcr is not available")));
        QVERIFY(store.updateCampaignStatus(m_allFailed, db::CampaignStatus::done));

        // Resumed on a relaunched lab whose veth measured less.
        db::NewCampaign resumed;
        resumed.name = QStringLiteral("resumed");
        resumed.cells = {cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 0),
                         cell(QStringLiteral("tcp"), QStringLiteral("TCP"), 1)};
        auto resumedId = store.createCampaign(resumed);
        QVERIFY(resumedId);
        m_resumed = resumedId.value();
        for (int i = 0; i < 2; ++i) {
            db::RunRecord r;
            r.campaignId = m_resumed;
            r.cell = resumed.cells[i];
            r.startedAt = QDateTime::currentDateTimeUtc().addSecs(i * 60);
            r.finishedAt = r.startedAt;
            r.results.insert(QStringLiteral("bw_mbps"), 100.0);
            r.clientFacts = {
                {QStringLiteral("wire.model"), QStringLiteral("cx4-25g")},
                {QStringLiteral("wire"),
                 i == 0 ? QStringLiteral("veth measured 10.08 Gbit/s") : QStringLiteral("veth measured 8.45 Gbit/s")},
                {QStringLiteral("session.started"),
                 i == 0 ? QStringLiteral("2026-12-01T10:00:00Z") : QStringLiteral("2026-12-01T11:00:00Z")},
                {QStringLiteral("session.resumed"), i == 0 ? QStringLiteral("no") : QStringLiteral("yes")}};
            QVERIFY(store.recordRun(r));
        }
        QVERIFY(store.updateCampaignStatus(m_resumed, db::CampaignStatus::done));
    }
    m_lab = new LabContext(this);
    m_lab->setDatabasePath(m_db);
    connect(m_lab, &LabContext::errorReported, this,
            [](const QString& text) { qWarning("error shown: %s", qPrintable(text)); });
    m_page = new ResultsPage(m_lab);
    m_page->resize(1160, 760);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
    m_page->expandCampaign(m_liveCampaign);
}

void TestResultsProvenance::failedRunShowsItsReason() {
    const QString notes = m_page->notesText(m_liveCampaign, m_failedRun);
    QVERIFY2(notes.contains(QStringLiteral("connection reset by peer")), qPrintable(notes));
}

void TestResultsProvenance::liveChangeIsFlaggedInResultsAndReport() {
    const QString runNotes = m_page->notesText(m_liveCampaign, m_changedRun);
    QVERIFY2(runNotes.contains(QStringLiteral("autocorking_size=0 at 0.55 s")), qPrintable(runNotes));
    QVERIFY2(m_page->notesText(m_liveCampaign).contains(QStringLiteral("1 run(s) with live setting changes")),
             qPrintable(m_page->notesText(m_liveCampaign)));
    QVERIFY(m_page->showCampaign(m_liveCampaign));
    const QString notice = m_page->comparisonView()->noticeText();
    QVERIFY2(notice.contains(QStringLiteral("changed settings live (column(s) SMC)")), qPrintable(notice));
    // The value that mixes configurations carries the flag in the table.
    const ComparisonTableModel* model = m_page->comparisonView()->tableModel(Metric::bandwidth);
    QVERIFY(model->data(model->index(0, 1)).toString().startsWith(QStringLiteral("\u2691 ")));
    QVERIFY(!model->data(model->index(0, 2)).toString().startsWith(QStringLiteral("\u2691 ")));

    ExportPage exporter(m_lab);
    exporter.setSource(m_page->comparisonView());
    const QString path = m_dir.filePath(QStringLiteral("report.html"));
    QVERIFY(exporter.saveHtml(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(file.readAll());
    QVERIFY2(html.contains(QStringLiteral("Live setting changes")), "no live-change section in the HTML report");
    QVERIFY(html.contains(QStringLiteral("autocorking_size=0 at 0.55 s")));
    QVERIFY(html.contains(QStringLiteral("changed settings live")));

    // The CSV and text exports flag the value too.
    const QString csvPath = m_dir.filePath(QStringLiteral("report.csv"));
    QVERIFY(exporter.saveCsv(csvPath));
    QFile csvFile(csvPath);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QString csvText = QString::fromUtf8(csvFile.readAll());
    QVERIFY2(csvText.section(QLatin1Char('\n'), 0, 0).contains(QStringLiteral(",live_changed_repetitions,")),
             qPrintable(csvText.section(QLatin1Char('\n'), 0, 0)));
    const auto tables = smclab::report::tablesFromCsv(csvText);
    QVERIFY(tables.ok());
    int flaggedCells = 0;
    for (const auto& table : *tables) {
        for (const auto& row : table.rows) {
            for (qsizetype c = 0; c < row.cells.size(); ++c) {
                if (row.cells[c].liveChangedRepetitions == 0) continue;
                ++flaggedCells;
                QCOMPARE(table.columns[c], QStringLiteral("SMC"));
                QCOMPARE(row.msgSize, 64);
            }
        }
    }
    QCOMPARE(flaggedCells, 1);
    const QString text = exporter.coverLetterText();
    QVERIFY2(text.contains(QStringLiteral("live change 1/2")), qPrintable(text));
}

void TestResultsProvenance::wireAndHostLoadAreShown() {
    m_page->refresh();
    const QString notes = m_page->notesText(m_liveCampaign);
    QVERIFY2(notes.contains(QStringLiteral("wire cx4-25g")), qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral("1 of 1 runs on a busy host")), qPrintable(notes));
    m_page->expandCampaign(m_liveCampaign);
    QTreeWidgetItem* busyRun = m_page->campaignTree()->topLevelItem(0);
    for (int i = 0; i < m_page->campaignTree()->topLevelItemCount(); ++i) {
        if (m_page->campaignTree()->topLevelItem(i)->text(0).contains(QStringLiteral("live toggles")))
            busyRun = m_page->campaignTree()->topLevelItem(i)->child(1);
    }
    QVERIFY(busyRun != nullptr);
    QVERIFY2(busyRun->text(4).contains(QStringLiteral("busy host: other processes took 80% of a core")),
             qPrintable(busyRun->text(4)));
    m_page->campaignTree()->setCurrentItem(busyRun);
    QVERIFY(m_page->runViewShown());
    const QString environment = m_page->runView()->environmentText();
    QVERIFY2(environment.contains(QStringLiteral("Wire: SMC link cx4-25g (25 Gbit/s, 1500 ns one way); TCP over "
                                                 "loopback, unshaped")),
             qPrintable(environment));
    QVERIFY2(environment.contains(QStringLiteral("Host: busy host: other processes took 80% of a core")),
             qPrintable(environment));
}

void TestResultsProvenance::campaignWithoutRunnerIsInterrupted() {
    m_page->refresh();
    QCOMPARE(m_page->statusText(m_interrupted), QStringLiteral("interrupted"));
    QTreeWidget* tree = m_page->campaignTree();
    QTreeWidgetItem* item = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        if (tree->topLevelItem(i)->text(0).contains(QStringLiteral("killed runner"))) item = tree->topLevelItem(i);
    }
    QVERIFY(item != nullptr);
    tree->setCurrentItem(item);
    QVERIFY(m_page->canResumeSelected());
    {
        // A live runner (this process holds the lock, as the orchestrator does): running, not resumable.
        auto runnerStore = db::ResultStore::open(m_db);
        QVERIFY(runnerStore);
        const auto lock = orchestrator::takeRunnerLock(**runnerStore, m_interrupted);
        QVERIFY(lock != nullptr);
        m_page->refresh();
        QCOMPARE(m_page->statusText(m_interrupted), QStringLiteral("running"));
        QVERIFY(!m_page->canResumeSelected());
    }
    m_page->refresh();
    QCOMPARE(m_page->statusText(m_interrupted), QStringLiteral("interrupted"));
    QCOMPARE(orchestrator::campaignRunnerPresence(*m_lab->store(), m_interrupted), orchestrator::RunnerPresence::none);
}

void TestResultsProvenance::repetitionsGiveErrorBars() {
    QVERIFY(m_page->showCampaign(m_liveCampaign));
    ComparisonPlot* plot = m_page->comparisonView()->plot(Metric::bandwidth);
    QVERIFY(plot != nullptr);
    QCOMPARE(plot->errorBarCount(), 1);  // SMC at 64 B: two repetitions, 100 and 120 MB/s
    const ComparisonTableModel* model = m_page->comparisonView()->tableModel(Metric::bandwidth);
    const QString text = model->data(model->index(0, 1)).toString();
    // The order-statistic interval of the median of two runs is [min, max]
    // at 50% confidence, not the spread.
    QCOMPARE(text, QStringLiteral("\u2691 110.000 [100.0, 120.0] busy"));  // rep 1 ran on a busy host
    const QString tip = model->data(model->index(0, 1), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("CI of the median [100.0, 120.0] over 2 runs, 50.0% confidence")),
             qPrintable(tip));
}

void TestResultsProvenance::runOpensInTheSingleRunView() {
    m_page->refresh();
    m_page->expandCampaign(m_liveCampaign);
    QTreeWidgetItem* item = m_page->runItem(m_liveCampaign, m_changedRun);
    QVERIFY(item != nullptr);
    m_page->campaignTree()->setCurrentItem(item);
    QVERIFY(m_page->runViewShown());
    RunView* view = m_page->runView();
    QVERIFY2(view->titleText().contains(QStringLiteral("SMC / 64 B / rep 1")), qPrintable(view->titleText()));
    QCOMPARE(view->plot()->graphCount(), 4);  // throughput, mean, p99, CPU
    QCOMPARE(view->markerCount(), 1);
    QCOMPARE(view->countersTable()->item(0, 2)->text(), QLocale().toString(qint64{4200}));
    QCOMPARE(view->countersTable()->item(1, 2)->text(), QStringLiteral("17"));
    QCOMPARE(view->countersTable()->item(2, 2)->text(), QStringLiteral("0"));
    QVERIFY(view->settingsTable()->rowCount() >= 2);
    QVERIFY(view->errorText().isEmpty());

    const QString csvPath = m_dir.filePath(QStringLiteral("run.csv"));
    QString error;
    QVERIFY2(view->saveCsv(csvPath, &error), qPrintable(error));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    // MB/s named as such, the live change at its time.
    QCOMPARE(lines.size(), 12);
    QCOMPARE(lines.front(),
             QStringLiteral("t_ms,throughput_MBps,latency_mean_us,latency_p99_us,cpu_client_pct,live_change"));
    QCOMPARE(lines.at(1), QStringLiteral("100,120,10,20,50,"));
    QVERIFY2(lines.contains(QStringLiteral("550,,,,,autocorking_size=0")), qPrintable(lines.join(QLatin1Char('\n'))));

    // A failed run: its reason, in the view too.
    m_page->campaignTree()->setCurrentItem(m_page->runItem(m_liveCampaign, m_failedRun));
    QVERIFY2(view->errorText().contains(QStringLiteral("connection reset by peer")), qPrintable(view->errorText()));
    // Back to the campaign: the comparison again.
    m_page->campaignTree()->setCurrentItem(item->parent());
    QVERIFY(!m_page->runViewShown());
}

void TestResultsProvenance::twoCampaignComparisonKeepsTheFlags() {
    QVERIFY(m_page->showComparison(m_liveCampaign, m_other));
    QVERIFY(!m_page->comparisonView()->noticeText().isEmpty());
    const ComparisonTableModel* model = m_page->comparisonView()->tableModel(Metric::bandwidth);
    QVERIFY(model != nullptr);
    bool flagged = false;
    for (int c = 1; c < model->columnCount(); ++c) {
        if (model->headerData(c, Qt::Horizontal).toString().startsWith(QStringLiteral("#%1 SMC").arg(m_liveCampaign)))
            flagged = model->data(model->index(0, c)).toString().startsWith(QStringLiteral("\u2691 "));
    }
    QVERIFY(flagged);
}

void TestResultsProvenance::compareWithOneCheckedSaysWhy() {
    m_page->refresh();
    QTreeWidget* tree = m_page->campaignTree();
    tree->topLevelItem(0)->setCheckState(0, Qt::Checked);
    QSignalSpy infos(m_lab, &LabContext::infoReported);
    QPushButton* compare = nullptr;
    for (QPushButton* button : m_page->findChildren<QPushButton*>()) {
        if (button->text() == QStringLiteral("Compare checked")) compare = button;
    }
    QVERIFY(compare != nullptr);
    compare->click();
    QCOMPARE(infos.count(), 1);
    QVERIFY2(infos.front().front().toString().contains(QStringLiteral("tick exactly two")),
             qPrintable(infos.front().front().toString()));
    QVERIFY2(m_page->hintText().contains(QStringLiteral("One campaign checked")), qPrintable(m_page->hintText()));
}

// The Results table, the run list and the
// single-run view say that the SMC column ran over TCP, and why.
void TestResultsProvenance::fallenBackRunsAreShownAsTcp() {
    m_page->refresh();
    QVERIFY(m_page->showCampaign(m_fellBack));
    const ComparisonTableModel* model = m_page->comparisonView()->tableModel(Metric::bandwidth);
    QVERIFY(model != nullptr);
    QCOMPARE(model->headerData(2, Qt::Horizontal).toString(), QStringLiteral("SMC"));
    QCOMPARE(model->data(model->index(0, 2)).toString(), QStringLiteral("98.000 [TCP]"));
    QVERIFY(std::isnan(model->data(model->index(0, 2), ComparisonTableModel::percentRole).toDouble()));
    QVERIFY2(model->data(model->index(0, 2), Qt::ToolTipRole).toString().contains(QStringLiteral("PEERNOSMC")),
             qPrintable(model->data(model->index(0, 2), Qt::ToolTipRole).toString()));
    m_page->expandCampaign(m_fellBack);
    const QString notes = m_page->notesText(m_fellBack, m_fellBackRun);
    QVERIFY2(notes.contains(QStringLiteral("over TCP, not SMC-R: SMC-R 0 of 1 connections, fell back: PEERNOSMC")),
             qPrintable(notes));
    QTreeWidgetItem* item = m_page->runItem(m_fellBack, m_fellBackRun);
    QVERIFY(item != nullptr);
    m_page->campaignTree()->setCurrentItem(item);
    QVERIFY(m_page->runViewShown());
    const QString connections = m_page->runView()->connectionsText();
    QVERIFY2(connections.contains(QStringLiteral("Over TCP, not SMC-R: SMC-R 0 of 1 connections, fell back: "
                                                 "PEERNOSMC; 0.0% of 4000064 bytes over RDMA")),
             qPrintable(connections));
    // A TCP run has nothing to say about SMC.
    m_page->campaignTree()->setCurrentItem(item->parent()->child(0));
    QVERIFY(m_page->runView()->connectionsText().isEmpty());
}

void TestResultsProvenance::campaignWithEveryRunFailedIsFailed() {
    m_page->refresh();
    QCOMPARE(m_page->statusText(m_allFailed), QStringLiteral("failed"));
    QCOMPARE(m_page->statusText(m_other), QStringLiteral("done"));
}

// Runs a resumed campaign adds after it was shown appear
// at the next refresh (the Run page refreshes the page when a campaign ends).
void TestResultsProvenance::comparisonFollowsTheStore() {
    m_page->refresh();
    QVERIFY(m_page->showCampaign(m_other));
    QCOMPARE(m_page->comparisonView()->tableModel(Metric::bandwidth)->rowCount(), 1);
    {
        auto runner = db::ResultStore::open(m_db);
        QVERIFY(runner);
        db::RunRecord record;
        record.campaignId = m_other;
        record.cell = {QStringLiteral("tcp_bw"), QStringLiteral("smcr"), QStringLiteral("SMC"), 4096, 0};
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.finishedAt = record.startedAt;
        record.results.insert(QStringLiteral("bw_mbps"), 900.0);
        QVERIFY((*runner)->recordRun(record));
    }
    m_page->refresh();
    const ComparisonTableModel* model = m_page->comparisonView()->tableModel(Metric::bandwidth);
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->data(model->index(1, 1)).toString(), QStringLiteral("900.000"));
}

void TestResultsProvenance::resumedCampaignNotesEveryWire() {
    m_page->refresh();
    const QString notes = m_page->notesText(m_resumed);
    QVERIFY2(notes.contains(QStringLiteral("2 different wires")), qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral("resumed (2 sessions, the last from 2026-12-01T11:00:00Z)")),
             qPrintable(notes));
    // The report the Export page writes lists both wires and the sessions.
    QVERIFY(m_page->showCampaign(m_resumed));
    const QString md = smclab::report::formatMarkdown(m_page->comparisonView()->comparison().document);
    QVERIFY2(md.contains(QStringLiteral("2 different wires: veth measured 10.08 Gbit/s (1 run); veth measured 8.45 "
                                        "Gbit/s (1 run)")),
             qPrintable(md));
    QVERIFY2(md.contains(QStringLiteral("**session 2**: resumed ")), qPrintable(md));
}

// Selecting a run without a live change after one with
// it leaves the plot and the tabs where they were.
void TestResultsProvenance::runViewTabsStayPut() {
    m_page->refresh();
    m_page->expandCampaign(m_liveCampaign);
    QTreeWidgetItem* changed = m_page->runItem(m_liveCampaign, m_changedRun);
    QVERIFY(changed != nullptr);
    QTreeWidgetItem* plain = changed->parent()->child(2);  // TCP, rep 1: no change, no wire facts
    RunView* view = m_page->runView();
    const auto tabsY = [&] {
        view->layout()->activate();
        QCoreApplication::processEvents();
        return view->countersTable()->mapTo(view, QPoint(0, 0)).y();
    };
    m_page->campaignTree()->setCurrentItem(changed);
    const int withChange = tabsY();
    m_page->campaignTree()->setCurrentItem(plain);
    QVERIFY2(view->titleText().contains(QStringLiteral("TCP")), qPrintable(view->titleText()));
    QCOMPARE(tabsY(), withChange);
}

QTEST_MAIN(TestResultsProvenance)
#include "test_results_provenance.moc"
