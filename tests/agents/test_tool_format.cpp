// The tool-style reports: qperf blocks, wrk's table, redis-benchmark's forms.
#include <QJsonArray>
#include <QTest>

#include "qperf_format.h"
#include "redis_format.h"
#include "tool_format.h"
#include "wrk_format.h"

using namespace smclab::workloads;

class TestToolFormat : public QObject {
    Q_OBJECT
private slots:
    void numbers() {
        QCOMPARE(commaGrouped(65536), std::string("65,536"));
        QCOMPARE(commaGrouped(999), std::string("999"));
        QCOMPARE(significant(1.904), std::string("1.9"));
        QCOMPARE(significant(28.94), std::string("28.9"));
        QCOMPARE(significant(198.2), std::string("198"));
        QCOMPARE(significant(1234.0), std::string("1,234"));
        QCOMPARE(binaryScaled(3.84 * 1024 * 1024 * 1024), std::string("3.84GB"));
        QCOMPARE(binaryScaled(512), std::string("512.00B"));
        QCOMPARE(metricScaled(43280), std::string("43.28k"));
        QCOMPARE(wrkTime(109.05), std::string("109.05us"));
        QCOMPARE(wrkTime(3090), std::string("3.09ms"));
        QCOMPARE(qperfSize(65536), std::string("64 KiB (65,536)"));
        QCOMPARE(qperfSize(1), std::string("1 bytes"));
        QCOMPARE(qperfSize(1000), std::string("1 KB (1,000)"));
    }

    void qperfBlockMatchesQperfsLayout() {
        RunResult r;
        r.workload = "tcp_bw";
        r.params = {{"msg_size", 65536}, {"duration_ms", 2000}};
        r.summary = {{"bw_MBps", 2392.0}, {"msg_rate", 36500.0}};
        QperfVerbosity v;
        v.user = 1;
        QCOMPARE(formatQperfBlock(r, v), std::string("tcp_bw:\n"
                                                     "    bw        =  2.39 GB/sec\n"
                                                     "    msg_size  =    64 KiB (65,536)\n"
                                                     "    time      =     2 sec\n"));
        v.oneUnit = true;
        v.user = 0;
        QCOMPARE(formatQperfBlock(r, v), std::string("tcp_bw:\n    bw  =  2,392 MB/sec\n"));
        RunResult lat;
        lat.workload = "tcp_lat";
        lat.params = {{"msg_size", 1}, {"duration_ms", 1000}};
        lat.summary = {{"latency_us", 9.32}};
        QCOMPARE(formatQperfBlock(lat, QperfVerbosity{}), std::string("tcp_lat:\n    latency  =  9.32 us\n"));
    }

    void wrkReportLayout() {
        RunResult r;
        r.workload = "http";
        r.params = {{"duration_ms", 10000}, {"threads", 2}, {"connections", 10}};
        for (int i = 0; i < 100; ++i) r.latency.record(100000 + static_cast<uint64_t>(i) * 100);
        r.summary = {{"url", "http://127.0.0.1:8080/4k.html"},
                     {"requests", 867966},
                     {"bytes", 3.84 * 1024 * 1024 * 1024},
                     {"duration_sec", 10.1},
                     {"requests_per_sec", 85936.05},
                     {"transfer_bytes_per_sec", 389.32 * 1024 * 1024},
                     {"latency_within_stdev_pct", 92.55},
                     {"req_per_sec_thread",
                      QJsonObject{{"mean", 43280.0}, {"stdev", 2490.0}, {"max", 48740.0}, {"within_stdev_pct", 70.3}}},
                     {"errors", QJsonObject{{"connect", 0}, {"read", 0}, {"write", 0}, {"timeout", 0}, {"status", 0}}}};
        const std::string text = formatWrkReport(r, true);
        const QStringList lines = QString::fromStdString(text).split('\n');
        QCOMPARE(lines[0], QString("Running 10s test @ http://127.0.0.1:8080/4k.html"));
        QCOMPARE(lines[1], QString("  2 threads and 10 connections"));
        QCOMPARE(lines[2], QString("  Thread Stats   Avg      Stdev     Max   +/- Stdev"));
        QVERIFY(lines[3].startsWith("    Latency   "));
        QVERIFY(lines[3].endsWith("92.55%"));
        QCOMPARE(lines[4], QString("    Req/Sec    43.28k     2.49k   48.74k    70.30%"));
        QCOMPARE(lines[5], QString("  Latency Distribution"));
        QVERIFY(lines[6].startsWith("     50%  "));
        QCOMPARE(lines[10], QString("  867966 requests in 10.10s, 3.84GB read"));
        QCOMPARE(lines[11], QString("Requests/sec:  85936.05"));
        QCOMPARE(lines[12], QString("Transfer/sec:    389.32MB"));
    }

    void redisBenchmarkForms() {
        HdrHistogram h;
        for (int i = 1; i <= 1000; ++i) h.record(static_cast<uint64_t>(i) * 1000);
        RunResult r;
        r.workload = "kv";
        r.params = {{"data_size", 3}, {"keepalive", true}};
        r.summary = {
            {"clients", 50},
            {"threads", 1},
            {"server_config", QJsonObject{{"save", ""}, {"appendonly", "no"}}},
            {"tests", QJsonArray{QJsonObject{{"test", "SET"},
                                             {"requests", 100000},
                                             {"seconds", 1.23},
                                             {"rps", 81234.774},
                                             {"avg_latency_ms", 0.319},
                                             {"min_latency_ms", 0.096},
                                             {"p50_latency_ms", 0.303},
                                             {"p95_latency_ms", 0.471},
                                             {"p99_latency_ms", 0.599},
                                             {"max_latency_ms", 1.231},
                                             {"latency_hdr_base64", QString::fromLatin1(h.toBytes().toBase64())}}}}};
        QCOMPARE(formatRedisBenchmark(r, RedisOutput::quiet),
                 std::string("SET: 81234.77 requests per second, p50=0.303 msec\n"));
        QCOMPARE(formatRedisBenchmark(r, RedisOutput::csv),
                 std::string("\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
                             "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
                             "\"SET\",\"81234.77\",\"0.319\",\"0.096\",\"0.303\",\"0.471\",\"0.599\",\"1.231\"\n"));
        const QString full = QString::fromStdString(formatRedisBenchmark(r, RedisOutput::full));
        QVERIFY(
            full.startsWith("====== SET ======\n  100000 requests completed in 1.23 seconds\n  50 parallel clients\n"
                            "  3 bytes payload\n  keep alive: 1\n  host configuration \"save\": \n"
                            "  host configuration \"appendonly\": no\n  multi-thread: no\n\n"
                            "Latency by percentile distribution:\n0.000% <= 0.001 milliseconds (cumulative count 1)\n"
                            "50.000% <= 0.500 milliseconds (cumulative count 500)\n"));
        QVERIFY(full.contains(
            "100.000% <= 1.000 milliseconds (cumulative count 1000)\n\nCumulative distribution of latencies:\n"
            "10.000% <= 0.100 milliseconds (cumulative count 100)\n"));
        QVERIFY(
            full.contains("Summary:\n  throughput summary: 81234.77 requests per second\n  latency summary (msec):\n"
                          "          avg       min       p50       p95       p99       max\n"
                          "        0.319     0.096     0.303     0.471     0.599     1.231\n"));
    }
};

QTEST_APPLESS_MAIN(TestToolFormat)
#include "test_tool_format.moc"
