// The parsers of qperf, wrk, redis-benchmark and iperf3 output, on outputs
// captured from the real programs (tests/agents/data/tools/, made on this
// lab's Debian 12 host: qperf 0.4.11, wrk 4.1.0, redis 7.0, iperf 3.12),
// plus a truncated and a garbled one each: clear errors, nothing guessed.
#include <QFile>
#include <QJsonArray>
#include <QTest>

#include "iperf3_intervals.h"
#include "iperf3_output.h"
#include "qperf_output.h"
#include "redis_output.h"
#include "wrk_output.h"

using namespace smclab::workloads;

namespace {

std::string capture(const char* name) {
    QFile f(qEnvironmentVariable("SMCLAB_SOURCE_DIR") + "/tests/agents/data/tools/" + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing test data %s", name);
    return f.readAll().toStdString();
}

double num(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toDouble(-1);
}

bool mentions(const smcr::Error& e, const char* text) {
    return e.message.find(text) != std::string::npos;
}

}  // namespace

class TestToolParsers : public QObject {
    Q_OBJECT
private slots:
    void qperf() {
        auto r = parseQperfOutput(capture("qperf_bw_lat.txt"));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->size(), size_t(2));
        QCOMPARE(r->at(0).test, std::string("tcp_bw"));
        QCOMPARE(num(r->at(0).figures, "bw_MBps"), 2820.0);
        QCOMPARE(num(r->at(0).figures, "time_sec"), 1.0);
        QCOMPARE(num(r->at(1).figures, "latency_us"), 19.1);

        auto loop = parseQperfOutput(capture("qperf_loop.txt"));  // -oo msg_size:1:4:*2
        QVERIFY(loop.ok());
        QCOMPARE(loop->size(), size_t(3));
        QCOMPARE(num(loop->at(0).figures, "msg_size"), 1.0);
        QCOMPARE(num(loop->at(0).figures, "bw_MBps"), 0.402);
        QCOMPARE(num(loop->at(2).figures, "msg_size"), 4.0);
        QCOMPARE(num(loop->at(2).figures, "bw_MBps"), 1.66);

        auto vt = parseQperfOutput(capture("qperf_vt.txt"));  // -vu -vt tcp_lat
        QVERIFY(vt.ok());
        QCOMPARE(num(vt->at(0).figures, "loc_cpus_used"), 116.0);
        QCOMPARE(num(vt->at(0).figures, "rem_cpus_used"), 116.0);

        auto v = parseQperfOutput(capture("qperf_v.txt"));  // -v tcp_bw
        QVERIFY(v.ok());
        QCOMPARE(num(v->at(0).figures, "msg_rate"), 26400.0);
        QCOMPARE(num(v->at(0).figures, "send_cost_ms_per_GB"), 820.0);
        QCOMPARE(num(v->at(0).figures, "recv_cpus_used"), 142.0);

        auto vv = parseQperfOutput(capture("qperf_vv.txt"));
        QVERIFY2(vv.ok(), vv.ok() ? "" : vv.error().message.c_str());
        QCOMPARE(num(vv->at(0).figures, "msg_size"), 65536.0);
        QCOMPARE(num(vv->at(0).figures, "send_msgs"), 41815.0);
        QCOMPARE(num(vv->at(0).figures, "send_bytes"), 2.74e9);
        QCOMPARE(num(vv->at(1).figures, "loc_cpu_time_sec"), 0.85);

        auto cut = parseQperfOutput(capture("qperf_truncated.txt"));
        QVERIFY(!cut.ok());
        QVERIFY2(mentions(cut.error(), "line 3") && mentions(cut.error(), "no value"), cut.error().message.c_str());
        QVERIFY(!parseQperfOutput("tcp_bw:\n").ok());
        QVERIFY(!parseQperfOutput("").ok());
        auto garbled = parseQperfOutput(capture("qperf_garbled.txt"));
        QVERIFY(!garbled.ok());
        QVERIFY2(mentions(garbled.error(), "furlongs"), garbled.error().message.c_str());
    }

    void wrk() {
        auto r = parseWrkOutput(capture("wrk_latency.txt"), true);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(num(*r, "requests_per_sec"), 27331.02);
        QCOMPARE(num(*r, "transfer_bytes_per_sec"), 113.02 * 1024 * 1024);
        QCOMPARE(num(*r, "requests"), 30068.0);
        QCOMPARE(num(*r, "duration_sec"), 1.1);
        QCOMPARE(num(*r, "p50_us"), 338.0);
        QCOMPARE(num(*r, "p99_us"), 920.0);
        QCOMPARE(num(*r, "latency_max_us"), 4530.0);
        QCOMPARE(num(*r, "threads"), 2.0);
        QCOMPARE(num(*r, "connections"), 10.0);
        QCOMPARE(num(*r, "errors_total"), 0.0);

        auto close = parseWrkOutput(capture("wrk_close.txt"), true);  // -H 'Connection: Close'
        QVERIFY(close.ok());
        QCOMPARE(num(*close, "requests_per_sec"), 17785.05);

        auto errors = parseWrkOutput(capture("wrk_errors.txt"), false);
        QVERIFY2(errors.ok(), errors.ok() ? "" : errors.error().message.c_str());
        QCOMPARE(num(errors->value("errors").toObject(), "read"), 21898.0);
        QCOMPARE(num(*errors, "errors_total"), 21898.0);
        auto non2xx = parseWrkOutput(capture("wrk_non2xx.txt"), false);
        QVERIFY(non2xx.ok());
        QCOMPARE(num(non2xx->value("errors").toObject(), "status"), 42223.0);

        QVERIFY(!parseWrkOutput(capture("wrk_latency.txt").substr(0, 200), false).ok());
        auto noLatency = parseWrkOutput(capture("wrk_non2xx.txt"), true);
        QVERIFY(!noLatency.ok() && mentions(noLatency.error(), "Latency Distribution"));
        auto cut = parseWrkOutput(capture("wrk_truncated.txt"), true);
        QVERIFY(!cut.ok());
        QVERIFY2(mentions(cut.error(), "cut off"), cut.error().message.c_str());
        auto garbled = parseWrkOutput(capture("wrk_garbled.txt"), true);
        QVERIFY(!garbled.ok());
        QVERIFY2(mentions(garbled.error(), "Requests/sec is not a number"), garbled.error().message.c_str());
        auto refused = parseWrkOutput(capture("wrk_refused.txt"), true);
        QVERIFY(!refused.ok() && mentions(refused.error(), "could not connect"));
    }

    void redisBenchmark() {
        auto q = parseRedisBenchmarkOutput(capture("redis_q.txt"), RedisBenchmarkForm::quiet);
        QVERIFY2(q.ok(), q.ok() ? "" : q.error().message.c_str());
        const QJsonArray tests = q->value("tests").toArray();
        QCOMPARE(tests.size(), 2);
        QCOMPARE(tests[0].toObject().value("test").toString(), QString("SET"));
        QCOMPARE(num(tests[0].toObject(), "rps"), 26490.07);
        QCOMPARE(num(tests[0].toObject(), "p50_latency_ms"), 0.303);
        QCOMPARE(num(tests[1].toObject(), "rps"), 26595.75);
        // redis 6.2 (the credits letter's version) prints no p50.
        auto old = parseRedisBenchmarkOutput("SET: 205229.23 requests per second\n", RedisBenchmarkForm::quiet);
        QVERIFY(old.ok());

        auto csv = parseRedisBenchmarkOutput(capture("redis_csv.txt"), RedisBenchmarkForm::csv);
        QVERIFY2(csv.ok(), csv.ok() ? "" : csv.error().message.c_str());
        QCOMPARE(num(csv->value("tests").toArray()[1].toObject(), "p99_latency_ms"), 3.607);

        auto cut = parseRedisBenchmarkOutput(capture("redis_truncated.txt"), RedisBenchmarkForm::quiet);
        QVERIFY(!cut.ok());
        QVERIFY2(mentions(cut.error(), "cut off"), cut.error().message.c_str());
        auto cutCsv = parseRedisBenchmarkOutput(capture("redis_csv_truncated.txt"), RedisBenchmarkForm::csv);
        QVERIFY(!cutCsv.ok() && mentions(cutCsv.error(), "line 3"));
        auto garbled = parseRedisBenchmarkOutput(capture("redis_garbled.txt"), RedisBenchmarkForm::quiet);
        QVERIFY(!garbled.ok());
        QVERIFY2(mentions(garbled.error(), "reqs per sec"), garbled.error().message.c_str());
        auto refused = parseRedisBenchmarkOutput(capture("redis_refused.txt"), RedisBenchmarkForm::quiet);
        QVERIFY(!refused.ok() && mentions(refused.error(), "Could not connect"));
    }

    void iperf3() {
        auto r = parseIperf3Json(capture("iperf3_tcp.json"));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(num(r->summary, "received_bits_per_sec"), 14895354824.274);
        QCOMPARE(num(r->summary, "bw_MBps"), 14895354824.274 / 8e6);
        QCOMPARE(r->summary.value("version").toString(), QString("iperf 3.12"));
        QCOMPARE(r->intervals.size(), size_t(2));
        QVERIFY(num(r->summary, "cpu_remote_pct") > 0);

        auto rev = parseIperf3Json(capture("iperf3_rev_p2.json"));
        QVERIFY(rev.ok());
        QCOMPARE(num(rev->summary, "streams"), 2.0);
        QCOMPARE(num(rev->summary, "reverse"), 1.0);
        auto bidir = parseIperf3Json(capture("iperf3_bidir.json"));
        QVERIFY(bidir.ok());
        QVERIFY(num(bidir->summary, "reverse_bw_MBps") > 0);

        auto refused = parseIperf3Json(capture("iperf3_refused.json"));
        QVERIFY(!refused.ok() && mentions(refused.error(), "Connection refused"));
        auto cut = parseIperf3Json(capture("iperf3_truncated.json"));
        QVERIFY(!cut.ok() && mentions(cut.error(), "does not parse"));
        auto garbled = parseIperf3Json(capture("iperf3_garbled.json"));
        QVERIFY(!garbled.ok());
        QVERIFY2(mentions(garbled.error(), "sum_received"), garbled.error().message.c_str());
        QVERIFY(!parseIperf3Json("").ok());
    }

    void iperf3ServerIntervals() {
        // The server's --forceflush text of three tests (-P 2, --bidir, -R),
        // fed in pieces that split lines: each interval once, the end-of-test
        // sender/receiver lines none.
        const std::string text = capture("iperf3_server_intervals.txt");
        Iperf3IntervalText reader;
        std::vector<Iperf3Interval> intervals;
        for (size_t at = 0; at < text.size(); at += 37) {
            for (const Iperf3Interval& i : reader.feed(std::string_view(text).substr(at, 37))) intervals.push_back(i);
        }
        QCOMPARE(intervals.size(), size_t(6));
        // -P 2: the [SUM] line (466 MBytes), not the streams' added to it.
        QCOMPARE(intervals[0].bytes, 466.0 * 1024 * 1024);
        QCOMPARE(intervals[0].endSec, 0.5);
        QCOMPARE(intervals[1].bytes, 472.0 * 1024 * 1024);
        // --bidir without [SUM]: both directions' streams.
        QCOMPARE(intervals[2].bytes, (178.0 + 278.0) * 1024 * 1024);
        QCOMPARE(intervals[3].endSec, 1.01);
        QCOMPARE(intervals[3].seconds, 1.01 - 0.51);
        // -R: the server's sending lines carry Retr and Cwnd columns.
        QCOMPARE(intervals[4].bytes, 419.0 * 1024 * 1024);
        QCOMPARE(intervals[5].bytes, 430.0 * 1024 * 1024);
        QVERIFY(intervals[5].bitsPerSecond > 0);
        // Garbled or cut-off text completes no interval of its own.
        Iperf3IntervalText garbled;
        QVERIFY(garbled.feed("[  5]   0.00-0.50   sec   banana MBytes\n- - -\n[  5]   0.00-0.5").empty());
    }
};

QTEST_GUILESS_MAIN(TestToolParsers)
#include "test_tool_parsers.moc"
