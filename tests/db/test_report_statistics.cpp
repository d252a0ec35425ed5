// The intervals of statistics.h on known inputs: order-statistic coverage
// from the binomial and the Mann-Whitney distributions (values worked out by
// hand), a clear difference, a difference inside the noise, too few
// repetitions, and the Confidence section that follows the letter's tables.
#include <QTest>
#include <QXmlStreamReader>

#include "report_fixtures.h"
#include "smclab/report/campaign_diff.h"
#include "smclab/report/comparison_table.h"
#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"
#include "smclab/report/statistics.h"

using namespace smclab::report;

namespace {

bool near(double a, double b) {
    return std::abs(a - b) < 1e-9;
}

}  // namespace

class TestReportStatistics : public QObject {
    Q_OBJECT
private slots:
    void medians() {
        QCOMPARE(medianOf({3.0, 1.0, 2.0}), std::optional<double>(2.0));
        QCOMPARE(medianOf({4.0, 1.0, 3.0, 2.0}), std::optional<double>(2.5));
        QVERIFY(!medianOf({}).has_value());
    }

    void medianCoverageIsBinomial() {
        QVERIFY(near(medianCoverage(3, 1), 0.75));     // 1 - 2 / 2^3
        QVERIFY(near(medianCoverage(5, 1), 0.9375));   // 1 - 2 / 2^5: still under 95%
        QVERIFY(near(medianCoverage(6, 1), 0.96875));  // the first n that reaches 95%
        QVERIFY(near(medianCoverage(10, 2), 1.0 - 2.0 * 11.0 / 1024.0));
        QVERIFY(near(medianCoverage(10, 3), 1.0 - 2.0 * 56.0 / 1024.0));
        QCOMPARE(medianCoverage(3, 3), 0.0);  // not an interval
    }

    void intervalOfAKnownSample() {
        // 1..10 shuffled: k = 2 (97.85%), k = 3 would give only 89.06%.
        const auto ten = medianInterval({7, 2, 9, 1, 10, 4, 3, 8, 6, 5});
        QVERIFY(ten.has_value());
        QCOMPARE(ten->low, 2.0);
        QCOMPARE(ten->high, 9.0);
        QVERIFY(near(ten->confidencePct, 100.0 * (1.0 - 22.0 / 1024.0)));
        QVERIFY(ten->reachesTarget());
        // Three repetitions: [min, max], and it says it is 75%, not 95%.
        const auto three = medianInterval({12.0, 10.0, 30.0});
        QCOMPARE(*three, (Interval{10.0, 30.0, 75.0}));
        QVERIFY(!three->reachesTarget());
        QVERIFY(!medianInterval({1.0}).has_value());
    }

    void shiftCoverageIsMannWhitney() {
        QVERIFY(near(shiftCoverage(2, 2, 1), 1.0 - 2.0 / 6.0));   // C(4,2) = 6 orderings
        QVERIFY(near(shiftCoverage(3, 3, 1), 0.9));               // 1 - 2 / C(6,3)
        QVERIFY(near(shiftCoverage(4, 4, 1), 1.0 - 2.0 / 70.0));  // the first equal sizes that reach 95%
        // 5 against 5: U counts start 1, 1, 2, 3 of 252.
        QVERIFY(near(shiftCoverage(5, 5, 3), 1.0 - 2.0 * 4.0 / 252.0));
        QVERIFY(near(shiftCoverage(5, 5, 4), 1.0 - 2.0 * 7.0 / 252.0));
        // Beyond 2500 pairs the normal approximation: 60 against 60 has mean
        // 1800 and sd sqrt(3600 * 121 / 12) = 190.5, so k = 1427 sits at 95%.
        QVERIFY(std::abs(shiftCoverage(60, 60, 1427) - 0.95) < 0.002);
        QList<double> a, b;
        for (int i = 0; i < 60; ++i) {
            a << 100.0 + i;
            b << 100.0 + i;
        }
        const auto wide = changeOf(a, b);
        QVERIFY(wide->interval->reachesTarget());
        QVERIFY(wide->interval->confidencePct < 95.5);
        QCOMPARE(wide->noise, Noise::within);
    }

    void clearDifference() {
        const QList<double> base{100, 101, 102, 103, 104};
        const QList<double> faster{200, 201, 202, 203, 204};
        const auto change = changeOf(faster, base);
        QVERIFY(change.has_value());
        QVERIFY(near(change->pct, (202.0 / 102.0 - 1.0) * 100.0));
        QVERIFY(change->interval.has_value());
        // 5 against 5: k = 3 of the 25 sorted ratios.
        QVERIFY(near(change->interval->confidencePct, 100.0 * (1.0 - 8.0 / 252.0)));
        QVERIFY(change->interval->low > 90.0);
        QVERIFY(change->interval->high < 105.0);
        QCOMPARE(change->noise, Noise::higher);
        QCOMPARE(changeOf(base, faster)->noise, Noise::lower);
    }

    void ratioIntervalOfKnownPairs() {
        // Pairs of {2, 4} over {1, 2}: 1, 2, 2, 4; 2 against 2 gives [min, max].
        const auto r = ratioInterval({2.0, 4.0}, {1.0, 2.0});
        QCOMPARE(r->low, 1.0);
        QCOMPARE(r->high, 4.0);
        QVERIFY(near(r->confidencePct, 100.0 * (1.0 - 2.0 / 6.0)));
        QVERIFY(!ratioInterval({0.0, 1.0}, {1.0, 2.0}).has_value());
    }

    void differenceInsideTheNoise() {
        const auto change = changeOf({100, 104, 98, 101}, {99, 103, 100, 102});
        QVERIFY(change.has_value());
        QVERIFY(change->interval->contains(0.0));
        QCOMPARE(change->noise, Noise::within);
        QCOMPARE(QString::fromLatin1(noiseName(change->noise)), QStringLiteral("within noise"));
    }

    void oneRepetitionHasNoInterval() {
        const auto change = changeOf({120.0}, {100.0, 101.0, 99.0});
        QVERIFY(change.has_value());
        QVERIFY(near(change->pct, 20.0));
        QVERIFY(!change->interval.has_value());
        QCOMPARE(change->noise, Noise::unknown);
        QVERIFY(!changeOf({1.0}, {0.0}).has_value());
    }

    void valuesAtOrBelowZeroUseDifferences() {
        const auto change = changeOf({0.0, 1.0, 2.0}, {10.0, 11.0, 12.0});
        QVERIFY(change.has_value());
        // Differences -12 .. -8 over the base median 11.
        QVERIFY(near(change->interval->low, -12.0 / 11.0 * 100.0));
        QVERIFY(near(change->interval->high, -8.0 / 11.0 * 100.0));
        QCOMPARE(change->noise, Noise::lower);
    }

    void cellsTakeTheMedian() {
        const Cell cell = cellFromRepetitions({10.0, 30.0, 11.0});
        QCOMPARE(cell.value, std::optional<double>(11.0));  // the mean would be 17
        QCOMPARE(cell.repetitions, 3);
        QCOMPARE(cell.samples, (QList<double>{10.0, 30.0, 11.0}));
        QCOMPARE(*cell.interval, (Interval{10.0, 30.0, 75.0}));
        // Hand-made cells: a change without interval.
        const auto change = changeVsBaseline(Cell(2.0, 0.0, 1), Cell(1.0, 0.0, 1));
        QVERIFY(near(change->pct, 100.0));
        QCOMPARE(change->noise, Noise::unknown);
    }

    void confidenceFollowsTheLetterTables() {
        const QList<ComparisonTable> letter{fixtures::bandwidth(), fixtures::latency()};
        // Single runs: no section, the letter is the whole text output.
        QCOMPARE(formatConfidence(letter), QString());
        QCOMPARE(formatTextWithConfidence(letter), formatText(letter));

        ComparisonTable table = fixtures::bandwidth();
        table.rows = {table.rows[0]};
        table.rows[0].cells = {cellFromRepetitions({1.0, 1.1, 0.9}), cellFromRepetitions({2.0, 2.1, 1.9}),
                               cellFromRepetitions({1.0, 1.05, 0.95})};
        table.rows[0].cells[2].busyRepetitions = 1;
        const QString text = formatTextWithConfidence({table});
        QVERIFY(text.startsWith(formatText({table})));  // the tables byte for byte, then the section
        const QString section = text.mid(formatText({table}).size());
        const QStringList lines = section.split(QLatin1Char('\n'));
        QCOMPARE(lines[0], QStringLiteral("==== Confidence ===="));
        QCOMPARE(lines[1], QStringLiteral("Bandwidth (MB/s), change against Origin SMC"));
        QVERIFY(lines[2].startsWith(QStringLiteral("MsgSize  Column")));
        QCOMPARE(lines[3], QStringLiteral("      1  Origin SMC        3   1.000  [0.900, 1.100] 75.0%"));
        QCOMPARE(lines[4], QStringLiteral("      1  TCP               3   2.000  [1.900, 2.100] 75.0%    +100.00%  "
                                          "[+72.73%, +133.33%] 90.0%  higher"));
        QCOMPARE(lines[5], QStringLiteral("      1  SMC with patches  3   1.000  [0.950, 1.050] 75.0%      +0.00%  "
                                          "[-13.64%, +16.67%] 90.0%   within noise  busy 1/3"));
        QVERIFY(section.contains(QStringLiteral("distribution-free")));
        QCOMPARE(render({QString(), QString(), {table}, {}, {}}, Format::text), text);
    }

    void differencesBetweenTwoCampaigns() {
        ComparisonTable t;
        t.title = QStringLiteral("Bandwidth");
        t.unit = QStringLiteral("MB/s");
        t.columns = {QStringLiteral("#3 TCP"), QStringLiteral("#3 SMC"), QStringLiteral("#4 TCP"),
                     QStringLiteral("#4 SMC"), QStringLiteral("#4 only")};
        Row row;
        row.msgSize = 64;
        row.cells = {cellFromRepetitions({100, 101, 102, 103}), cellFromRepetitions({200, 190, 210}),
                     cellFromRepetitions({150, 151, 152, 153}), cellFromRepetitions({205, 195, 200}),
                     cellFromRepetitions({1, 2})};
        t.rows = {row};
        Row single;
        single.msgSize = 128;
        single.cells = {Cell(1.0, 0.0, 1), Cell(), Cell(2.0, 0.0, 1), Cell(), Cell()};
        t.rows << single;
        const auto diffs = campaignDifferences({t}, QStringLiteral("#3 "), QStringLiteral("#4 "));
        QCOMPARE(diffs.size(), 3);  // TCP and SMC at 64 B, TCP at 128 B; "only" is in one campaign
        QCOMPARE(diffs[0].column, QStringLiteral("TCP"));
        QVERIFY(diffs[0].outsideNoise());  // 4 against 4, every ratio about 1.5
        QCOMPARE(diffs[0].change->noise, Noise::higher);
        QVERIFY(diffs[0].change->interval->reachesTarget());
        QCOMPARE(diffs[1].change->noise, Noise::within);
        QVERIFY(!diffs[2].outsideNoise());
        QCOMPARE(diffs[2].change->noise, Noise::unknown);
        const QString text = formatDifferences(diffs, QStringLiteral("#3"), QStringLiteral("#4"));
        QVERIFY(text.startsWith(QStringLiteral("==== Differences: #4 against #3 ====\nBandwidth (MB/s)\n")));
        QVERIFY(text.contains(QStringLiteral("higher, outside noise")));
        QVERIFY(text.contains(QStringLiteral("within noise")));
        QVERIFY(text.endsWith(
            QStringLiteral("Outside the noise: 1 of 3 (1 higher, 0 lower); within noise: 1; no interval: 1.\n")));
        const DetailTable detail = differencesDetail(diffs, QStringLiteral("#3"), QStringLiteral("#4"));
        QCOMPARE(detail.rows.size(), 3);
        QCOMPARE(detail.rows[0].name, QStringLiteral("Bandwidth 64 B TCP"));
        QCOMPARE(detail.rows[0].values.last(), QStringLiteral("higher, outside noise"));
    }

    void formatsCarryTheIntervals() {
        ReportDocument doc;
        doc.title = QStringLiteral("reps");
        doc.tables = {fixtures::bandwidth()};
        doc.tables[0].rows[0].cells = {cellFromRepetitions({1.0, 1.1, 0.9}), cellFromRepetitions({2.0, 2.1, 1.9}),
                                       cellFromRepetitions({1.0, 1.05, 0.95})};
        doc.tables[0].rows[0].cells[1].busyRepetitions = 2;
        auto json = documentFromJson(formatJson(doc));
        QVERIFY(json.ok());
        QCOMPARE(*json, doc);
        QVERIFY(formatJson(doc).contains(QStringLiteral("\"noise\": \"within noise\"")));
        auto csv = tablesFromCsv(formatCsv(doc.tables));
        QVERIFY(csv.ok());
        QCOMPARE(csv->at(0), doc.tables[0]);
        QVERIFY(formatCsv(doc.tables).contains(QStringLiteral(",within noise,")));
        const QString md = formatMarkdown(doc);
        QVERIFY(md.contains(QStringLiteral("[0.900, 1.100] 75.0%")));
        QVERIFY(md.contains(QStringLiteral("*within noise*")));
        QVERIFY(md.contains(QStringLiteral("busy host: 2/3")));
        const QString html = formatHtml(doc);
        QVERIFY(html.contains(QStringLiteral("class=\"errorbar\"")));
        QVERIFY(html.contains(QStringLiteral("within noise")));
        QVERIFY(html.contains(QStringLiteral("==== Confidence ====")));
        QXmlStreamReader xml(html);  // still one well-formed file with the error bars
        while (!xml.atEnd()) xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestReportStatistics)
#include "test_report_statistics.moc"
