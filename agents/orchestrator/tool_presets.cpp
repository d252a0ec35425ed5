#include "tool_presets.h"

#include <QJsonArray>

#include "datapath_columns.h"
#include "fallback_columns.h"
#include "size_text.h"

namespace smclab::orchestrator {

namespace {

QJsonObject simFabric(const char* link) {
    return QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")},
                       {QStringLiteral("link"), QLatin1String(link)}};
}

ColumnSpec datapathColumn(const char* key, const char* label) {
    const DatapathColumn column = *findDatapathColumn(QLatin1String(key));
    return {QLatin1String(label), column.transport, {}, column.settings, {}, {}};
}

}  // namespace

CampaignSpec seed000QperfPreset() {
    // client: smc_run taskset -c 1 qperf smc-server -oo msg_size:1:64K:*2 -t 30 -vu tcp_{bw|lat}
    // server: smc_run taskset -c 1 qperf
    CampaignSpec spec;
    spec.name = QStringLiteral("seed000-qperf");
    spec.preset = spec.name;
    spec.description =
        QStringLiteral(
            "net/smc datapath optimisations (2022) with the letter's own tool: qperf -oo msg_size:1:64K:*2 "
            "-t 30 -vu "
            "tcp_bw and tcp_lat, both ends taskset -c 1; Origin SMC / TCP / SMC with patches; link %1")
            .arg(QLatin1String(kDatapathLink));
    const QJsonObject pinned{{QStringLiteral("cpu"), 1}};
    QJsonObject bw = pinned;
    bw.insert(QStringLiteral("test"), QStringLiteral("tcp_bw"));
    QJsonObject lat = pinned;
    lat.insert(QStringLiteral("test"), QStringLiteral("tcp_lat"));
    spec.workloads = {
        {QStringLiteral("Bandwidth"), QStringLiteral("qperf"), bw, pinned, {}},
        {QStringLiteral("Latency"), QStringLiteral("qperf"), lat, pinned, {}},
    };
    spec.columns = {datapathColumn("nocork", "Origin SMC"), datapathColumn("tcp", "TCP"),
                    datapathColumn("patches", "SMC with patches")};
    spec.sizes = parseSizeLoopText(QStringLiteral("msg_size:1:64K:*2"), nullptr).value_or(std::vector<uint64_t>{});
    spec.durationMs = 30'000;
    spec.warmupMs = 0;  // qperf has none; its -t is the measured time
    spec.transportOptions = simFabric(kDatapathLink);
    return spec;
}

CampaignSpec seed002NginxPreset() {
    // server: smc_run nginx (4 KiB file); client: smc_run ./wrk -c 100 -t 2 -d 30
    // http://192.168.100.1:8080/4k.html; socket sndbuf / rcvbuf 16384 / 131072.
    CampaignSpec spec;
    spec.name = QStringLiteral("seed002-nginx");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "net/smc TCP_CORK and sendfile improvements (2022) with the letter's own tools: nginx serving a 4 "
        "KiB file, "
        "wrk -c 100 -t 2 -d 30, sndbuf/rcvbuf 16384/131072, QPS");
    const QJsonObject client{
        {QStringLiteral("connections"), 100}, {QStringLiteral("threads"), 2}, {QStringLiteral("latency"), false}};
    // nginx's worker_processes auto on the letter's 8-core server.
    const QJsonObject server{{QStringLiteral("workers"), 8},
                             {QStringLiteral("tcp_nopush"), true},
                             {QStringLiteral("sndbuf"), 16384},
                             {QStringLiteral("rcvbuf"), 131072}};
    spec.workloads = {{QStringLiteral("QPS"), QStringLiteral("nginx-wrk"), client, server, {4096}}};
    auto smc = [](int corkTimerMs) {
        return QJsonObject{{QStringLiteral("wmem"), 16384},
                           {QStringLiteral("rmem"), 131072},
                           {QStringLiteral("lab.cork_timer_ms"), corkTimerMs}};
    };
    const QJsonObject off{{QStringLiteral("sendfile"), false}};
    const QJsonObject on{{QStringLiteral("sendfile"), true}};
    spec.columns = {
        {QStringLiteral("sendfile off"), QStringLiteral("smcr"), {}, smc(0), {}, off},
        {QStringLiteral("sendfile on (orig)"), QStringLiteral("smcr"), {}, smc(250), {}, on},
        {QStringLiteral("sendfile on (this)"), QStringLiteral("smcr"), {}, smc(0), {}, on},
    };
    spec.durationMs = 30'000;
    spec.warmupMs = 0;
    spec.transportOptions = simFabric("cx4-25g");
    return spec;
}

CampaignSpec seed003ShortconnPreset() {
    // ./wrk http://x.x.x.x:x/ -H 'Connection: Close' -c 1600 -t 32 -d 20 --latency
    // against a (preloaded) nginx, from a plain TCP client: server fallback.
    CampaignSpec spec;
    spec.name = QStringLiteral("seed003-shortconn");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "SMC-R server fallback on short connections (shadow sockets, 2023) with the thread's own tools: wrk "
        "-H "
        "'Connection: Close' -c 1600 -t 32 -d 20 --latency from plain TCP clients against nginx; "
        "Requests/sec and "
        "Transfer/sec");
    const QJsonObject client{{QStringLiteral("connections"), 1600},
                             {QStringLiteral("threads"), 32},
                             {QStringLiteral("latency"), true},
                             {QStringLiteral("connection_close"), true}};
    const QJsonObject server{{QStringLiteral("workers"), 32}};
    spec.workloads = {{QStringLiteral("Requests"), QStringLiteral("nginx-wrk"), client, server, {64}}};
    spec.columns = fallbackColumns(
        {QStringLiteral("TCP"), QStringLiteral("original fallback path"), QStringLiteral("fast fallback")});
    spec.durationMs = 20'000;
    spec.warmupMs = 0;
    spec.transportOptions = simFabric("cx4-25g");
    return spec;
}

CampaignSpec seed004RedisPreset() {
    // redis-server --save "" --appendonly no --protected-mode no --io-threads 7 --io-threads-do-reads yes
    // redis-benchmark -h H -q -t set,get -P 1 --threads 7 -n 2000000 -c 200 -d 10
    CampaignSpec spec;
    spec.name = QStringLiteral("seed004-redis");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "SMC-R receive-queue credits (RFC, 2022) with the letter's own tools: redis-server --io-threads 7 "
        "--io-threads-do-reads yes, redis-benchmark -q -t set,get -P 1 --threads 7 -n 2000000 -c 200 -d 10; "
        "Before (credits off) / After (credits on)");
    const QJsonObject client{{QStringLiteral("tests"), QJsonArray{QStringLiteral("set"), QStringLiteral("get")}},
                             {QStringLiteral("pipeline"), 1},
                             {QStringLiteral("threads"), 7},
                             {QStringLiteral("requests"), 2000000},
                             {QStringLiteral("clients"), 200}};
    const QJsonObject server{{QStringLiteral("io_threads"), 7}, {QStringLiteral("io_threads_do_reads"), true}};
    spec.workloads = {{QStringLiteral("SET/GET"), QStringLiteral("redis"), client, server, {10}}};
    spec.columns = {
        {QStringLiteral("Before"),
         QStringLiteral("smcr"),
         {},
         {{QStringLiteral("lab.rq_credits"), QStringLiteral("off")}},
         {},
         {}},
        {QStringLiteral("After"),
         QStringLiteral("smcr"),
         {},
         {{QStringLiteral("lab.rq_credits"), QStringLiteral("on")}},
         {},
         {}},
    };
    // redis-benchmark runs a request count; this bounds it (the agent stops it after).
    spec.durationMs = 120'000;
    spec.warmupMs = 0;
    spec.transportOptions = simFabric("cx4-25g");
    return spec;
}

bool isToolPreset(const QString& name) {
    return name == QLatin1String("seed000-qperf") || name == QLatin1String("seed002-nginx") ||
           name == QLatin1String("seed003-shortconn") || name == QLatin1String("seed004-redis");
}

}  // namespace smclab::orchestrator
