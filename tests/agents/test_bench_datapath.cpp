// Smoke runs of `smclab bench stream --preset datapath` and `smclab bench
// sendfile`: a few short runs that check the table shape (sections, header
// labels in order, one row per size with a value and percentage per column),
// the Shapes section, the machine formats, the campaign a bench stream run
// leaves in the store, and option errors. Never the numbers themselves: the
// host is shared and they are what the benchmark is for.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "tool_process.h"

using namespace smclab::testing;

namespace {

const QStringList kDefaultColumns = {"SMC-NoCork", "TCP", "SMC-AutoCorking", "SMC with patches"};

// The lines of one "==== Title ====" section (header included), up to the next section.
QStringList section(const QString& out, const QString& title) {
    const QStringList lines = out.split('\n');
    QStringList result;
    bool in = false;
    for (const QString& line : lines) {
        if (line.startsWith("==== ")) {
            if (in) break;
            in = line == "==== " + title + " ====";
            continue;
        }
        if (in && !line.isEmpty()) result << line;
    }
    return result;
}

// Header: "MsgSize" right-aligned in 8, then the labels in order.
void checkHeader(const QString& header, const QStringList& columns) {
    QVERIFY2(header.startsWith(" MsgSize        "), qPrintable(header));
    qsizetype at = 0;
    for (const QString& label : columns) {
        const qsizetype found = header.indexOf(label, at);
        QVERIFY2(found > at, qPrintable(label + " not in order in: " + header));
        at = found + label.size();
    }
}

// Non-overlapping matches (QString::count(QRegularExpression) counts overlapping ones).
int matches(const QString& text, const QRegularExpression& re) {
    int n = 0;
    for (auto it = re.globalMatch(text); it.hasNext(); it.next()) ++n;
    return n;
}

// A row: the size right-aligned in 8, a value + unit per column, a
// percentage after every column but the first.
void checkRow(const QString& row, qint64 size, int columns, const QString& unit) {
    QVERIFY2(row.startsWith(QString::number(size).rightJustified(8)), qPrintable(row));
    const QRegularExpression value("\\d+\\.\\d{3} " + QRegularExpression::escape(unit));
    QCOMPARE(matches(row, value), columns);
    QCOMPARE(matches(row, QRegularExpression("\\(\\s*-?\\d+\\.\\d{2}%\\)")), columns - 1);
    QVERIFY2(!row.contains(" - "), qPrintable("missing value: " + row));
}

}  // namespace

class TestBenchDatapath : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    // Every bench run writes its campaign here, not into the user's store.
    QStringList db() const { return {"--db", m_dir.filePath("bench.db")}; }

private slots:
    void presetPrintsCoverLetterTablesAndShapes() {
        RunOutput r = runProgram(smclabProgram(),
                                 QStringList{"bench", "stream", "--preset", "datapath", "-oo", "msg_size:1:4K:*64",
                                             "-t", "100ms", "--reps", "1", "--no-pin"} +
                                     db(),
                                 90000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith("==== Bandwidth ====\n"), qPrintable(r.out));
        const QStringList bw = section(r.out, "Bandwidth");
        const QStringList lat = section(r.out, "Latency");
        QCOMPARE(bw.size(), 4);
        QCOMPARE(lat.size(), 4);
        checkHeader(bw[0], kDefaultColumns);
        checkHeader(lat[0], kDefaultColumns);
        const qint64 sizes[] = {1, 64, 4096};
        for (int i = 0; i < 3; ++i) {
            checkRow(bw[i + 1], sizes[i], 4, "MB/s");
            checkRow(lat[i + 1], sizes[i], 4, "us");
        }
        // Every shape has a verdict; those needing the isolation columns say so.
        const QStringList shapes = section(r.out, "Shapes");
        QCOMPARE(shapes.size(), 8);
        for (const QString& line : shapes) {
            // INCONCLUSIVE: one run per cell gives no interval.
            QVERIFY2(QRegularExpression("^(PASS|MISS|INCONCLUSIVE|--  )  \\S").match(line).hasMatch(),
                     qPrintable(line));
        }
        QVERIFY(r.out.contains("needs column SMC-WndLimit (--isolate)"));
        QVERIFY(!shapes[0].startsWith("--"));  // autocorking vs no-cork is in the default columns

        // The run is a campaign in the store like any other: 3 sizes x 2
        // tests x 4 columns, every run done, the wire in its notes.
        const QRegularExpression campaignLine("campaign (\\d+) in ");
        const auto match = campaignLine.match(r.out);
        QVERIFY2(match.hasMatch(), qPrintable(r.out));
        RunOutput show = runProgram(smclabProgram(), QStringList{"show", match.captured(1)} + db());
        QVERIFY2(show.exitCode == 0, qPrintable(show.err));
        QVERIFY2(show.out.contains("preset    datapath"), qPrintable(show.out));
        QVERIFY2(show.out.contains("(24 of 24 runs done, 0 failed)"), qPrintable(show.out));
        QVERIFY2(show.out.contains("Wire: link cx4lx-vf"), qPrintable(show.out));
        // Every run's own facts: the wire it crossed and the host's load.
        QVERIFY2(show.out.contains(
                     QRegularExpression("wire \\(from the runs' facts\\):\n  link cx4lx-vf: .* \\(24 runs\\)\n")),
                 qPrintable(show.out));
        QVERIFY2(show.out.contains(QRegularExpression("host load: \\d+ of 24 runs ran on a busy host")),
                 qPrintable(show.out));
    }

    void isolationColumnsAndCounters() {
        RunOutput r = runProgram(smclabProgram(),
                                 QStringList{"bench", "stream", "--preset", "datapath", "--test", "tcp_bw", "--columns",
                                             "nocork,patches", "--isolate", "--counters", "-oo", "msg_size:2K:2K:*2",
                                             "-t", "100ms", "--reps", "1", "--no-pin"} +
                                     db(),
                                 90000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList bw = section(r.out, "Bandwidth");
        QCOMPARE(bw.size(), 2);
        checkHeader(bw[0], {"SMC-NoCork", "SMC with patches", "SMC-WndLimit", "SMC-AutoCork+Wnd", "SMC-DrainArm",
                            "SMC-TxDefer"});
        checkRow(bw[1], 2048, 6, "MB/s");
        QVERIFY(section(r.out, "Latency").isEmpty());
        // Counter tables come from both engines; CQ wake-ups always exist.
        const QStringList cq = section(r.out, "CQ wake-ups per 1000 messages (tcp_bw)");
        QCOMPARE(cq.size(), 2);
        // Both processes' CPU per message (qperf's send_cost + recv_cost), a
        // positive value in every column: a run spends some CPU per message.
        const QStringList cpu = section(r.out, "CPU time per message, sender + receiver, us (tcp_bw)");
        QCOMPARE(cpu.size(), 2);
        const QRegularExpression positive("(^|\\s)(0\\.0*[1-9]\\d*|[1-9]\\d*\\.\\d+)(\\s|\\(|$)");
        QVERIFY2(!cpu[1].contains(" - "), qPrintable(cpu[1]));
        QCOMPARE(matches(cpu[1].mid(8), positive), 6);
        const QStringList shapes = section(r.out, "Shapes");
        QCOMPARE(shapes.size(), 8);
        // A verdict, or INCONCLUSIVE (single runs have no interval).
        const auto verdict = [](const QString& line) {
            return line.startsWith("PASS") || line.startsWith("MISS") || line.startsWith("INCONCLUSIVE");
        };
        QVERIFY2(verdict(shapes[2]), qPrintable(shapes[2]));  // window limit
        // With autocorking: needs the SMC-AutoCorking column, not asked for here.
        QVERIFY2(shapes[3].contains("needs column SMC-AutoCorking (--columns)"), qPrintable(shapes[3]));
        QVERIFY2(verdict(shapes[4]), qPrintable(shapes[4]));  // drain_then_arm
    }

    void machineFormats() {
        const QStringList base = QStringList{"bench", "stream", "--preset", "datapath", "-oo",     "msg_size:64:64:*2",
                                             "-t",    "100ms",  "--reps",   "1",        "--no-pin"} +
                                 db();
        RunOutput csv = runProgram(smclabProgram(), base + QStringList{"--format", "csv"}, 60000);
        QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
        const QStringList lines = csv.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 2 * 4);  // header + 2 tables x 1 size x 4 columns
        QVERIFY(lines[0].startsWith("table,metric,unit"));
        QVERIFY(lines[1].startsWith("Bandwidth,bw_mbps,MB/s,0,tcp_bw,0,SMC-NoCork,64,"));

        RunOutput json = runProgram(smclabProgram(), base + QStringList{"--format", "json"}, 60000);
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject root = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(root.value("format").toString(), QString("smclab-report"));
        const QJsonArray tables = root.value("tables").toArray();
        QCOMPARE(tables.size(), 2);
        QCOMPARE(tables[0].toObject().value("columns").toArray().size(), 4);
        QCOMPARE(tables[1].toObject().value("title").toString(), QString("Latency"));
        bool shapes = false;
        for (const QJsonValue& d : root.value("details").toArray()) {
            if (d.toObject().value("title").toString() == "Shapes") {
                shapes = true;
                QCOMPARE(d.toObject().value("rows").toArray().size(), 8);
            }
        }
        QVERIFY(shapes);
    }

    void sendfileTable() {
        RunOutput r = runProgram(
            smclabProgram(),
            QStringList{"bench", "sendfile", "-t", "200ms", "-c", "2", "--counters", "--no-pin"} + db(), 60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList rps = section(r.out, "Requests/sec");
        QCOMPARE(rps.size(), 2);
        // The sendfile-cork preset's columns, then kernel TCP.
        checkHeader(rps[0], {"sendfile off", "sendfile on (orig)", "sendfile on (this)", "TCP sendfile"});
        checkRow(rps[1], 4096, 4, "req/s");
        // Counters exist for the SMC columns only (TCP has no engine).
        const QStringList cdc = section(r.out, "Server CDC messages per request");
        QCOMPARE(cdc.size(), 2);
        QVERIFY2(cdc[1].trimmed().endsWith("-"), qPrintable(cdc[1]));
        QVERIFY2(r.out.contains(QRegularExpression("campaign \\d+ in ")), qPrintable(r.out));
    }

    void badOptionsNameTheOption() {
        struct Case {
            QStringList args;
            QString text;
        };
        const QList<Case> cases = {
            {{"bench", "stream", "--preset", "fast"}, "unknown preset 'fast'"},
            {{"bench", "stream", "--preset", "datapath", "--columns", "nocork,bogus"}, "unknown column 'bogus'"},
            {{"bench", "stream", "--preset", "datapath", "--format", "xml"}, "--format must be"},
            {{"bench", "stream", "--isolate"}, "go with --preset datapath"},
            {{"bench", "stream", "--preset", "datapath", "--compare"}, "pick one"},
            {{"bench", "stream", "-t", "50ms"}, "-t needs a duration 100ms..1h"},
            {{"bench", "stream", "--reps", "0"}, "--reps needs 1..1000"},
            {{"bench", "sendfile", "-c", "0"}, "-c needs 1..10000"},
            {{"bench", "sendfile", "--columns", "nginx"}, "unknown column 'nginx'"},
            {{"bench", "kv", "--preset", "credits", "--columns", "off,fast"}, "unknown column 'fast'"},
            {{"bench", "accept", "--set", "lab.no_such=1"}, "--set:"},
            {{"bench", "sendfile", "--file-size", "lots"}, "--file-size: bad size 'lots'"},
        };
        for (const Case& c : cases) {
            RunOutput r = runProgram(smclabProgram(), c.args);
            QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(' ') + " -> " + QString::number(r.exitCode)));
            QVERIFY2(r.err.contains(c.text), qPrintable(c.args.join(' ') + " -> " + r.err));
        }
        for (const QStringList& args :
             {QStringList{"bench", "stream", "--help"}, QStringList{"bench", "sendfile", "--help"}}) {
            RunOutput r = runProgram(smclabProgram(), args);
            QCOMPARE(r.exitCode, 0);
            QVERIFY(r.out.contains("usage: smclab bench"));
        }
    }
};

QTEST_GUILESS_MAIN(TestBenchDatapath)
#include "test_bench_datapath.moc"
