// The cover-letter text layout: seed 000's tables byte for byte, the known
// differences caused by the letter's rounded baseline, baselines and the
// generalisation to other column counts, long labels and missing values.
#include <cmath>

#include <QRegularExpression>
#include <QTest>

#include "report_fixtures.h"
#include "smclab/report/format_text.h"

using namespace smclab::report;

class TestReportText : public QObject {
    Q_OBJECT
private slots:
    void seedTablesAreByteExact() {
        const QString golden = fixtures::readGolden(QStringLiteral("seed000_tables.txt"));
        QVERIFY2(!golden.isEmpty(), "golden file missing (SMCLAB_SOURCE_DIR)");
        const QString ours = formatText({fixtures::bandwidth(), fixtures::latency()});
        if (ours != golden) {
            const QStringList a = ours.split(QLatin1Char('\n'));
            const QStringList b = golden.split(QLatin1Char('\n'));
            for (qsizetype i = 0; i < std::min(a.size(), b.size()); ++i) {
                if (a[i] != b[i])
                    qWarning("line %d\n ours:   '%s'\n golden: '%s'", int(i + 1), qPrintable(a[i]), qPrintable(b[i]));
            }
        }
        QCOMPARE(ours, golden);
    }

    // The letter computed its percentages from unrounded measurements but
    // printed rounded values (bench-anchors section 7). From the printed
    // values we get the same text everywhere except nine bandwidth rows:
    // the first three by 0.1-0.3 points, six more by at most 0.02 points.
    void onlyTheRoundedBaselineRowsDifferFromTheLetter() {
        const QStringList published =
            fixtures::readGolden(QStringLiteral("seed000_published.txt")).split(QLatin1Char('\n'));
        const QStringList ours = formatText({fixtures::bandwidth(), fixtures::latency()}).split(QLatin1Char('\n'));
        QCOMPARE(ours.size(), published.size());
        static const QRegularExpression pct(QStringLiteral("\\(\\s*(-?[0-9.]+)%\\)"));
        QList<qint64> differing;
        for (qsizetype i = 0; i < ours.size(); ++i) {
            if (ours[i] == published[i]) continue;
            QVERIFY2(i >= 2 && i < 19,
                     qPrintable(QStringLiteral("line %1 outside the bandwidth rows differs").arg(i + 1)));
            // Same text once the percentages are blanked out.
            QString a = ours[i], b = published[i];
            a.replace(pct, QStringLiteral("(P)"));
            b.replace(pct, QStringLiteral("(P)"));
            QCOMPARE(a, b);
            const qint64 size = ours[i].section(QLatin1Char(' '), 0, 0, QString::SectionSkipEmpty).toLongLong();
            differing << size;
            auto ia = pct.globalMatch(ours[i]);
            auto ib = pct.globalMatch(published[i]);
            while (ia.hasNext() && ib.hasNext()) {
                const double delta = std::fabs(ia.next().captured(1).toDouble() - ib.next().captured(1).toDouble());
                if (size <= 4) {
                    QVERIFY2(delta >= 0.05 && delta <= 0.31,
                             qPrintable(QStringLiteral("size %1 off by %2").arg(size).arg(delta)));
                } else {
                    QVERIFY2(delta <= 0.0201, qPrintable(QStringLiteral("size %1 off by %2").arg(size).arg(delta)));
                }
            }
        }
        QCOMPARE(differing, (QList<qint64>{1, 2, 4, 8, 16, 32, 64, 128, 512}));
        // The published 313.57% vs our 313.84% for TCP at 1 byte: 2.392 / 0.578.
        QVERIFY(published[2].contains(QStringLiteral("(313.57%)")));
        QVERIFY(ours[2].contains(QStringLiteral("(313.84%)")));
    }

    void percentagesUseUnroundedValues() {
        // A baseline of 0.5784 prints as 0.578 but changes the percentage.
        ComparisonTable t = fixtures::bandwidth();
        t.rows = {t.rows[0]};
        t.rows[0].cells[0].value = 0.5784;
        const QString line = formatTextTable(t).split(QLatin1Char('\n'))[2];
        QVERIFY(line.startsWith(QStringLiteral("       1         0.578 MB/s      2.392 MB/s(313.55%)")));
        QCOMPARE(percentVsBaseline(11.938, 10.540).value(), (11.938 / 10.540 - 1) * 100);
        QVERIFY(!percentVsBaseline(1.0, 0.0).has_value());
        QVERIFY(!percentVsBaseline(std::nullopt, 1.0).has_value());
    }

    void anyColumnCanBeTheBaseline() {
        auto moved = withBaseline(fixtures::bandwidth(), QStringLiteral("tcp"));
        QVERIFY(moved.ok());
        QCOMPARE(moved->columns, (QStringList{"TCP", "Origin SMC", "SMC with patches"}));
        const QStringList lines = formatTextTable(*moved).split(QLatin1Char('\n'));
        QCOMPARE(lines[1],
                 QStringLiteral(" MsgSize        TCP                     Origin SMC         SMC with patches"));
        // 0.578 / 2.392 - 1 = -75.84 %, 2.561 / 2.392 - 1 = 7.07 %
        QCOMPARE(lines[2],
                 QStringLiteral("       1         2.392 MB/s      0.578 MB/s(-75.84%)      2.561 MB/s(  7.07%)"));
        auto unknown = withBaseline(fixtures::bandwidth(), QStringLiteral("RDMA"));
        QVERIFY(!unknown.ok());
        QCOMPARE(unknown.error().code, smcr::Errc::invalidArgument);
        QVERIFY(QString::fromStdString(unknown.error().message)
                    .contains(QStringLiteral("Origin SMC, TCP, SMC with patches")));
    }

    void twoAndFiveColumnsKeepTheLetterWidths() {
        ComparisonTable two = fixtures::latency();
        two.columns = {QStringLiteral("TCP"), QStringLiteral("SMC")};
        for (Row& r : two.rows) r.cells.removeLast();
        QStringList lines = formatTextTable(two).split(QLatin1Char('\n'));
        QCOMPARE(lines[1], QStringLiteral(" MsgSize        TCP                     SMC"));
        QCOMPARE(lines[2], QStringLiteral("       1        10.540 us     11.938 us( 13.26%)"));

        ComparisonTable five = fixtures::bandwidth();
        five.columns << QStringLiteral("A") << QStringLiteral("B");
        for (Row& r : five.rows) r.cells << r.cells[1] << r.cells[2];
        lines = formatTextTable(five).split(QLatin1Char('\n'));
        QCOMPARE(lines[2],
                 QStringLiteral("       1         0.578 MB/s      2.392 MB/s(313.84%)      2.561 MB/s(343.08%)"
                                "      2.392 MB/s(313.84%)      2.561 MB/s(343.08%)"));
        QCOMPARE(lines[1],
                 QStringLiteral(" MsgSize        Origin SMC              TCP                SMC with patches   A"
                                "                  B"));
    }

    void longLabelsWidenTheirColumn() {
        ComparisonTable t = fixtures::bandwidth();
        t.columns[1] = QStringLiteral("SMC-R autocorking_size=65536 and nodelay");  // 40 chars, field is 19
        const QStringList lines = formatTextTable(t).split(QLatin1Char('\n'));
        // The label keeps one blank before the next label, and the data
        // column under it grows by the same amount, so the third label still
        // starts 7 characters after its column does (as in the letter).
        const qsizetype label3 = lines[1].indexOf(QStringLiteral("SMC with patches"));
        QCOMPARE(lines[1].mid(label3 - 1, 1), QStringLiteral(" "));
        QCOMPARE(lines[1].indexOf(QStringLiteral("SMC-R autocorking")) + 41, label3);
        const qsizetype column3 =
            lines[2].indexOf(QStringLiteral("MB/s(313.84%)")) + QStringLiteral("MB/s(313.84%)").size();
        QCOMPARE(label3 - column3, qsizetype(59 - 52));
        for (qsizetype i = 3; i + 1 < lines.size(); ++i) QCOMPARE(lines[i].size(), lines[2].size());
    }

    void missingValuesKeepTheColumnsAligned() {
        ComparisonTable t = fixtures::bandwidth();
        t.rows[0].cells[1].value.reset();  // TCP at 1 byte failed
        t.rows[1].cells[0].value.reset();  // baseline at 2 bytes missing
        const QStringList lines = formatTextTable(t).split(QLatin1Char('\n'));
        QCOMPARE(lines[2],
                 QStringLiteral("       1         0.578 MB/s          -                    2.561 MB/s(343.08%)"));
        QCOMPARE(lines[3], QStringLiteral("       2             -           4.780 MB/s               5.162 MB/s"));
    }

    void bigNumbersWidenTheColumn() {
        ComparisonTable t = fixtures::bandwidth();
        t.rows = {t.rows.last()};
        t.rows[0].cells[1].value = 123456789.0;  // "123456789.000" is 13 wide, field is 11
        const QStringList lines = formatTextTable(t).split(QLatin1Char('\n'));
        QVERIFY(lines[2].contains(QStringLiteral(" 123456789.000 MB/s")));
        QCOMPARE(lines[1].indexOf(QStringLiteral("SMC with patches")), qsizetype(59 + 3));
    }

    // A cell of an SMC column whose data went over TCP is marked
    // [TCP] and has no percentage, one with some fallback [fb]; the legend
    // under the table says where and why; unmarked tables keep the letter.
    void fallenBackCellsAreMarked() {
        ComparisonTable table = fixtures::bandwidth();
        table.rows = table.rows.mid(0, 3);
        Cell& smc = table.rows[0].cells[2];
        smc.tcpRepetitions = 1;
        smc.fallbackRepetitions = 1;
        smc.fallbackReasons = QStringLiteral("PEERNOSMC");
        Cell& partly = table.rows[1].cells[2];
        partly.fallbackRepetitions = 1;
        partly.fallbackReasons = QStringLiteral("DECL_TIMEOUT_CL");
        const QString expected = QStringLiteral(
            "==== Bandwidth ====\n"
            " MsgSize        Origin SMC              TCP                SMC with patches\n"
            "       1         0.578 MB/s      2.392 MB/s(313.84%)      2.561 MB/s          [TCP]\n"
            "       2         1.159 MB/s      4.780 MB/s(312.42%)      5.162 MB/s(345.38%) [fb]\n"
            "       4         2.283 MB/s     10.266 MB/s(349.67%)     10.122 MB/s(343.36%)\n"
            "[TCP] SMC with patches at 1 B: the data went over TCP, not SMC-R (no percentage): PEERNOSMC\n"
            "[fb] SMC with patches at 2 B: some connections fell back to TCP: DECL_TIMEOUT_CL\n");
        const QString text = formatTextTable(table);
        if (text != expected) qWarning("%s", qPrintable(text));
        QCOMPARE(text, expected);
        // A baseline over TCP takes every percentage of its row with it, and
        // widens its own column (the header moves with it).
        ComparisonTable base = fixtures::bandwidth();
        base.rows = base.rows.mid(0, 2);
        base.rows[0].cells[0].tcpRepetitions = 3;
        base.rows[0].cells[0].fallbackReasons = QStringLiteral("no SMC-R connection");
        const QStringList lines = formatTextTable(base).split(QLatin1Char('\n'));
        QCOMPARE(lines[1],
                 QStringLiteral(" MsgSize        Origin SMC                    TCP                SMC with patches"));
        QCOMPARE(lines[2],
                 QStringLiteral("       1         0.578 MB/s [TCP]      2.392 MB/s               2.561 MB/s"));
        QCOMPARE(lines[3],
                 QStringLiteral("       2         1.159 MB/s            4.780 MB/s(312.42%)      5.162 MB/s(345.38%)"));
        // The Confidence section names them too, even for single runs.
        const QString confidence = formatConfidence({table});
        QVERIFY2(confidence.contains(QStringLiteral("over TCP 1/1 (PEERNOSMC), not compared")), qPrintable(confidence));
        QVERIFY(confidence.contains(QStringLiteral("fell back 1/1 (DECL_TIMEOUT_CL)")));
    }

    // The text tables end with what each column ran over.
    void wireSectionFollowsTheTables() {
        ComparisonTable table = fixtures::bandwidth();
        table.wires = {QStringLiteral("SMC-R over the sim fabric, link cx4-25g"),
                       QStringLiteral("TCP over veth between network namespaces, unshaped"),
                       QStringLiteral("SMC-R over the sim fabric, link cx4-25g")};
        ComparisonTable latency = fixtures::latency();
        latency.wires = table.wires;
        const QString text = formatText({table, latency});
        QVERIFY(text.startsWith(formatText({fixtures::bandwidth(), fixtures::latency()})));
        QVERIFY2(text.endsWith(QStringLiteral("==== Wire ====\n"
                                              "Origin SMC        SMC-R over the sim fabric, link cx4-25g\n"
                                              "TCP               TCP over veth between network namespaces, unshaped\n"
                                              "SMC with patches  SMC-R over the sim fabric, link cx4-25g\n")),
                 qPrintable(text));
        // The baseline moves with its wire.
        auto moved = withBaseline(table, QStringLiteral("TCP"));
        QVERIFY(moved.ok());
        QCOMPARE(moved->wires.value(0), table.wires[1]);
    }
};

QTEST_APPLESS_MAIN(TestReportText)
#include "test_report_text.moc"
