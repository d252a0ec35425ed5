// What the orchestrator stores for a finished cell: metric names from the
// workloads' summaries, the cell's name in the store, the settings
// snapshot, samples, counters and live setting changes.
#include <QJsonArray>
#include <QTest>

#include "orchestrator/host_load.h"
#include "orchestrator/presets.h"
#include "orchestrator/run_record.h"
#include "orchestrator/workload_params.h"

using namespace smclab;
using namespace smclab::orchestrator;

class TestRunRecord : public QObject {
    Q_OBJECT
private slots:
    void metricsFromSummaries() {
        auto bw = resultMetrics(QJsonObject{{"bw_MBps", 12.5}, {"msg_rate", 1000.0}, {"url", "x"}});
        QCOMPARE(bw.value("bw_mbps"), 12.5);
        QCOMPARE(bw.value("msg_rate"), 1000.0);
        QVERIFY(!bw.contains("url"));
        auto http = resultMetrics(QJsonObject{{"requests_per_sec", 5000.0}});
        QCOMPARE(http.value("rps"), 5000.0);
        const QJsonArray one{QJsonObject{{"test", "SET"}, {"rps", 100.0}, {"p50_latency_ms", 0.25}}};
        auto kv = resultMetrics(QJsonObject{{"tests", one}});
        QCOMPARE(kv.value("rps"), 100.0);
        QCOMPARE(kv.value("p50_us"), 250.0);
        QCOMPARE(kv.value("set_rps"), 100.0);
        const QJsonArray two{QJsonObject{{"test", "SET"}, {"rps", 100.0}},
                             QJsonObject{{"test", "GET"}, {"rps", 200.0}}};
        auto both = resultMetrics(QJsonObject{{"tests", two}});
        QVERIFY(!both.contains("rps"));
        QCOMPARE(both.value("get_rps"), 200.0);
    }

    void storedNamesKeepTwoEntriesOfOneWorkloadApart() {
        auto credits = presetCampaign("credits");
        QCOMPARE(storedWorkloadName(*credits, 0), QStringLiteral("kv:SET"));
        QCOMPARE(storedWorkloadName(*credits, 1), QStringLiteral("kv:GET"));
        auto datapath = presetCampaign("datapath");
        QCOMPARE(storedWorkloadName(*datapath, 0), QStringLiteral("tcp_bw"));
        const auto cells = expandCells(*datapath);
        for (const Cell& cell : cells) QCOMPARE(findCell(*datapath, cells, toRunCell(*datapath, cell)), cell.index);
        const db::RunCell first = toRunCell(*datapath, cells[0]);
        QCOMPARE(first.column, QStringLiteral("SMC-NoCork"));
        QCOMPARE(first.transport, QStringLiteral("smcr"));
        QCOMPARE(first.msgSize, qint64(1));
    }

    void sizesGoToTheWorkloadsSizeParameter() {
        auto datapath = presetCampaign("datapath");
        const QJsonObject client = clientParams(datapath->workloads[0], datapath->columns[0], 4096);
        QCOMPARE(client.value("msg_size").toInteger(), 4096);
        QVERIFY(serverParams(datapath->workloads[0], datapath->columns[0], 4096).isEmpty());
        auto sendfile = presetCampaign("sendfile-cork");
        const QJsonObject server = serverParams(sendfile->workloads[0], sendfile->columns[0], 4096);
        QCOMPARE(server.value("page_size").toInteger(), 4096);
        QCOMPARE(server.value("sendfile").toBool(true), false);
        QCOMPARE(clientParams(sendfile->workloads[0], sendfile->columns[0], 4096).value("connections").toInt(), 100);
        auto credits = presetCampaign("credits");
        QCOMPARE(clientParams(credits->workloads[0], credits->columns[0], 10).value("data_size").toInteger(), 10);
    }

    void recordOfAFinishedCell() {
        auto spec = presetCampaign("datapath");
        const auto cells = expandCells(*spec);
        CellOutcome outcome;
        outcome.kind = CellOutcome::Kind::finished;
        outcome.startedAt = QDateTime::currentDateTimeUtc();
        outcome.finishedAt = outcome.startedAt.addMSecs(1200);
        outcome.client.summary = QJsonObject{{"bw_MBps", 3.5}};
        outcome.client.settings = QJsonObject{{"autocorking_size", 65536}, {"smcr_max_recv_wr", 48}};
        outcome.client.counters = QJsonObject{{"cdc_msgs_sent", 42}};
        outcome.server.counters = QJsonObject{{"rdma_writes", 7}};
        outcome.client.histogram = QJsonObject{{"count", 3}};
        protocol::Samples s;
        s.tMs = 500;
        s.throughputBps = 8e6;
        s.cpuUserPercent = 10;
        s.cpuSystemPercent = 5;
        outcome.clientSamples = {s};
        protocol::SettingsApplied change;
        change.atMs = 640;
        change.applied = QJsonObject{{"autocorking_size", 65536}};
        outcome.settingChanges = {change};

        RecordInputs in;
        in.campaignId = 7;
        in.spec = &*spec;
        in.cell = cells[0];  // SMC-NoCork, autocorking_size 0
        const db::RunRecord record = buildRunRecord(in, outcome);
        QCOMPARE(record.campaignId, qint64(7));
        QCOMPARE(record.cell.column, QStringLiteral("SMC-NoCork"));
        QCOMPARE(record.results.value("bw_mbps"), 3.5);
        // The snapshot says what the run started with: the column's value,
        // not the live change that came later.
        QCOMPARE(record.settings.value("autocorking_size"), QStringLiteral("0"));
        QCOMPARE(record.settings.value("smcr_max_recv_wr"), QStringLiteral("48"));
        QCOMPARE(record.settings.value("lab.cq_mode"), QStringLiteral("arm_first"));
        QCOMPARE(record.settings.value("transport"), QStringLiteral("smcr"));
        QCOMPARE(record.settingChanges.size(), 1);
        QCOMPARE(record.settingChanges[0].tMs, qint64(640));
        QCOMPARE(record.settingChanges[0].value, QStringLiteral("65536"));
        QCOMPARE(record.counters.size(), 2);
        QCOMPARE(record.histograms.size(), 1);
        bool sawThroughput = false;
        for (const db::Sample& sample : record.samples) {
            if (sample.metric == QLatin1String("throughput_mbps")) {
                sawThroughput = true;
                QCOMPARE(sample.value, 1.0);
                QCOMPARE(sample.tMs, qint64(500));
            }
            if (sample.metric == QLatin1String("cpu_client_pct")) QCOMPARE(sample.value, 15.0);
        }
        QVERIFY(sawThroughput);
    }

    void recordOfAFailedCellKeepsWhatWasSeen() {
        auto spec = presetCampaign("datapath");
        const auto cells = expandCells(*spec);
        CellOutcome outcome;
        outcome.kind = CellOutcome::Kind::failed;
        outcome.error = QStringLiteral("agent 127.0.0.1:7601 disconnected mid-run");
        QVERIFY(!outcomeHasData(outcome));
        // The client's result had a partial summary and no counters; its
        // samples carried cumulative counters, the last ones are kept.
        outcome.client.summary = QJsonObject{{"bw_MBps", 3.5}};
        outcome.client.histogram = QJsonObject{{"count", 3}};
        protocol::Samples first;
        first.tMs = 500;
        first.throughputBps = 8e6;
        first.counters = QJsonObject{{"cdc_msgs_sent", 10}};
        protocol::Samples second = first;
        second.tMs = 1000;
        second.counters = QJsonObject{{"cdc_msgs_sent", 25}, {"rdma_writes", 24}};
        protocol::Samples third = first;
        third.tMs = 1500;
        third.counters = QJsonObject();  // an interval without counters
        outcome.clientSamples = {first, second, third};
        outcome.server.counters = QJsonObject{{"cq_wakeups", 9}};
        QVERIFY(outcomeHasData(outcome));

        RecordInputs in;
        in.campaignId = 7;
        in.spec = &*spec;
        in.cell = cells[0];
        const db::RunRecord record = buildFailedRunRecord(in, outcome);
        QVERIFY(record.results.isEmpty());
        QVERIFY(record.histograms.isEmpty());
        QCOMPARE(record.settings.value("transport"), QStringLiteral("smcr"));
        QMap<QString, qint64> client;
        QMap<QString, qint64> server;
        for (const db::Counter& c : record.counters)
            (c.side == smcr::Side::client ? client : server).insert(c.name, c.value);
        QCOMPARE(client.value("cdc_msgs_sent"), qint64(25));
        QCOMPARE(client.value("rdma_writes"), qint64(24));
        QCOMPARE(server.value("cq_wakeups"), qint64(9));
        int throughput = 0;
        for (const db::Sample& sample : record.samples) throughput += sample.metric == QLatin1String("throughput_mbps");
        QCOMPARE(throughput, 3);
    }

    void hostLoadFromBothEnds() {
        const QJsonObject client{{"cpu_busy_pct", 190.0}, {"agent_cpu_pct", 80.0}, {"steal_pct", 1.0}};
        const QJsonObject server{{"cpu_busy_pct", 190.0}, {"agent_cpu_pct", 70.0}, {"steal_pct", 0.5}};
        QuietHostSpec policy;  // 25% of a core, 5% steal
        // One host: both agents' own use is the lab's, 40% is someone else's.
        HostLoad one = judgeHostLoad(client, server, true, policy);
        QCOMPARE(one.otherCpuPct, std::optional<double>(40.0));
        QVERIFY(one.busy);
        QCOMPARE(one.reason, QStringLiteral("other processes 40.0% of a core"));
        // Quiet enough under a looser threshold.
        policy.busyOtherCpuPct = 50.0;
        QVERIFY(!judgeHostLoad(client, server, true, policy).busy);
        // Two hosts: each host's own agent is subtracted; the worse counts.
        HostLoad two = judgeHostLoad(client, server, false, QuietHostSpec{});
        QCOMPARE(two.otherCpuPct, std::optional<double>(120.0));
        // Steal alone makes a host busy.
        HostLoad steal = judgeHostLoad(QJsonObject{{"cpu_busy_pct", 50.0}, {"agent_cpu_pct", 50.0}, {"steal_pct", 9.0}},
                                       {}, false, QuietHostSpec{});
        QVERIFY(steal.busy);
        QCOMPARE(steal.reason, QStringLiteral("steal 9.0%"));
        // An agent that reports nothing: unknown, not busy.
        QVERIFY(!judgeHostLoad({}, {}, true, QuietHostSpec{}).known());
    }

    // Which end ran which implementation, and what each SMC end negotiated:
    // a libsmcr client with its experiments on against a stock kernel
    // server (the interop preset's libsmcr->kernel column).
    void interopRunNamesItsEnds() {
        auto spec = presetCampaign("interop");
        QVERIFY(spec.has_value());
        const int column = spec->columnIndex(QStringLiteral("libsmcr->kernel"));
        QVERIFY(column >= 0);
        protocol::Hello hello;
        hello.capabilities.host.kernelRelease = QStringLiteral("6.12.57+deb13-amd64");
        hello.capabilities.rdmaDevices = {{QStringLiteral("rxe0"), {}, QStringLiteral("eth1")}};
        hello.capabilities.synOption = {QStringLiteral("syn_option"), true, {}};
        const ColumnSpec& mixed = spec->columns[static_cast<size_t>(column)];
        RecordInputs in;
        in.spec = &*spec;
        for (const Cell& cell : expandCells(*spec)) {
            if (cell.columnIndex == column) in.cell = cell;
        }
        in.serverFacts = hostFacts(hello, spec->transportOptions, mixed.transport);
        in.clientFacts = hostFacts(hello, spec->transportOptions, mixed.effectiveClientTransport());
        QCOMPARE(in.serverFacts.value("implementation"), QStringLiteral("kernel SMC-R 6.12"));
        QCOMPARE(in.clientFacts.value("implementation"), QStringLiteral("libsmcr verbs/rxe0"));
        QCOMPARE(in.clientFacts.value("syn_option"), QStringLiteral("on"));
        QVERIFY(!in.serverFacts.contains("syn_option"));
        addEndsFacts(in.serverFacts, in.clientFacts);
        const QString ends = QStringLiteral("server: kernel SMC-R 6.12, client: libsmcr verbs/rxe0");
        QCOMPARE(in.clientFacts.value("ends"), ends);
        QCOMPARE(in.clientFacts.value("wire.ends"), ends);

        CellOutcome outcome;
        outcome.kind = CellOutcome::Kind::finished;
        outcome.client.summary = QJsonObject{{"bw_MBps", 3.5}};
        outcome.client.settings =
            QJsonObject{{"lab.ueid", "SMCLAB-VM"}, {"lab.rq_credits", "on"}, {"lab.fast_fallback", "on"}};
        outcome.client.counters = QJsonObject{{"smcr.clnt_success", 1}, {"smcr.credit_links", 0}};
        outcome.server.counters = QJsonObject{{"kernel.smcr.srv_v2_succ_cnt", 1}, {"kernel.smcr.clnt_v2_succ_cnt", 0}};
        const db::RunRecord record = buildRunRecord(in, outcome);
        QCOMPARE(record.serverFacts.value("smc.negotiated"), QStringLiteral("SMC-Rv2, 1 connection"));
        QCOMPARE(record.clientFacts.value("smc.negotiated"),
                 QStringLiteral("SMC-Rv2, 1 connection; credits asked, not negotiated (smcr.credit_links 0: the "
                                "standard protocol); fast fallback on (0 accepts)"));
        // A fallback is named with its reason; a TCP end negotiates nothing.
        outcome.server.counters.insert("kernel.fallback.server.PEERNOSMC", 2);
        outcome.server.counters.insert("kernel.smcr.srv_v2_succ_cnt", 0);
        QCOMPARE(buildRunRecord(in, outcome).serverFacts.value("smc.negotiated"),
                 QStringLiteral("no SMC-R connection; fallbacks: server.PEERNOSMC 2"));

        // An agent that could not load the program: the reason, per run.
        hello.capabilities.synOption = {QStringLiteral("syn_option"), false, QStringLiteral("no CAP_BPF")};
        QCOMPARE(hostFacts(hello, spec->transportOptions, QStringLiteral("smcr")).value("syn_option"),
                 QStringLiteral("off: no CAP_BPF"));
        // The sim fabric's runs (the local lab) keep their wire line: no ends in it.
        db::HostFacts simServer{{"implementation", "libsmcr sim"}};
        db::HostFacts simClient{{"implementation", "libsmcr sim"}};
        addEndsFacts(simServer, simClient);
        QCOMPARE(simClient.value("ends"), QStringLiteral("server: libsmcr sim, client: libsmcr sim"));
        QVERIFY(!simClient.contains("wire.ends"));
        QVERIFY(!hostFacts(hello, QJsonObject{{"fabric", "sim"}}, QStringLiteral("smcr")).contains("syn_option"));
    }

    void recordCarriesTheHostState() {
        auto spec = presetCampaign("datapath");
        const auto cells = expandCells(*spec);
        CellOutcome outcome;
        outcome.kind = CellOutcome::Kind::finished;
        outcome.client.summary = QJsonObject{{"bw_MBps", 3.5}};
        outcome.client.hostState = QJsonObject{{"cpu_busy_pct", 150.0}, {"agent_cpu_pct", 60.0}, {"load1_end", 1.5}};
        outcome.server.hostState = QJsonObject{{"cpu_busy_pct", 150.0}, {"agent_cpu_pct", 50.0}};
        RecordInputs in;
        in.spec = &*spec;
        in.cell = cells[0];
        in.clientFacts = {{"host", "lab"}};
        in.serverFacts = {{"host", "lab"}};
        const db::RunRecord record = buildRunRecord(in, outcome);
        QCOMPARE(record.clientFacts.value("host_state.load1_end"), QStringLiteral("1.5"));
        QCOMPARE(record.clientFacts.value("host_state.cpu_busy_pct"), QStringLiteral("150"));
        QCOMPARE(record.serverFacts.value("host_state.agent_cpu_pct"), QStringLiteral("50"));
        QCOMPARE(record.clientFacts.value(kHostOtherCpuFact), QStringLiteral("40.0"));
        QCOMPARE(record.clientFacts.value(kHostBusyFact), QStringLiteral("yes"));
        QVERIFY(record.clientFacts.value(kHostBusyReasonFact).contains(QLatin1String("other processes")));
        // Without host state from the agents, no verdict is stored.
        const db::RunRecord old = buildRunRecord(in, CellOutcome{});
        QVERIFY(!old.clientFacts.contains(kHostBusyFact));
    }
};

QTEST_APPLESS_MAIN(TestRunRecord)
#include "test_run_record.moc"
