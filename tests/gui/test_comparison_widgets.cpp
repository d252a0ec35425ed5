// The comparison table model and plots hold the values they are given, with
// the cover-letter percentages, colours and hover texts.
#include <cmath>

#include <QBrush>
#include <QCheckBox>
#include <QtTest>

#include "data/series_palette.h"
#include "models/comparison_table_model.h"
#include "models/counter_table_model.h"
#include "seed_comparison.h"
#include "smclab/report/formats.h"
#include "widgets/comparison_plot.h"
#include "widgets/comparison_view.h"

using namespace smclab::gui;

class TestComparisonWidgets : public QObject {
    Q_OBJECT
private slots:
    void modelShowsCoverLetterCells();
    void baselineChangeRecomputesPercentages();
    void latencyColoursLowerIsBetter();
    void plotHoldsEveryStoredValue();
    void bandwidthSweepDefaultsToLogAxis();
    void hoverTextNamesValueAndPercent();
    void viewSharesBaselineAcrossMetrics();
    void intervalsMakeErrorBarsAndNoise();
    void paletteIsTheReports();
    void fallenBackValuesAreMarked();
    void counterRatesNeverGoNegative();
};

void TestComparisonWidgets::modelShowsCoverLetterCells() {
    ComparisonTableModel model;
    model.setSection(testing::seedComparison().sections[0]);
    QCOMPARE(model.rowCount(), 17);
    QCOMPARE(model.columnCount(), 4);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("MsgSize | MB/s"));
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Origin SMC (base)"));
    QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("1"));
    QCOMPARE(model.data(model.index(0, 1)).toString(), QStringLiteral("0.578"));
    // Computed from the printed (rounded) baseline, as the stored value here is 0.578; the unit is
    // in the first header, every change carries its sign.
    QCOMPARE(model.data(model.index(0, 2)).toString(), QStringLiteral("2.392 (+313.84%)"));
    QCOMPARE(model.data(model.index(11, 2)).toString(), QStringLiteral("1865.952 (+70.38%)"));
    QCOMPARE(model.data(model.index(13, 2)).toString(), QStringLiteral("2733.073 (-26.47%)"));
    QCOMPARE(model.data(model.index(16, 3)).toString(), QStringLiteral("5245.021 (+1.59%)"));
    QCOMPARE(model.data(model.index(16, 3), ComparisonTableModel::valueRole).toDouble(), 5245.021);
}

void TestComparisonWidgets::baselineChangeRecomputesPercentages() {
    ComparisonTableModel model;
    model.setSection(testing::seedComparison().sections[0]);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setBaselineColumn(1);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("TCP (base)"));
    QCOMPARE(model.data(model.index(0, 2)).toString(), QStringLiteral("2.392"));
    const double pct = model.data(model.index(0, 1), ComparisonTableModel::percentRole).toDouble();
    QVERIFY(std::abs(pct - (0.578 / 2.392 - 1.0) * 100.0) < 1e-9);
    model.setBaselineColumn(7);  // out of range: ignored
    QCOMPARE(model.baselineColumn(), 1);
}

void TestComparisonWidgets::latencyColoursLowerIsBetter() {
    ComparisonTableModel model;
    model.setSection(testing::seedComparison().sections[1]);
    // 65536 B: TCP 73.003 us vs 34.192 us is +113.51%, printed with its sign, coloured as worse.
    QCOMPARE(model.data(model.index(16, 2)).toString(), QStringLiteral("73.003 (+113.51%)"));
    const QColor worse = model.data(model.index(16, 2), Qt::ForegroundRole).value<QBrush>().color();
    // 2 B: patches 10.073 vs 10.996 is -8.39%: better.
    const QColor better = model.data(model.index(1, 3), Qt::ForegroundRole).value<QBrush>().color();
    QVERIFY(worse.red() > worse.green());
    QVERIFY(better.green() > better.red());
    // Below 1% stays uncoloured (16384 B: +0.30%).
    QVERIFY(!model.data(model.index(14, 3), Qt::ForegroundRole).isValid());
}

void TestComparisonWidgets::plotHoldsEveryStoredValue() {
    ComparisonPlot plot;
    plot.resize(800, 500);
    const ComparisonSection section = testing::seedComparison().sections[0];
    plot.setSection(section, 0);
    QCOMPARE(plot.graphCount(), 3);
    QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
    for (int c = 0; c < 3; ++c) {
        QCPGraph* graph = plot.graph(c);
        QCOMPARE(graph->dataCount(), 17);
        for (int r = 0; r < 17; ++r) {
            const auto it = graph->data()->at(r);
            QCOMPARE(it->key, static_cast<double>(section.sizesBytes[r]));
            QCOMPARE(it->value, section.values[c][r]);
        }
    }
    QCOMPARE(plot.graph(0)->name(), QStringLiteral("Origin SMC (base)"));
}

void TestComparisonWidgets::bandwidthSweepDefaultsToLogAxis() {
    // 1 B..64 KiB: 1 B results of a few MB/s vanish on a linear axis.
    ComparisonPlot plot;
    plot.resize(800, 500);
    plot.setSection(testing::seedComparison().sections[0], 0);
    QVERIFY(plot.logScale());
    QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(plot.yAxis->range().lower > 0.0 && plot.yAxis->range().lower < 0.578);
    QVERIFY(plot.yAxis->label().contains(QStringLiteral("log")));
    plot.setLogScale(false);
    QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLinear);
    // Latency keeps its linear axis.
    ComparisonPlot latency;
    latency.setSection(testing::seedComparison().sections[1], 0);
    QVERIFY(!latency.logScale());
    // The view's switch acts on the metric on show.
    ComparisonView view;
    view.resize(1100, 600);
    view.setComparison(testing::seedComparison());
    view.showMetric(Metric::bandwidth);
    QVERIFY(view.logScaleBox()->isChecked());
    view.logScaleBox()->setChecked(false);
    QVERIFY(!view.plot(Metric::bandwidth)->logScale());
    view.showMetric(Metric::latency);
    QVERIFY(!view.logScaleBox()->isChecked());
    QVERIFY2(view.hintText().startsWith(QStringLiteral("Latency: lower is better")), qPrintable(view.hintText()));
    view.showMetric(Metric::bandwidth);
    QVERIFY2(view.hintText().startsWith(QStringLiteral("Bandwidth: higher is better")), qPrintable(view.hintText()));
}

void TestComparisonWidgets::hoverTextNamesValueAndPercent() {
    ComparisonPlot plot;
    plot.resize(800, 500);
    plot.setSection(testing::seedComparison().sections[0], 0);
    plot.replot();
    const QPointF at(plot.xAxis->coordToPixel(65536.0), plot.yAxis->coordToPixel(3731.408));
    const QString text = plot.tooltipAt(at);
    QVERIFY2(text.contains(QStringLiteral("TCP")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("3731.408 MB/s")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("-27.73%")), qPrintable(text));
    QVERIFY(plot.tooltipAt(QPointF(-100, -100)).isEmpty());
}

void TestComparisonWidgets::viewSharesBaselineAcrossMetrics() {
    ComparisonView view;
    view.resize(1100, 600);
    view.setComparison(testing::seedComparison());
    QSignalSpy spy(&view, &ComparisonView::baselineChanged);
    view.setBaselineColumn(2);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(view.tableModel(Metric::bandwidth)->baselineColumn(), 2);
    QCOMPARE(view.tableModel(Metric::latency)->baselineColumn(), 2);
    QCOMPARE(view.plot(Metric::latency)->graph(2)->name(), QStringLiteral("SMC with patches (base)"));
}

namespace {

// Bandwidth of two columns at two sizes from repetitions: at 64 B the
// columns overlap (a change inside the noise), at 1024 B they do not.
smclab::report::ComparisonTable repeatedTable() {
    using smclab::report::cellFromRepetitions;
    smclab::report::ComparisonTable table;
    table.title = QStringLiteral("Bandwidth");
    table.metric = QStringLiteral("bw_mbps");
    table.unit = QStringLiteral("MB/s");
    table.columns = {QStringLiteral("TCP"), QStringLiteral("SMC")};
    table.rows.append(
        {64, {cellFromRepetitions({10, 11, 12, 13, 14}), cellFromRepetitions({10.5, 11.5, 12.5, 13.5, 14.5})}});
    table.rows.append(
        {1024, {cellFromRepetitions({100, 101, 102, 103, 104}), cellFromRepetitions({200, 201, 202, 203, 204})}});
    return table;
}

}  // namespace

void TestComparisonWidgets::intervalsMakeErrorBarsAndNoise() {
    const ComparisonSection section = sectionFromTable(repeatedTable());
    const auto interval = section.interval(1, 1);
    QVERIFY(interval.has_value());
    QCOMPARE(interval->low, 200.0);  // five runs: [min, max] is the order-statistic interval
    QCOMPARE(interval->high, 204.0);

    ComparisonTableModel model;
    model.setSection(section);
    // The table shows the interval of the median, not the spread.
    QCOMPARE(model.data(model.index(1, 2)).toString(), QStringLiteral("202.000 [200.0, 204.0] (+98.04%)"));
    QVERIFY(model.data(model.index(1, 2), Qt::ToolTipRole).toString().contains(QStringLiteral("over 5 runs")));
    QVERIFY2(model.data(model.index(1, 2), Qt::ToolTipRole).toString().contains(QStringLiteral("higher")),
             qPrintable(model.data(model.index(1, 2), Qt::ToolTipRole).toString()));
    // The tooltip's percentage is the cell's, to the same digits.
    QVERIFY2(model.data(model.index(1, 2), Qt::ToolTipRole).toString().contains(QStringLiteral(": +98.04%")),
             qPrintable(model.data(model.index(1, 2), Qt::ToolTipRole).toString()));
    // +4.17% at 64 B, but its interval contains 0 %: grey, said in the tooltip.
    const QColor noise = model.data(model.index(0, 2), Qt::ForegroundRole).value<QBrush>().color();
    QCOMPARE(noise, QColor(0x77, 0x77, 0x77));
    QVERIFY(model.data(model.index(0, 2), Qt::ToolTipRole).toString().contains(QStringLiteral("within noise")));
    // A value measured partly on a busy host says so.
    smclab::report::ComparisonTable busy = repeatedTable();
    busy.rows[0].cells[0].busyRepetitions = 2;
    model.setSection(sectionFromTable(busy));
    QCOMPARE(model.data(model.index(0, 1)).toString(), QStringLiteral("12.000 [10.00, 14.00] busy"));
    QVERIFY(model.data(model.index(0, 1), Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("2 of 5 runs ran on a busy host")));
    model.setSection(section);

    // Error bars from the interval, asymmetric around the median.
    ComparisonPlot plot;
    plot.resize(800, 500);
    plot.setSection(section, 0);
    QCOMPARE(plot.errorBarCount(), 4);
    QCPErrorBars* bars = nullptr;
    for (int i = 0; i < plot.plottableCount(); ++i) {
        if (auto* b = qobject_cast<QCPErrorBars*>(plot.plottable(i)); b && b->dataPlottable() == plot.graph(1))
            bars = b;
    }
    QVERIFY(bars != nullptr);
    QCOMPARE(bars->data()->at(1).errorMinus, 2.0);
    QCOMPARE(bars->data()->at(1).errorPlus, 2.0);
    const QPointF point(plot.xAxis->coordToPixel(1024), plot.yAxis->coordToPixel(202));
    QVERIFY2(plot.tooltipAt(point).contains(QStringLiteral("[200.0, 204.0]")), qPrintable(plot.tooltipAt(point)));
}

void TestComparisonWidgets::paletteIsTheReports() {
    // One palette: each column's pen in the app is its colour in the HTML report.
    smclab::report::ReportDocument document;
    document.title = QStringLiteral("palette");
    document.tables = {repeatedTable()};
    const QString html = smclab::report::formatHtml(document);
    ComparisonPlot plot;
    plot.setSection(sectionFromTable(repeatedTable()), 0);
    for (int c = 0; c < 2; ++c) {
        const QString name = plot.graph(c)->pen().color().name(QColor::HexRgb);
        QCOMPARE(name, seriesColourName(c).toLower());
        QVERIFY2(html.contains(seriesColourName(c), Qt::CaseInsensitive), qPrintable(name));
    }
}

// In the Results table, a value whose data went over TCP says so,
// has no percentage and no colour of a change; one with a fallback is marked.
void TestComparisonWidgets::fallenBackValuesAreMarked() {
    ComparisonSection section = testing::seedComparison().sections[0];
    // The seed holds values only: give each its report cell.
    section.cells.resize(section.columnCount());
    for (int c = 0; c < section.columnCount(); ++c) {
        section.cells[c].resize(section.rowCount());
        for (int r = 0; r < section.rowCount(); ++r) section.cells[c][r].value = section.value(c, r);
    }
    smclab::report::Cell& overTcp = section.cells[2][0];
    overTcp.tcpRepetitions = 1;
    overTcp.fallbackRepetitions = 1;
    overTcp.fallbackReasons = QStringLiteral("PEERNOSMC");
    section.cells[2][1].fallbackRepetitions = 1;
    section.cells[2][1].fallbackReasons = QStringLiteral("DECL_TIMEOUT_CL");
    ComparisonTableModel model;
    model.setSection(section);
    QCOMPARE(model.data(model.index(0, 3)).toString(), QStringLiteral("2.561 [TCP]"));
    QVERIFY(std::isnan(model.data(model.index(0, 3), ComparisonTableModel::percentRole).toDouble()));
    QVERIFY(model.data(model.index(1, 3)).toString().startsWith(QStringLiteral("5.162 [fb] (+")));
    const QString tip = model.data(model.index(0, 3), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("over TCP, not SMC-R (PEERNOSMC)")), qPrintable(tip));
    QVERIFY2(!tip.contains(QStringLiteral("vs Origin SMC")), qPrintable(tip));
    // As the baseline, a TCP figure takes the row's percentages with it.
    model.setBaselineColumn(2);
    QCOMPARE(model.data(model.index(0, 1)).toString(), QStringLiteral("0.578"));
    QVERIFY(model.data(model.index(1, 1)).toString().contains(QLatin1Char('%')));
}

// The Run page's "per s" column at a cell boundary: the next cell's counters
// start from zero, which is no negative rate.
void TestComparisonWidgets::counterRatesNeverGoNegative() {
    CounterTableModel model;
    model.update(QJsonObject{{QStringLiteral("smcr.cdc_sent"), 1000.0}}, 500);
    QCOMPARE(model.data(model.index(0, 2)).toString(), QStringLiteral("-"));  // no interval yet
    model.update(QJsonObject{{QStringLiteral("smcr.cdc_sent"), 9'806'249.2}}, 1000);
    QVERIFY(model.perSec(QStringLiteral("smcr.cdc_sent")) > 0);
    model.update(QJsonObject{{QStringLiteral("smcr.cdc_sent"), 1000.0}}, 1000);  // the next cell's first sample
    QVERIFY(std::isnan(model.perSec(QStringLiteral("smcr.cdc_sent"))));
    QCOMPARE(model.data(model.index(0, 2)).toString(), QStringLiteral("-"));
    model.update(QJsonObject{{QStringLiteral("smcr.cdc_sent"), 3000.0}}, 1000);
    QCOMPARE(model.perSec(QStringLiteral("smcr.cdc_sent")), 2000.0);
}

QTEST_MAIN(TestComparisonWidgets)
#include "test_comparison_widgets.moc"
