#include <QJsonArray>
#include <QTest>

#include "workload.h"

using namespace smclab::workloads;

namespace {

ParamSchema sampleSchema() {
    return {
        {"msg_size", ParamType::size, 65536, 1, 1 << 20, {}, ""},
        {"duration_ms", ParamType::durationMs, 2000, 10, 60000, {}, ""},
        {"threads", ParamType::integer, 1, 1, 8, {}, ""},
        {"verify", ParamType::boolean, false, 0, 0, {}, ""},
        {"mode", ParamType::string, QString("fast"), 0, 0, {"fast", "slow"}, ""},
        {"tests", ParamType::stringList, QJsonArray{"set"}, 0, 0, {"set", "get"}, ""},
        {"needed", ParamType::string, QJsonValue(QJsonValue::Undefined), 0, 0, {}, ""},
    };
}

QString errorOf(const QJsonObject& params) {
    auto r = validateParams(sampleSchema(), params);
    if (r.ok()) return QString();
    return QString::fromStdString(r.error().message);
}

}  // namespace

class TestWorkloadParams : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreFilledIn() {
        auto r = validateParams(sampleSchema(), {{"needed", "x"}});
        QVERIFY(r.ok());
        QCOMPARE(r->value("msg_size").toDouble(), 65536.0);
        QCOMPARE(r->value("duration_ms").toDouble(), 2000.0);
        QCOMPARE(r->value("verify").toBool(), false);
        QCOMPARE(r->value("mode").toString(), QString("fast"));
        QCOMPARE(r->value("tests").toArray(), (QJsonArray{"set"}));
    }

    void sizesAndDurationsAcceptToolSpellings() {
        auto r = validateParams(sampleSchema(), {{"needed", "x"}, {"msg_size", "64K"}, {"duration_ms", "2s"}});
        QVERIFY(r.ok());
        QCOMPARE(r->value("msg_size").toDouble(), 65536.0);
        QCOMPARE(r->value("duration_ms").toDouble(), 2000.0);
        r = validateParams(sampleSchema(), {{"needed", "x"}, {"msg_size", "4k"}, {"duration_ms", "250ms"}});
        QVERIFY(r.ok());
        QCOMPARE(r->value("msg_size").toDouble(), 4000.0);
        QCOMPARE(r->value("duration_ms").toDouble(), 250.0);
    }

    void stringListsFromCommaText() {
        auto r = validateParams(sampleSchema(), {{"needed", "x"}, {"tests", "set,get"}});
        QVERIFY(r.ok());
        QCOMPARE(r->value("tests").toArray(), (QJsonArray{"set", "get"}));
    }

    void errorsNameTheField() {
        QVERIFY(errorOf({{"needed", "x"}, {"msg_size", 0}}).startsWith("msg_size: must be in 1..1048576, got 0"));
        QVERIFY(errorOf({{"needed", "x"}, {"msg_size", "huge"}}).startsWith("msg_size: must be a size"));
        QVERIFY(errorOf({{"needed", "x"}, {"threads", 2.5}}).startsWith("threads: must be an integer"));
        QVERIFY(errorOf({{"needed", "x"}, {"threads", "2"}}).startsWith("threads: must be an integer"));
        QVERIFY(errorOf({{"needed", "x"}, {"threads", 9}}).startsWith("threads: must be in 1..8"));
        QVERIFY(errorOf({{"needed", "x"}, {"verify", 1}}).startsWith("verify: must be true or false"));
        QVERIFY(errorOf({{"needed", "x"}, {"mode", "medium"}}).startsWith("mode: must be one of fast, slow"));
        QVERIFY(
            errorOf({{"needed", "x"}, {"tests", QJsonArray{"set", 3}}}).startsWith("tests: must be a list of strings"));
        QVERIFY(errorOf({{"needed", "x"}, {"tests", "set,incr"}}).startsWith("tests: items must be among set, get"));
        QVERIFY(errorOf({{"needed", "x"}, {"duration_ms", "5"}}).startsWith("duration_ms: must be in 10..60000"));
        QVERIFY(errorOf({}).startsWith("needed: is required"));
        QVERIFY(errorOf({{"needed", "x"}, {"bogus", 1}}).startsWith("bogus: unknown parameter"));
        auto r = validateParams(sampleSchema(), {{"bogus", 1}});
        QCOMPARE(r.error().code, smcr::Errc::invalidArgument);
    }

    void registryHasTheWorkloads() {
        QStringList names;
        for (const Workload* w : workloadRegistry()) names << QString::fromStdString(w->name());
        QCOMPARE(names, (QStringList{"tcp_bw", "tcp_lat", "http", "kv", "qperf", "nginx-wrk", "redis", "iperf3"}));
        QVERIFY(findWorkload("kv") != nullptr);
        QVERIFY(findWorkload("nope") == nullptr);
        for (const Workload* w : workloadRegistry()) {
            for (smcr::Side role : {smcr::Side::server, smcr::Side::client}) {
                auto r = validateParams(w->schema(role), {});
                QVERIFY2(r.ok(), (w->name() + ": defaults must validate").c_str());
            }
        }
        // Every workload declares the metrics its comparison tables show
        // (the report refuses a workload that declares none).
        const QMap<QString, QStringList> headlines = headlineMetricsByWorkload();
        QCOMPARE(headlines.keys(),
                 (QStringList{"http", "iperf3", "kv", "nginx-wrk", "qperf", "redis", "tcp_bw", "tcp_lat"}));
        QCOMPARE(headlines.value("tcp_bw"), QStringList{"bw_mbps"});
        QCOMPARE(headlines.value("tcp_lat"), QStringList{"latency_us"});
        QCOMPARE(headlines.value("qperf"), (QStringList{"bw_mbps", "latency_us"}));
        for (const char* workload : {"http", "kv", "nginx-wrk", "redis"})
            QCOMPARE(headlines.value(workload), QStringList{"rps"});
        QCOMPARE(headlines.value("iperf3"), QStringList{"bw_mbps"});
    }

    void everyWorkloadRejectsBadParamsBeforeRunning() {
        auto transport = smclab::transports::createTransport("tcp");
        QVERIFY(transport.ok());
        struct Case {
            const char* workload;
            smcr::Side role;
            QJsonObject params;
            const char* field;
        };
        const Case cases[] = {
            {"tcp_bw", smcr::Side::client, {{"msg_size", 0}}, "msg_size:"},
            {"tcp_lat", smcr::Side::client, {{"duration_ms", -1}}, "duration_ms:"},
            {"http", smcr::Side::client, {{"connections", 0}}, "connections:"},
            {"http", smcr::Side::client, {{"threads", 4}, {"connections", 2}}, "connections:"},
            {"http", smcr::Side::server, {{"threads", 0}}, "threads:"},
            {"kv", smcr::Side::client, {{"pipeline", 0}}, "pipeline:"},
            {"kv", smcr::Side::client, {{"tests", "set,flush"}}, "tests:"},
            {"kv", smcr::Side::server, {{"threads", "many"}}, "threads:"},
            // The tool workloads refuse before any program starts; a
            // controller cannot name a program or pass free-form arguments.
            {"nginx-wrk", smcr::Side::client, {{"threads", 1000}}, "threads:"},
            {"nginx-wrk", smcr::Side::client, {{"threads", 4}, {"connections", 2}}, "connections:"},
            {"nginx-wrk", smcr::Side::server, {{"file_size", "2G"}}, "file_size:"},
            {"redis", smcr::Side::client, {{"program", "/bin/sh"}}, "program: unknown parameter"},
            {"redis", smcr::Side::client, {{"tests", "set,flushall"}}, "tests:"},
            {"redis", smcr::Side::server, {{"io_threads", 0}}, "io_threads:"},
            {"qperf", smcr::Side::client, {{"test", "rds_bw"}}, "test:"},
            {"qperf", smcr::Side::client, {{"cpu", 4096}}, "cpu:"},
            {"iperf3", smcr::Side::client, {{"streams", 129}}, "streams:"},
            {"iperf3", smcr::Side::client, {{"reverse", true}, {"bidir", true}}, "bidir:"},
        };
        for (const Case& c : cases) {
            RunContext ctx;
            ctx.role = c.role;
            ctx.params = c.params;
            ctx.transport = *transport;
            ctx.host = "127.0.0.1";
            ctx.port = 1;
            auto r = findWorkload(c.workload)->run(ctx);
            QVERIFY(!r.ok());
            QVERIFY2(r.error().message.rfind(c.field, 0) == 0, r.error().message.c_str());
        }
    }

    void resultsSerialise() {
        RunResult r;
        r.workload = "tcp_lat";
        r.role = smcr::Side::client;
        r.transport = "tcp";
        r.latency.recordN(5000, 3);
        r.summary = {{"latency_us", 5.0}};
        r.counters = {{"tcp.connects", 1}};
        const QJsonObject o = r.toJson();
        QCOMPARE(o["role"].toString(), QString("client"));
        QCOMPARE(o["latency"].toObject()["count"].toDouble(), 3.0);
        QCOMPARE(o["counters"].toObject()["tcp.connects"].toDouble(), 1.0);
        auto back = HdrHistogram::fromBytes(QByteArray::fromBase64(o["latency_hdr_base64"].toString().toLatin1()));
        QVERIFY(back.ok());
        QCOMPARE(back->count(), 3u);
        Sample s;
        s.bytes = 10;
        s.latency = LatencySummary::fromHistogram(r.latency);
        QCOMPARE(s.toJson()["latency"].toObject()["p50_us"].toDouble(),
                 static_cast<double>(r.latency.valueAtPercentile(50)) / 1000.0);
        QCOMPARE(smcr::sideFromName("server"), smcr::Side::server);
        QCOMPARE(smcr::sideFromName("boss"), smcr::Side::invalid);
    }
};

QTEST_APPLESS_MAIN(TestWorkloadParams)
#include "test_workload_params.moc"
