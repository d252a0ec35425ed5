// The shape checks of `smclab bench stream --preset datapath` on made-up
// runs: thresholds, the size ranges each shape looks at, counter ratios per
// message from both ends, and the reasons given when a shape cannot be
// measured.
#include <QTest>

#include "orchestrator/datapath_verdicts.h"
#include "smclab/report/datapath_shapes.h"

using namespace smclab::report;

namespace {

StreamResult bw(double mbs, uint64_t messages = 1000, CounterMap client = {}, CounterMap server = {}) {
    StreamResult r;
    r.ok = true;
    r.bwMBs = mbs;
    r.messages = messages;
    r.clientCounters = std::move(client);
    r.serverCounters = std::move(server);
    return r;
}

StreamResult lat(double us) {
    StreamResult r;
    r.ok = true;
    r.latMeanUs = us;
    r.messages = 1000;
    return r;
}

DatapathRun runWith(const std::vector<std::string>& keys, const std::vector<uint64_t>& sizes) {
    DatapathRun run;
    run.link = "cx4-25g";
    run.known = smclab::orchestrator::datapathShapeColumns();
    for (const std::string& k : keys) {
        for (const ShapeColumn& c : run.known) {
            if (c.key == k) run.columns.push_back(c);
        }
    }
    run.sizes = sizes;
    run.bw.assign(sizes.size(), std::vector<StreamResult>(keys.size()));
    return run;
}

// Three identical repetitions of every cell: intervals of zero width, so a
// verdict is the one the numbers give. A verdict needs
// repetitions; the single-run cases below are INCONCLUSIVE.
DatapathRun repeated(DatapathRun run) {
    const auto copy = [](const std::vector<std::vector<StreamResult>>& results, bool bandwidth) {
        std::vector<std::vector<std::vector<double>>> out(results.size());
        for (size_t i = 0; i < results.size(); ++i) {
            for (const StreamResult& r : results[i]) {
                const double v = bandwidth ? r.bwMBs : r.latMeanUs;
                out[i].push_back(r.ok ? std::vector<double>{v, v, v} : std::vector<double>{});
            }
        }
        return out;
    };
    run.bwSamples = copy(run.bw, true);
    run.latSamples = copy(run.lat, false);
    return run;
}

const ShapeResult& byKey(const std::vector<ShapeResult>& shapes, const std::string& key) {
    for (const ShapeResult& s : shapes) {
        if (s.key == key) return s;
    }
    static const ShapeResult none;
    return none;
}

}  // namespace

class TestDatapathShapes : public QObject {
    Q_OBJECT
private slots:
    void autocorkingNeedsThreeTimesUpTo512Bytes() {
        DatapathRun run = runWith({"nocork", "autocork"}, {1, 512, 1024});
        run.bw[0] = {bw(1.0), bw(4.0)};
        run.bw[1] = {bw(100.0), bw(310.0)};
        run.bw[2] = {bw(1000.0), bw(1000.0)};  // 1 KiB is outside the range: no effect
        ShapeResult s = byKey(evaluateShapes(repeated(run)), "autocork_bw");
        QCOMPARE(s.verdict, ShapeVerdict::pass);
        QCOMPARE(s.ratio, 3.1);
        QVERIFY2(s.measured.find("min 3.10x at 512 B") != std::string::npos, s.measured.c_str());
        run.bw[1][1] = bw(290.0);
        s = byKey(evaluateShapes(repeated(run)), "autocork_bw");
        QCOMPARE(s.verdict, ShapeVerdict::miss);
    }

    void latencyWithinFivePercentBothWays() {
        DatapathRun run = runWith({"nocork", "tcp", "autocork"}, {1, 64});
        run.lat.assign(2, std::vector<StreamResult>(3));
        run.lat[0] = {lat(10.0), lat(12.0), lat(10.4)};
        run.lat[1] = {lat(10.0), lat(12.0), lat(9.6)};
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "autocork_lat").verdict, ShapeVerdict::pass);
        run.lat[1][2] = lat(9.4);
        const ShapeResult s = byKey(evaluateShapes(repeated(run)), "autocork_lat");
        QCOMPARE(s.verdict, ShapeVerdict::miss);
        QVERIFY2(s.measured.find("-6.00% at 64 B") != std::string::npos, s.measured.c_str());
    }

    void windowLimitLooksAtTwoFourEightKiB() {
        DatapathRun run = runWith({"nocork", "wndlimit"}, {1024, 2048, 4096, 8192, 16384});
        run.bw[0] = {bw(100), bw(100)};  // no gain outside the range is fine
        run.bw[1] = {bw(100), bw(140)};
        run.bw[2] = {bw(100), bw(131)};
        run.bw[3] = {bw(100), bw(150)};
        run.bw[4] = {bw(100), bw(90)};
        ShapeResult s = byKey(evaluateShapes(repeated(run)), "wndlimit_bw");
        QCOMPARE(s.verdict, ShapeVerdict::pass);
        QVERIFY2(s.measured.find("+31.00% at 4096 B") != std::string::npos, s.measured.c_str());
        run.bw[2][1] = bw(129);
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "wndlimit_bw").verdict, ShapeVerdict::miss);
    }

    void windowLimitWithAutocorkingComparesAgainstAutocorking() {
        DatapathRun run = runWith({"autocork", "autownd"}, {2048, 4096, 8192});
        run.bw[0] = {bw(100), bw(145)};
        run.bw[1] = {bw(200), bw(350)};
        run.bw[2] = {bw(300), bw(420)};
        ShapeResult s = byKey(evaluateShapes(repeated(run)), "wndlimit_autocork_bw");
        QCOMPARE(s.verdict, ShapeVerdict::pass);
        QVERIFY2(s.measured.find("+40.00% at 8192 B") != std::string::npos, s.measured.c_str());
        run.bw[2][1] = bw(380);
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "wndlimit_autocork_bw").verdict, ShapeVerdict::miss);
        // The no-cork baseline is not what patch #5's commit compared against.
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "wndlimit_bw").verdict, ShapeVerdict::notMeasured);
    }

    void counterRatiosArePerMessageFromBothEnds() {
        DatapathRun run = runWith({"nocork", "drain"}, {64, 4096});
        // nocork: (600 + 400) / 1000 = 1 wake-up per message; drain: (200 + 200) / 1000 = 0.4.
        run.bw[0] = {bw(100, 1000, {{kCqWakeupsCounter, 600}}, {{kCqWakeupsCounter, 400}}),
                     bw(103, 1000, {{kCqWakeupsCounter, 200}}, {{kCqWakeupsCounter, 200}})};
        // Same ratio with twice the messages.
        run.bw[1] = {bw(500, 2000, {{kCqWakeupsCounter, 1000}}, {{kCqWakeupsCounter, 1000}}),
                     bw(490, 2000, {{kCqWakeupsCounter, 400}}, {{kCqWakeupsCounter, 400}})};
        ShapeResult s = byKey(evaluateShapes(repeated(run)), "drain_wakeups");
        QCOMPARE(s.verdict, ShapeVerdict::pass);
        QVERIFY(qAbs(s.ratio - 2.5) < 1e-9);
        // Fewer wake-ups bought with bandwidth is a miss; a gain is fine.
        run.bw[1][1].bwMBs = 400;
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "drain_wakeups").verdict, ShapeVerdict::miss);
        run.bw[1][1].bwMBs = 700;
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "drain_wakeups").verdict, ShapeVerdict::pass);
        // Not enough fewer: a miss.
        run.bw[1][1].bwMBs = 500;
        run.bw[0][1].clientCounters[kCqWakeupsCounter] = 400;
        run.bw[1][1].clientCounters[kCqWakeupsCounter] = 800;
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "drain_wakeups").verdict, ShapeVerdict::miss);
    }

    void unmeasurableShapesSayWhy() {
        DatapathRun run = runWith({"nocork", "txdefer"}, {64});
        run.bw[0] = {bw(100), bw(100)};  // no counters at all
        const auto shapes = evaluateShapes(repeated(run));
        QCOMPARE(shapes.size(), size_t(8));
        const ShapeResult& defer = byKey(shapes, "txdefer_pushes");
        QCOMPARE(defer.verdict, ShapeVerdict::notMeasured);
        QVERIFY2(defer.measured.find(std::string("no counter ") + kCompletionPushesCounter) != std::string::npos,
                 defer.measured.c_str());
        QCOMPARE(byKey(shapes, "wndlimit_bw").measured, std::string("needs column SMC-WndLimit (--isolate)"));
        QCOMPARE(byKey(shapes, "patches_1b").measured, std::string("needs column SMC with patches (--columns)"));
        QCOMPARE(byKey(shapes, "autocork_lat").verdict, ShapeVerdict::notMeasured);
        QCOMPARE(shapeVerdictName(ShapeVerdict::notMeasured), "--");
    }

    void singleRunsAreInconclusive() {
        DatapathRun run = runWith({"nocork", "autocork"}, {1, 512});
        run.bw[0] = {bw(1.0), bw(4.0)};
        run.bw[1] = {bw(100.0), bw(310.0)};
        const ShapeResult s = byKey(evaluateShapes(run), "autocork_bw");
        QCOMPARE(s.verdict, ShapeVerdict::inconclusive);
        QCOMPARE(s.ratio, 3.1);  // the figure is still shown
        QVERIFY2(s.measured.find("one repetition per cell: no interval") != std::string::npos, s.measured.c_str());
        QCOMPARE(shapeVerdictName(ShapeVerdict::inconclusive), "INCONCLUSIVE");
    }

    void verdictsFromTheIntervals() {
        DatapathRun run = runWith({"nocork", "autocork"}, {512});
        run.bw[0] = {bw(100.0), bw(330.0)};
        run.bwSamples = {{{99.0, 100.0, 101.0, 100.5}, {320.0, 330.0, 340.0, 335.0}}};
        // Every pairwise ratio is above 3: the 97% interval clears 3x.
        ShapeResult s = byKey(evaluateShapes(run), "autocork_bw");
        QCOMPARE(s.verdict, ShapeVerdict::pass);
        QVERIFY2(s.measured.find("intervals at 97% or more") != std::string::npos, s.measured.c_str());
        // The median says 3.3x but one repetition fell to 2.5x: the interval
        // reaches under 3x, so no verdict either way.
        run.bwSamples[0][1] = {250.0, 330.0, 340.0, 335.0};
        s = byKey(evaluateShapes(run), "autocork_bw");
        QCOMPARE(s.verdict, ShapeVerdict::inconclusive);
        QVERIFY(s.ratio > 3.0);
        // Wholly under 3x: a miss.
        run.bwSamples[0][1] = {200.0, 210.0, 220.0, 215.0};
        QCOMPARE(byKey(evaluateShapes(run), "autocork_bw").verdict, ShapeVerdict::miss);
    }

    void failedRunsAreLeftOut() {
        DatapathRun run = runWith({"patches", "tcp"}, {1, 64});
        run.link = "ideal";
        run.bw[0] = {bw(50), bw(4)};
        run.bw[1] = {StreamResult{}, bw(200)};  // the SMC run at 64 B failed
        const ShapeResult s = byKey(evaluateShapes(repeated(run)), "patches_tcp");
        QCOMPARE(s.verdict, ShapeVerdict::pass);
        QCOMPARE(s.ratio, 12.5);
    }

    // A cell whose data went over TCP says nothing about SMC-R. The
    // autocorking shape that passes on SMC-R numbers has no verdict from
    // the same numbers when its only size ran over TCP.
    void cellsOverTcpGiveNoVerdict() {
        DatapathRun run = runWith({"nocork", "autocork"}, {512});
        run.bw[0] = {bw(100.0), bw(330.0)};
        QCOMPARE(byKey(evaluateShapes(repeated(run)), "autocork_bw").verdict, ShapeVerdict::pass);
        run.bw[0][1].overTcp = true;
        const ShapeResult s = byKey(evaluateShapes(repeated(run)), "autocork_bw");
        QVERIFY2(s.verdict != ShapeVerdict::pass && s.verdict != ShapeVerdict::miss, s.measured.c_str());
    }
};

QTEST_APPLESS_MAIN(TestDatapathShapes)
#include "test_datapath_shapes.moc"
