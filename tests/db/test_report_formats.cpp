// Markdown, CSV and JSON carry the same numbers back; the HTML report is
// one well-formed file with the plots, tables, details and provenance.
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>
#include <QXmlStreamReader>

#include "report_fixtures.h"
#include "smclab/report/connection_use.h"
#include "smclab/report/formats.h"
#include "smclab/report/series_palette.h"

using namespace smclab::report;

namespace {

ReportDocument sampleDocument() {
    ReportDocument doc;
    doc.title = QStringLiteral("smclab campaign #1: datapath <seed 000> & friends");
    doc.generatedAt = QStringLiteral("2026-11-30T08:00:00Z");
    doc.tables = {fixtures::bandwidth(), fixtures::latency()};
    doc.tables[0].rows[3].cells[1] = {std::nullopt, 0.0, 0};         // a failed run
    doc.tables[0].rows[4].cells[2] = {40.823456789012345, 0.25, 3};  // repetitions
    // A cell whose data went over TCP, one with a fallback.
    doc.tables[0].rows[5].cells[2].tcpRepetitions = 1;
    doc.tables[0].rows[5].cells[2].fallbackRepetitions = 1;
    doc.tables[0].rows[5].cells[2].fallbackReasons = QStringLiteral("PEERNOSMC x2");
    doc.tables[0].rows[6].cells[2].fallbackRepetitions = 1;
    doc.tables[0].rows[6].cells[2].fallbackReasons = QStringLiteral("DECL_TIMEOUT_CL");
    doc.tables[0].wires = {QStringLiteral("SMC-R over the sim fabric, link cx4-25g"),
                           QStringLiteral("TCP over veth between network namespaces, unshaped"),
                           QStringLiteral("SMC-R over the sim fabric, link cx4-25g")};
    doc.details = {
        {QStringLiteral("Engine counters (sum over finished runs)"),
         {QStringLiteral("Origin SMC"), QStringLiteral("TCP"), QStringLiteral("SMC with patches")},
         {{QStringLiteral("client cdc_msgs_sent"), {QStringLiteral("1200"), QString(), QStringLiteral("900")}}}}};
    doc.provenance = {{QStringLiteral("Client host (campaign #1)"),
                       {{QStringLiteral("kernel"), QStringLiteral("6.1.0-18-amd64")},
                        {QStringLiteral("link_model"), QStringLiteral("cx4-25g")}}}};
    return doc;
}

}  // namespace

class TestReportFormats : public QObject {
    Q_OBJECT
private slots:
    void formatNames() {
        QCOMPARE(parseFormat(QStringLiteral("md")), std::optional<Format>(Format::markdown));
        QCOMPARE(parseFormat(QStringLiteral("HTML")), std::optional<Format>(Format::html));
        QVERIFY(!parseFormat(QStringLiteral("pdf")).has_value());
        for (Format f : {Format::text, Format::markdown, Format::csv, Format::json, Format::html}) {
            QCOMPARE(parseFormat(formatName(f)), std::optional<Format>(f));
        }
    }

    void jsonRoundTripsTheWholeDocument() {
        const ReportDocument doc = sampleDocument();
        auto back = documentFromJson(formatJson(doc));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(*back, doc);  // doubles survive exactly (QJsonDocument prints them round-trip safe)
        QVERIFY(!documentFromJson(QStringLiteral("{\"format\": \"other\"}")).ok());
        QVERIFY(!documentFromJson(QStringLiteral("{")).ok());
        auto future = documentFromJson(QStringLiteral("{\"format\": \"smclab-report\", \"version\": 9}"));
        QCOMPARE(future.error().code, smcr::Errc::notSupported);
    }

    void csvRoundTripsTheTables() {
        const ReportDocument doc = sampleDocument();
        const QString csv = formatCsv(doc.tables);
        QVERIFY(
            csv.startsWith(QStringLiteral("table,metric,unit,lower_is_better,workload,column_index,column,msg_size,")));
        QCOMPARE(csv.count(QLatin1Char('\n')), 1 + 2 * 17 * 3);
        // The published cell with our percentage: TCP at 1 byte.
        QVERIFY(csv.contains(
            QStringLiteral("Bandwidth,bw_mbps,MB/s,0,tcp_bw,1,TCP,1,2.3919999999999999,0,1,313.84083044982")));
        auto back = tablesFromCsv(csv);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(*back, doc.tables);
        // Labels with commas and quotes survive.
        ComparisonTable odd = fixtures::latency();
        odd.columns[1] = QStringLiteral("TCP, \"nodelay\"");
        QCOMPARE(tablesFromCsv(formatCsv({odd})).value().first(), odd);
        QCOMPARE(tablesFromCsv(QStringLiteral("a,b\n1,2\n")).error().code, smcr::Errc::malformed);
    }

    void markdownShowsEveryValueAndPercentage() {
        const ReportDocument doc = sampleDocument();
        const QString md = formatMarkdown(doc);
        QVERIFY(md.contains(QStringLiteral("### Bandwidth (MB/s)")));
        QVERIFY(md.contains(QStringLiteral("| MsgSize | Origin SMC (baseline) | TCP | SMC with patches |")));
        // Parse the bandwidth rows back and compare with the model.
        static const QRegularExpression row(QStringLiteral("^\\| (\\d+) \\| (.*) \\|$"));
        const QStringList lines = md.split(QLatin1Char('\n'));
        int parsed = 0;
        bool inBandwidth = false;
        for (const QString& line : lines) {
            if (line.startsWith(QStringLiteral("### "))) inBandwidth = line.startsWith(QStringLiteral("### Bandwidth"));
            const auto m = row.match(line);
            if (!inBandwidth || !m.hasMatch()) continue;
            const Row& r = doc.tables[0].rows[parsed];
            QCOMPARE(m.captured(1).toLongLong(), r.msgSize);
            const QStringList cells = m.captured(2).split(QStringLiteral(" | "));
            QCOMPARE(cells.size(), 3);
            for (int c = 0; c < 3; ++c) {
                if (!r.cells[c].value) {
                    QCOMPARE(cells[c], QStringLiteral("-"));
                    continue;
                }
                QCOMPARE(cells[c].section(QLatin1Char(' '), 0, 0).toDouble(),
                         std::round(*r.cells[c].value * 1000) / 1000);
                if (c > 0 && !r.cells[c].overTcp()) {
                    const double pct = *percentVsBaseline(r.cells[c].value, r.cells[0].value);
                    QVERIFY2(cells[c].contains(QStringLiteral("(%1%)").arg(QString::number(pct, 'f', 2))),
                             qPrintable(cells[c]));
                }
            }
            ++parsed;
        }
        QCOMPARE(parsed, 17);
        QVERIFY(md.contains(QStringLiteral("40.823 ± 0.250 (346.30%)")));
        QVERIFY(md.contains(QStringLiteral("| client cdc_msgs_sent | 1200 | - | 900 |")));
        QVERIFY(md.contains(QStringLiteral("- **link_model**: cx4-25g")));
    }

    void htmlIsOneWellFormedFileWithPlotsAndTables() {
        const ReportDocument doc = sampleDocument();
        const QString html = formatHtml(doc);
        // Kept in the build tree for a human look.
        QFile sample(QStringLiteral(SMCLAB_TEST_OUTPUT_DIR "/report_sample.html"));
        if (sample.open(QIODevice::WriteOnly)) sample.write(html.toUtf8());
        QXmlStreamReader xml(html);
        int svgs = 0, polylines = 0, tables = 0, legends = 0, xTicks = 0;
        QSet<QString> texts;
        QStringList elementStack;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                const QString name = xml.name().toString();
                elementStack << name;
                if (name == QLatin1String("svg")) ++svgs;
                if (name == QLatin1String("polyline")) ++polylines;
                if (name == QLatin1String("table")) ++tables;
                // Nothing is loaded from elsewhere: no scripts, links or images.
                QVERIFY2(
                    name != QLatin1String("script") && name != QLatin1String("link") && name != QLatin1String("img"),
                    qPrintable(name));
                const QString cls = xml.attributes().value(QStringLiteral("class")).toString();
                if (cls == QLatin1String("legend")) ++legends;
                if (cls == QLatin1String("xtick")) ++xTicks;
            } else if (xml.isEndElement()) {
                elementStack.removeLast();
            } else if (xml.isCharacters() && !xml.isWhitespace()) {
                texts.insert(xml.text().toString().trimmed());
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString() + QStringLiteral(" at line %1").arg(xml.lineNumber())));
        QVERIFY(elementStack.isEmpty());
        QCOMPARE(svgs, 2);        // a plot per table
        QCOMPARE(legends, 6);     // one legend entry per column
        QCOMPARE(xTicks, 34);     // one tick per message size, log2-spaced
        QVERIFY(polylines >= 6);  // a line per column (the gap splits one)
        QCOMPARE(tables, 2 + 1);  // comparison tables + counters
        QVERIFY(texts.contains(QStringLiteral("Message size (bytes, log2 scale)")));
        QVERIFY(texts.contains(QStringLiteral("Bandwidth (MB/s)")));
        QVERIFY(texts.contains(QStringLiteral("64K")));
        QVERIFY(texts.contains(QStringLiteral("6.1.0-18-amd64")));
        QVERIFY(texts.contains(QStringLiteral("smclab campaign #1: datapath <seed 000> & friends")));
        QVERIFY(html.contains(QStringLiteral("<style>")));
        QVERIFY(html.contains(QStringLiteral("(313.84%)")));
        QVERIFY(html.contains(QStringLiteral("class=\"pct worse\">(+13.26%)")));  // latency: higher is worse, signed
        QVERIFY(html.contains(QStringLiteral("class=\"pct better\">(-1.75%)")));
        // The cover-letter text rides along for copy and paste.
        QVERIFY(html.contains(QStringLiteral("==== Latency ====")));
    }

    void xAxisIsLog2() {
        const QString svg = formatHtml(sampleDocument());
        // Ticks for 1, 2 and 4 bytes are equally spaced.
        static const QRegularExpression tick(
            QStringLiteral("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" class=\"xtick\">(1|2|4)</text>"));
        QList<double> xs;
        auto it = tick.globalMatch(svg);
        while (it.hasNext() && xs.size() < 3) xs << it.next().captured(1).toDouble();
        QCOMPARE(xs.size(), 3);
        QVERIFY(std::abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.2);
    }

    // Every format marks the cells whose connections fell back,
    // with the reason, and gives a cell whose data went over TCP no percentage.
    void fallenBackCellsInEveryFormat() {
        const ReportDocument doc = sampleDocument();
        // 32 B: the "SMC with patches" cell went over TCP.
        const QString csv = formatCsv(doc.tables);
        QVERIFY(csv.section(QLatin1Char('\n'), 0, 0)
                    .endsWith(QStringLiteral(
                        "live_changed_repetitions,fallback_repetitions,tcp_repetitions,fallback_reasons,wire")));
        static const QRegularExpression overTcpRow(
            QStringLiteral("^Bandwidth,bw_mbps,MB/s,0,tcp_bw,2,SMC with patches,32,[0-9.e+-]+,[0-9.e+-]+,1,,"
                           ".*,1,1,PEERNOSMC x2,\"SMC-R over the sim fabric, link cx4-25g\"$"),
            QRegularExpression::MultilineOption);
        QVERIFY2(overTcpRow.match(csv).hasMatch(), qPrintable(csv));
        QVERIFY(csv.contains(QStringLiteral(",1,0,DECL_TIMEOUT_CL,")));
        const QString json = formatJson(doc);
        QVERIFY(json.contains(QStringLiteral("\"tcpRepetitions\": 1")));
        QVERIFY(json.contains(QStringLiteral("\"fallbackReasons\": \"PEERNOSMC x2\"")));
        QVERIFY(json.contains(QStringLiteral("\"wires\"")));
        const QString md = formatMarkdown(doc);
        QVERIFY2(md.contains(QStringLiteral("**over TCP, not SMC-R: 1/1** (PEERNOSMC x2)")), qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("(fell back: 1/1, DECL_TIMEOUT_CL)")));
        QVERIFY(md.contains(QStringLiteral("- **TCP**: TCP over veth between network namespaces, unshaped")));
        const QString html = formatHtml(doc);
        QVERIFY(html.contains(QStringLiteral("over TCP, not SMC-R: 1 of 1 runs (PEERNOSMC x2)")));
        QVERIFY(html.contains(QStringLiteral("fell back: 1 of 1 runs (DECL_TIMEOUT_CL)")));
        QVERIFY(html.contains(QStringLiteral("[TCP] SMC with patches at 32 B")));  // the letter text under it
        QVERIFY(html.contains(QStringLiteral("<h2>Wire</h2>")));
        // No percentage for the TCP figure in the SMC column.
        const QString row32 = md.section(QStringLiteral("| 32 |"), 1, 1).section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(!row32.section(QLatin1Char('|'), 2, 2).contains(QLatin1Char('%')), qPrintable(row32));
    }

    // The bandwidth chart spans 0.5 to 5000 MB/s on a log
    // axis (decade ticks), so the 1 B points are not drawn on zero; the
    // percentages carry their sign as in the app.
    void bandwidthAxisIsLog10AndSigned() {
        const QString html = formatHtml(sampleDocument());
        const QString bandwidthSvg = html.section(QStringLiteral("<svg "), 1, 1);
        for (const char* tick : {">0.1</text>", ">1</text>", ">10</text>", ">100</text>", ">1000</text>"})
            QVERIFY2(bandwidthSvg.contains(QLatin1String(tick)), tick);
        QVERIFY(bandwidthSvg.contains(QStringLiteral("Bandwidth (MB/s), log scale")));
        static const QRegularExpression point(QStringLiteral("<circle cx=\"[0-9.]+\" cy=\"([0-9.]+)\""));
        const auto first = point.match(bandwidthSvg);
        QVERIFY(first.hasMatch());
        // 0.578 MB/s sits a quarter decade above 0.1 on a 5-decade axis, well above the frame's bottom.
        const double bottom = 380 - 52;
        QVERIFY2(first.captured(1).toDouble() < bottom - 10, qPrintable(first.captured(1)));
        // The latency chart keeps its linear axis from 0.
        const QString latencySvg = html.section(QStringLiteral("<svg "), 2, 2);
        QVERIFY(latencySvg.contains(QStringLiteral(">0</text>")));
        QVERIFY(html.contains(QStringLiteral("class=\"pct better\">(+313.84%)")));
    }

    // With another baseline, each column keeps its colour
    // (the app's: by plan order), only its place changes.
    void columnsKeepTheirColoursUnderAnotherBaseline() {
        auto moved = withBaseline(sampleDocument(), QStringLiteral("TCP"));
        QVERIFY(moved.ok());
        const QString html = formatHtml(*moved);
        QVERIFY2(html.contains(QStringLiteral("<th><span style=\"color: %1\">&#9632;</span> TCP (baseline)</th>")
                                   .arg(seriesColour(1))),
                 qPrintable(html.left(4000)));
        QVERIFY(html.contains(
            QStringLiteral("<th><span style=\"color: %1\">&#9632;</span> Origin SMC</th>").arg(seriesColour(0))));
    }

    // What a run's connections did, from each vocabulary of
    // counters the agents store (connection_use.h).
    void connectionUseReadsEveryVocabulary() {
        using smclab::db::Counter;
        using smcr::Side;
        // libsmcr, on SMC-R: judged, not marked.
        ConnectionUse use = connectionUse({{smcr::Side::client, QStringLiteral("smcr.clnt_success"), 1},
                                           {smcr::Side::client, QStringLiteral("smcr.tx_bytes"), 1'000'000},
                                           {smcr::Side::client, QStringLiteral("smcr.tcp_tx_bytes"), 0}});
        QVERIFY(use.judged && !use.fellBack() && !use.overTcp());
        QCOMPARE(use.summary(), QStringLiteral("SMC-R 1 of 1 connections; 100.0% of 1000000 bytes over RDMA"));
        // libsmcr: one of 20 connections fell back, 3% of the bytes over TCP: SMC-R, with a fallback.
        use = connectionUse({{smcr::Side::client, QStringLiteral("smcr.clnt_success"), 19},
                             {smcr::Side::client, QStringLiteral("smcr.clnt_fallbacks"), 1},
                             {smcr::Side::client, QStringLiteral("smcr.fallback.client.DECL_TIMEOUT_CL"), 1},
                             {smcr::Side::client, QStringLiteral("smcr.tx_bytes"), 970},
                             {smcr::Side::client, QStringLiteral("smcr.tcp_tx_bytes"), 30}});
        QVERIFY(use.fellBack() && !use.overTcp());
        QCOMPARE(use.reasonsText(), QStringLiteral("DECL_TIMEOUT_CL"));
        // smcr_run's preload: no SMC connection (qperf across namespaces before the registry).
        use = connectionUse({{smcr::Side::client, QStringLiteral("smc_connections"), 0},
                             {smcr::Side::client, QStringLiteral("tcp_connections"), 2},
                             {smcr::Side::client, QStringLiteral("fallbacks.client.not_local"), 2},
                             {smcr::Side::server, QStringLiteral("tcp_connections"), 2}});
        QVERIFY(use.overTcp());
        QCOMPARE(use.reasonsText(), QStringLiteral("not_local x2"));
        // Kernel SMC-R (ksmc): a fallback by the kernel's reason.
        use = connectionUse({{smcr::Side::client, QStringLiteral("kernel.smcr.clnt_v2_succ_cnt"), 0},
                             {smcr::Side::client, QStringLiteral("kernel.fallback.client.SMC_CLC_DECL_PEERNOSMC"), 1}});
        QVERIFY(use.judged && use.overTcp());
        QCOMPARE(use.reasonsText(), QStringLiteral("SMC_CLC_DECL_PEERNOSMC"));
        // Kernel TCP, or a plain TCP client against a libsmcr listener: not judged.
        use = connectionUse({{smcr::Side::client, QStringLiteral("tcp.connects"), 1},
                             {smcr::Side::server, QStringLiteral("smcr.srv_fallbacks"), 1}});
        QVERIFY(!use.judged && !use.overTcp() && !use.fellBack());
    }
};

QTEST_APPLESS_MAIN(TestReportFormats)
#include "test_report_formats.moc"
