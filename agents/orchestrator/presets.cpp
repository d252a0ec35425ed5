#include "presets.h"

#include <QJsonArray>

#include "datapath_columns.h"
#include "fallback_columns.h"
#include "size_text.h"
#include "tool_presets.h"

namespace smclab::orchestrator {

namespace {

const PresetInfo kPresets[] = {
    {"datapath",
     "qperf-style tcp_bw and tcp_lat, msg_size 1..64K (*2): SMC-NoCork, TCP, SMC-AutoCorking, "
     "SMC with patches (the 2022 datapath series' tables)"},
    {"sendfile-cork",
     "wrk-style http of a 4 KiB file, 100 connections, 2 threads: sendfile off, sendfile with "
     "the old cork timer, sendfile with the fix"},
    {"fallback",
     "short connections (connect, one request, one reply, close) from plain TCP clients: TCP "
     "listener vs libsmcr listener with fast fallback off and on"},
    {"credits",
     "redis-benchmark-style SET and GET, 200 connections, -d 10, -P 1: SMC credits off, credits on, "
     "rx_backlog, TCP"},
    {"stream",
     "qperf-style tcp_bw and tcp_lat, msg_size 1..64K (*2), 2 s per cell, ideal link: SMC-R with the "
     "engine's settings and TCP (smclab bench stream)"},
    {"interop",
     "libsmcr and the kernel's SMC-R on the VM lab hosts: tcp_bw and tcp_lat with every byte checked, "
     "libsmcr<->libsmcr, libsmcr->kernel, kernel->libsmcr, kernel<->kernel (libsmcr on verbs, SMC-Rv2)"},
    {"seed000-qperf",
     "the real qperf, -oo msg_size:1:64K:*2 -t 30 tcp_bw and tcp_lat, taskset -c 1: Origin SMC, "
     "TCP, SMC with patches (the datapath letter's tables)"},
    {"seed002-nginx", "the real nginx and wrk -c 100 -t 2 -d 30, 4 KiB file: sendfile off, on (orig), on (this)"},
    {"seed003-shortconn",
     "the real wrk -H 'Connection: Close' --latency against nginx from plain TCP clients: TCP, "
     "original fallback path, fast fallback"},
    {"seed004-redis",
     "the real redis-server --io-threads 7 and redis-benchmark -q -t set,get -P 1 --threads 7: "
     "Before / After (credits)"},
};

QJsonObject simFabric() {
    // The default lab without RNICs: the shared-memory fabric with the
    // ConnectX-4 Lx 25G link model the published numbers came from.
    return QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")},
                       {QStringLiteral("link"), QStringLiteral("cx4-25g")}};
}

std::vector<uint64_t> qperfLoop() {
    // qperf -oo msg_size:1:64K:*2 -> 17 sizes, 1 .. 65536.
    return parseSizeLoopText(QStringLiteral("msg_size:1:64K:*2"), nullptr).value_or(std::vector<uint64_t>{});
}

CampaignSpec datapath() {
    CampaignSpec spec;
    spec.name = QStringLiteral("datapath");
    spec.preset = spec.name;
    spec.description =
        QStringLiteral(
            "net/smc datapath optimisations (2022): qperf tcp_bw and tcp_lat, -oo msg_size:1:64K:*2 -t 30, "
            "percentages against SMC-NoCork; link %1 (two VFs of one ConnectX-4 Lx, the series' "
            "environment); %2")
            .arg(QLatin1String(kDatapathLink), QLatin1String(kDatapathWaitingNote));
    spec.workloads = {
        {QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}},
        {QStringLiteral("Latency"), QStringLiteral("tcp_lat"), {}, {}, {}},
    };
    // One definition with `smclab bench stream --preset datapath` (datapath_columns.h).
    for (const QString& key : defaultDatapathColumnKeys()) {
        const DatapathColumn column = *findDatapathColumn(key);
        spec.columns.push_back({column.label, column.transport, {}, column.settings, {}, {}});
    }
    spec.sizes = qperfLoop();
    spec.durationMs = 30'000;  // qperf -t 30, as in the letter
    spec.warmupMs = 1'000;
    spec.transportOptions = simFabric();
    spec.transportOptions.insert(QStringLiteral("link"), QLatin1String(kDatapathLink));
    return spec;
}

CampaignSpec stream() {
    // qperf's own defaults (-t 2) over both transports as they come, on a
    // link that shapes neither: what `smclab bench stream` runs, one column
    // or both (--compare).
    CampaignSpec spec;
    spec.name = QStringLiteral("stream");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "qperf-style tcp_bw and tcp_lat, -oo msg_size:1:64K:*2 -t 2: SMC-R with the engine's settings and kernel "
        "TCP, ideal link");
    spec.workloads = {
        {QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}},
        {QStringLiteral("Latency"), QStringLiteral("tcp_lat"), {}, {}, {}},
    };
    spec.columns = {
        {QStringLiteral("SMC-R"), QStringLiteral("smcr"), {}, {}, {}, {}},
        {QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}},
    };
    spec.sizes = qperfLoop();
    spec.durationMs = 2'000;
    spec.warmupMs = spec.durationMs / 5;
    spec.sampleIntervalMs = 500;
    spec.transportOptions = QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")},
                                        {QStringLiteral("link"), QStringLiteral("ideal")}};
    return spec;
}

CampaignSpec interop() {
    // Each end's implementation as a column: libsmcr (smcr over verbs,
    // SMC-Rv2 with the VM lab's UEID, the only SMC-R soft-RoCE carries) and
    // the kernel's SMC-R (ksmc), client -> server. The agents put the SMC
    // TCP option on libsmcr's SYNs (smclab-agent loads the BPF program), so
    // the kernel does not fall back; every byte is checked.
    CampaignSpec spec;
    spec.name = QStringLiteral("interop");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "libsmcr and the kernel's SMC-R, each end either, tcp_bw and tcp_lat with every byte checked (verify): "
        "libsmcr on rdma-core verbs with lab.ueid SMCLAB-VM (SMC-Rv2), the kernel's AF_SMC");
    const QJsonObject verify{{QStringLiteral("verify"), true}};
    spec.workloads = {
        {QStringLiteral("Bandwidth"), QStringLiteral("tcp_bw"), verify, {}, {}},
        {QStringLiteral("Latency"), QStringLiteral("tcp_lat"), verify, {}, {}},
    };
    const QString libsmcr = QStringLiteral("smcr");
    const QString kernel = QStringLiteral("ksmc");
    spec.columns = {
        {QStringLiteral("libsmcr<->libsmcr"), libsmcr, {}, {}, {}, {}},
        {QStringLiteral("libsmcr->kernel"), kernel, libsmcr, {}, {}, {}},
        {QStringLiteral("kernel->libsmcr"), libsmcr, kernel, {}, {}, {}},
        {QStringLiteral("kernel<->kernel"), kernel, {}, {}, {}, {}},
    };
    spec.sizes = {1, 1024, 65536};
    spec.durationMs = 5'000;
    spec.warmupMs = 1'000;
    spec.transportOptions = QJsonObject{{QStringLiteral("fabric"), QStringLiteral("verbs")},
                                        {QStringLiteral("lab.ueid"), QStringLiteral("SMCLAB-VM")}};
    return spec;
}

CampaignSpec sendfileCork() {
    // nginx with sendfile on and tcp_nopush on: per request TCP_CORK, a
    // 240-byte header by writev, sendfile of the 4 KiB body, uncork. "orig"
    // is the kernel before the series (a 250 ms cork timer instead of
    // application-controlled corking); "this" is the fix.
    CampaignSpec spec;
    spec.name = QStringLiteral("sendfile-cork");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "net/smc TCP_CORK and sendfile improvements (2022): wrk -c 100 -t 2 -d 30 against an nginx-like server "
        "of a 4 KiB file, requests/s");
    const QJsonObject client{{QStringLiteral("connections"), 100}, {QStringLiteral("threads"), 2}};
    spec.workloads = {{QStringLiteral("Requests"), QStringLiteral("http"), client, {}, {4096}}};
    // The http server's `sendfile` parameter (nginx "sendfile on|off"):
    // off reads each body chunk into a buffer and writes it, on hands the
    // file to the transport's sendfile.
    const QJsonObject copy{{QStringLiteral("sendfile"), false}};
    const QJsonObject sendfile{{QStringLiteral("sendfile"), true}};
    spec.columns = {
        {QStringLiteral("sendfile off"),
         QStringLiteral("smcr"),
         {},
         {{QStringLiteral("lab.cork_timer_ms"), 0}},
         {},
         copy},
        {QStringLiteral("sendfile on (orig)"),
         QStringLiteral("smcr"),
         {},
         {{QStringLiteral("lab.cork_timer_ms"), 250}},
         {},
         sendfile},
        {QStringLiteral("sendfile on (this)"),
         QStringLiteral("smcr"),
         {},
         {{QStringLiteral("lab.cork_timer_ms"), 0}},
         {},
         sendfile},
    };
    spec.durationMs = 30'000;
    spec.warmupMs = 1'000;
    spec.transportOptions = simFabric();
    return spec;
}

CampaignSpec fallback() {
    // Short connections from plain TCP clients: the cost a libsmcr listener
    // adds for peers that never speak SMC, with and without fast fallback
    // (non-SMC connections go straight to the accept queue).
    CampaignSpec spec;
    spec.name = QStringLiteral("fallback");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "fast fallback accept: short connections (connect, one small request, one reply, close) from plain TCP "
        "clients, connections/s and p99 latency");
    // "Connection: close" on every request: the server closes after its
    // reply and the client connects again, so each request is a new
    // connection.
    const QJsonObject client{{QStringLiteral("connections"), 50},
                             {QStringLiteral("threads"), 2},
                             {QStringLiteral("headers"), QJsonArray{QStringLiteral("Connection: close")}}};
    spec.workloads = {{QStringLiteral("Connections"), QStringLiteral("http"), client, {}, {64}}};
    spec.columns = fallbackColumns({QStringLiteral("TCP listener"), QStringLiteral("libsmcr, fast fallback off"),
                                    QStringLiteral("libsmcr, fast fallback on")});
    spec.durationMs = 10'000;
    spec.warmupMs = 1'000;
    spec.transportOptions = simFabric();
    return spec;
}

CampaignSpec credits() {
    // redis-benchmark -q -t set,get -P 1 -c 200 -d 10 (the credits RFC's
    // run). Without credits a receiver that reposts receive WQEs late makes
    // the sender hit RNR; credits stop posting before that happens;
    // rx_backlog refills the receive queue at once instead (no protocol
    // change).
    CampaignSpec spec;
    spec.name = QStringLiteral("credits");
    spec.preset = spec.name;
    spec.description = QStringLiteral(
        "SMC-R receive-queue credits (RFC, 2022): redis-benchmark-style SET and GET, 200 connections, value 10 B, "
        "pipeline 1, requests/s");
    auto kv = [](const char* test) {
        return QJsonObject{{QStringLiteral("clients"), 200},
                           {QStringLiteral("requests"), 200000},
                           {QStringLiteral("pipeline"), 1},
                           {QStringLiteral("tests"), QLatin1String(test)}};
    };
    spec.workloads = {
        {QStringLiteral("SET"), QStringLiteral("kv"), kv("set"), {}, {10}},
        {QStringLiteral("GET"), QStringLiteral("kv"), kv("get"), {}, {10}},
    };
    // Every SMC column runs the condition that makes RNR happen (the seed's
    // single port: one link per link group carries every connection; a
    // small receive queue; a slow receive path: lab.rx_repost_delay_us
    // handles each CDC and refills its WQE that late, a late rx tasklet
    // that costs no CPU). Without it no column ever meets RNR and the
    // three SMC columns measure the same thing. `smclab bench kv --preset
    // credits` overrides the two numbers (--recv-wr, --repost-delay-us).
    auto smc = [](bool credit, bool backlog) {
        return QJsonObject{{QStringLiteral("lab.rq_credits"), credit ? QStringLiteral("on") : QStringLiteral("off")},
                           {QStringLiteral("lab.rx_backlog"), backlog ? QStringLiteral("on") : QStringLiteral("off")},
                           {QStringLiteral("smcr_max_links_per_lgr"), 1},
                           {QString::fromLatin1(kCreditsRecvWrSetting), kCreditsRecvWr},
                           {QString::fromLatin1(kCreditsRepostDelaySetting), kCreditsRepostDelayUs}};
    };
    spec.columns = {
        {QStringLiteral("SMC credits off"), QStringLiteral("smcr"), {}, smc(false, false), {}, {}},
        {QStringLiteral("SMC credits on"), QStringLiteral("smcr"), {}, smc(true, false), {}, {}},
        {QStringLiteral("SMC rx_backlog"), QStringLiteral("smcr"), {}, smc(false, true), {}, {}},
        {QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}},
    };
    spec.durationMs = 10'000;
    spec.warmupMs = 1'000;
    spec.transportOptions = simFabric();
    return spec;
}

}  // namespace

std::span<const PresetInfo> presetList() {
    return kPresets;
}

QStringList presetNames() {
    QStringList names;
    for (const PresetInfo& preset : kPresets) names << QLatin1String(preset.name);
    return names;
}

std::optional<CampaignSpec> presetCampaign(const QString& name) {
    std::optional<CampaignSpec> spec;
    if (name == QLatin1String("datapath")) spec = datapath();
    if (name == QLatin1String("sendfile-cork")) spec = sendfileCork();
    if (name == QLatin1String("fallback")) spec = fallback();
    if (name == QLatin1String("credits")) spec = credits();
    if (name == QLatin1String("stream")) spec = stream();
    if (name == QLatin1String("interop")) spec = interop();
    if (name == QLatin1String("seed000-qperf")) spec = seed000QperfPreset();
    if (name == QLatin1String("seed002-nginx")) spec = seed002NginxPreset();
    if (name == QLatin1String("seed003-shortconn")) spec = seed003ShortconnPreset();
    if (name == QLatin1String("seed004-redis")) spec = seed004RedisPreset();
    // Every preset runs its cells as interleaved repetitions, so its tables
    // carry a median with an interval rather than one run's number.
    if (spec) spec->repetitions = kPresetRepetitions;
    return spec;
}

}  // namespace smclab::orchestrator
