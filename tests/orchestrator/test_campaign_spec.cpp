// Campaign files and presets: parsing, validation errors that name the
// field, preset contents and matrix expansion.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include "orchestrator/campaign_json.h"
#include "orchestrator/cell_matrix.h"
#include "orchestrator/preset_scaling.h"
#include "orchestrator/presets.h"
#include "orchestrator/size_text.h"

using namespace smclab::orchestrator;

namespace {

QByteArray minimalCampaign() {
    return R"({
        "name": "tiny",
        "workloads": ["tcp_bw", {"workload": "tcp_lat", "label": "Latency"}],
        "columns": [
            {"label": "TCP", "transport": "tcp"},
            {"label": "SMC", "transport": "smcr", "settings": {"autocorking_size": 0, "lab.cq_mode": "arm_first"}}
        ],
        "sizes": [1, "4K"],
        "repetitions": 2,
        "duration": "500ms"
    })";
}

QString errorOf(const QByteArray& text) {
    auto spec = campaignFromJsonText(text);
    if (spec) return QString();
    return QString::fromStdString(spec.error().message);
}

}  // namespace

class TestCampaignSpec : public QObject {
    Q_OBJECT
private slots:
    void toolPresetsScaleToTheHost() {
        // The letter's scale on a 2-CPU host running both agents, --quick:
        // every reduction is in the notes; nothing is scaled on a big host.
        CampaignSpec redis = *presetCampaign(QStringLiteral("seed004-redis"));
        const QStringList notes = scaleToolPreset(redis, {2, true, true});
        QVERIFY2(notes.contains(QStringLiteral("redis-benchmark --threads 7 -> 1")), qPrintable(notes.join("; ")));
        QVERIFY(notes.contains(QStringLiteral("redis-benchmark -n 2000000 -> 20000")));
        QVERIFY(notes.contains(QStringLiteral("redis-server --io-threads 7 -> 1")));
        QCOMPARE(redis.workloads[0].params.value("requests").toInteger(), 20000);
        QCOMPARE(redis.repetitions, 1);
        QVERIFY(redis.description.contains(QStringLiteral("Scaled for this host (--quick)")));
        QVERIFY(validateCampaign(redis).empty());

        CampaignSpec qperf = *presetCampaign(QStringLiteral("seed000-qperf"));
        const QStringList qperfNotes = scaleToolPreset(qperf, {2, false, true});
        QCOMPARE(qperf.durationMs, 5000);
        QCOMPARE(qperf.sizes.size(), size_t(17));
        QCOMPARE(qperf.workloads[0].serverParams.value("cpu").toInteger(), 0);
        QCOMPARE(qperf.workloads[0].params.value("cpu").toInteger(), 1);
        QVERIFY2(qperfNotes.join("; ").contains(QStringLiteral("duration 30 s -> 5 s")),
                 qPrintable(qperfNotes.join("; ")));

        CampaignSpec big = *presetCampaign(QStringLiteral("seed003-shortconn"));
        QVERIFY(scaleToolPreset(big, {32, false, false}).isEmpty());
        QCOMPARE(big.workloads[0].params.value("connections").toInteger(), 1600);
    }

    void parsesAMinimalCampaign() {
        auto spec = campaignFromJsonText(minimalCampaign());
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->name, QStringLiteral("tiny"));
        QCOMPARE(spec->workloads.size(), size_t(2));
        QCOMPARE(spec->workloads[0].label, QStringLiteral("tcp_bw"));
        QCOMPARE(spec->workloads[1].label, QStringLiteral("Latency"));
        QCOMPARE(spec->sizes, (std::vector<uint64_t>{1, 4096}));
        QCOMPARE(spec->repetitions, 2);
        QCOMPARE(spec->durationMs, 500);
        QCOMPARE(spec->onAgentLoss, AgentLossPolicy::continueCampaign);
        QCOMPARE(spec->baselineLabel(), QStringLiteral("TCP"));
        QCOMPARE(spec->columns[1].settings.value(QStringLiteral("lab.cq_mode")).toString(),
                 QStringLiteral("arm_first"));
    }

    // A mixed column's client end takes its own settings (libsmcr's
    // experiments against a kernel server), kept through the file format.
    void mixedColumnKeepsClientSettings() {
        const auto spec = campaignFromJsonText(QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],
            "transportOptions":{"fabric":"verbs"},
            "columns":[{"label":"libsmcr->kernel","transport":"ksmc","clientTransport":"smcr",
                        "clientSettings":{"lab.rq_credits":"on","lab.fast_fallback":"on"}}]})"));
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->columns[0].clientSettings.value("lab.rq_credits").toString(), QStringLiteral("on"));
        QVERIFY(spec->columns[0].settings.isEmpty());
        auto reparsed = campaignFromJson(campaignToJson(*spec));
        QVERIFY(reparsed.ok());
        QCOMPARE(reparsed->columns[0].clientSettings, spec->columns[0].clientSettings);
    }

    void roundTripsThroughCanonicalJson() {
        auto spec = campaignFromJsonText(minimalCampaign());
        QVERIFY(spec.ok());
        const QJsonObject json = campaignToJson(*spec);
        auto again = campaignFromJson(json);
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE(campaignToJson(*again), json);
    }

    void errorsNameTheField_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("field");
        QTest::newRow("unknown transport") << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],
                "columns":[{"label":"a","transport":"tcp"},{"label":"b","transport":"rdma"}]})")
                                           << "columns[1].transport: unknown transport 'rdma'";
        QTest::newRow("unknown workload")
            << QByteArray(
                   R"({"name":"x","workloads":["iperf"],"sizes":[1],"columns":[{"label":"a","transport":"tcp"}]})")
            << "workloads[0].workload: unknown workload 'iperf'";
        QTest::newRow("typo in a key") << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],"repetition":3,
                "columns":[{"label":"a","transport":"tcp"}]})")
                                       << "repetition: unknown field";
        QTest::newRow("size out of range")
            << QByteArray(
                   R"({"name":"x","workloads":["tcp_bw"],"sizes":[1,0],"columns":[{"label":"a","transport":"tcp"}]})")
            << "sizes[1]: size 0 out of range";
        QTest::newRow("bad loop")
            << QByteArray(
                   R"({"name":"x","workloads":["tcp_bw"],"sizes":"msg_size:64K:1:*2","columns":[{"label":"a","transport":"tcp"}]})")
            << "sizes: bad size loop";
        QTest::newRow("duplicate column") << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],
                "columns":[{"label":"a","transport":"tcp"},{"label":"a","transport":"smcr"}]})")
                                          << "columns[1].label: 'a' is used twice";
        QTest::newRow("setting of a wrong type") << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],
                "columns":[{"label":"a","transport":"smcr","settings":{"autocorking_size":[1]}}]})")
                                                 << "columns[0].settings.autocorking_size: must be a number";
        QTest::newRow("client settings without another client transport")
            << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],
                "columns":[{"label":"a","transport":"smcr","clientSettings":{"lab.rq_credits":"on"}}]})")
            << "columns[0].clientSettings: only for a clientTransport other than transport";
        QTest::newRow("client setting of a wrong type") << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],
                "columns":[{"label":"a","transport":"ksmc","clientTransport":"smcr",
                            "clientSettings":{"lab.rq_credits":[1]}}]})")
                                                        << "columns[0].clientSettings.lab.rq_credits: must be a number";
        QTest::newRow("repetitions zero")
            << QByteArray(
                   R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],"repetitions":0,"columns":[{"label":"a","transport":"tcp"}]})")
            << "repetitions: must be 1..";
        QTest::newRow("policy")
            << QByteArray(
                   R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],"onAgentLoss":"retry","columns":[{"label":"a","transport":"tcp"}]})")
            << "onAgentLoss: must be";
        QTest::newRow("agent address")
            << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],"columns":[{"label":"a","transport":"tcp"}],
                "agents":[{"server":"127.0.0.1:7000","client":"localhost"}]})")
            << "agents[0].client: 'localhost' is not HOST:PORT";
        QTest::newRow("baseline")
            << QByteArray(
                   R"({"name":"x","workloads":["tcp_bw"],"sizes":[1],"baseline":"b","columns":[{"label":"a","transport":"tcp"}]})")
            << "baseline: 'b' is not a column label";
        QTest::newRow("missing name")
            << QByteArray(R"({"workloads":["tcp_bw"],"sizes":[1],"columns":[{"label":"a","transport":"tcp"}]})")
            << "name: is required";
        QTest::newRow("missing sizes")
            << QByteArray(R"({"name":"x","workloads":["tcp_bw"],"columns":[{"label":"a","transport":"tcp"}]})")
            << "sizes: is required";
        QTest::newRow("not json") << QByteArray("{\"name\": ") << "not valid JSON";
    }
    void errorsNameTheField() {
        QFETCH(QByteArray, text);
        QFETCH(QString, field);
        const QString error = errorOf(text);
        QVERIFY2(error.contains(field), qPrintable(QStringLiteral("expected '%1' in '%2'").arg(field, error)));
    }

    void reportsEveryProblemAtOnce() {
        const QString error = errorOf(R"({"name":"","workloads":["nope"],"sizes":[1],
            "columns":[{"label":"a","transport":"x"}]})");
        QVERIFY(error.contains(QStringLiteral("name:")));
        QVERIFY(error.contains(QStringLiteral("workloads[0].workload:")));
        QVERIFY(error.contains(QStringLiteral("columns[0].transport:")));
    }

    void sizeLoopsFollowQperf() {
        QString error;
        auto sizes = parseSizeListText(QStringLiteral("msg_size:1:64K:*2"), &error);
        QVERIFY(sizes.has_value());
        QCOMPARE(sizes->size(), size_t(17));
        QCOMPARE(sizes->back(), uint64_t(65536));
        QCOMPARE(*parseSizeListText(QStringLiteral("1,2,4k"), &error), (std::vector<uint64_t>{1, 2, 4000}));
        QCOMPARE(*parseSizeListText(QStringLiteral("10:40:10"), &error), (std::vector<uint64_t>{10, 20, 30, 40}));
        QVERIFY(!parseSizeListText(QStringLiteral("1,x"), &error).has_value());
        QVERIFY(error.contains(QStringLiteral("'x'")));
        QCOMPARE(*parseDurationText(QStringLiteral("0.2")), int64_t(200));
        QCOMPARE(*parseDurationText(QStringLiteral("250ms")), int64_t(250));
        QCOMPARE(*parseDurationText(QStringLiteral("2m")), int64_t(120000));
        QVERIFY(!parseDurationText(QStringLiteral("soon")).has_value());
    }

    void datapathPresetMatchesTheLetter() {
        auto spec = presetCampaign(QStringLiteral("datapath"));
        QVERIFY(spec.has_value());
        QVERIFY2(validateCampaign(*spec).empty(), qPrintable(joinErrors(validateCampaign(*spec))));
        QCOMPARE(spec->workloads.size(), size_t(2));
        QCOMPARE(spec->workloads[0].workload, QStringLiteral("tcp_bw"));
        QCOMPARE(spec->workloads[1].workload, QStringLiteral("tcp_lat"));
        QCOMPARE(spec->sizes.size(), size_t(17));
        QStringList labels;
        for (const auto& c : spec->columns) labels << c.label;
        QCOMPARE(labels, (QStringList{"SMC-NoCork", "TCP", "SMC-AutoCorking", "SMC with patches"}));
        QCOMPARE(spec->baselineLabel(), QStringLiteral("SMC-NoCork"));
        const QJsonObject noCork = spec->columns[0].settings;
        QCOMPARE(noCork.value("autocorking_size").toInt(), 0);
        QCOMPARE(noCork.value("lab.wnd_update_limit").toString(), QStringLiteral("min"));
        QCOMPARE(noCork.value("lab.cq_mode").toString(), QStringLiteral("arm_first"));
        QCOMPARE(noCork.value("lab.tx_defer_to_owner").toString(), QStringLiteral("off"));
        QCOMPARE(spec->columns[1].transport, QStringLiteral("tcp"));
        QVERIFY(spec->columns[1].settings.isEmpty());
        QCOMPARE(spec->columns[2].settings.value("autocorking_size").toInt(), 65536);
        QCOMPARE(spec->columns[2].settings.value("lab.cq_mode").toString(), QStringLiteral("arm_first"));
        const QJsonObject all = spec->columns[3].settings;
        QCOMPARE(all.value("autocorking_size").toInt(), 65536);
        QCOMPARE(all.value("lab.wnd_update_limit").toString(), QStringLiteral("max"));
        QCOMPARE(all.value("lab.cq_mode").toString(), QStringLiteral("drain_then_arm"));
        QCOMPARE(all.value("lab.tx_defer_to_owner").toString(), QStringLiteral("on"));
        // The series' environment, two VFs of one adapter.
        QCOMPARE(spec->transportOptions.value("link").toString(), QStringLiteral("cx4lx-vf"));
        // Every SMC column waits like the kernel, as bench stream --preset datapath does.
        QCOMPARE(spec->columns[0].settings.value("lab.busy_poll_us").toInt(-1), 0);
        QCOMPARE(all.value("lab.busy_poll_us").toInt(-1), 0);
        // 2 workloads x 17 sizes x 4 columns x 3 repetitions (presets
        // repeat every cell 3 times: the fewest that give intervals).
        QCOMPARE(spec->repetitions, 3);
        QCOMPARE(expandCells(*spec).size(), size_t(408));
    }

    void everyPresetIsValid_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("cells");
        // 3 repetitions of each preset's matrix (136, 3, 3, 8 cells).
        QTest::newRow("datapath") << "datapath" << 3 * 136;
        QTest::newRow("sendfile-cork") << "sendfile-cork" << 3 * 3;
        QTest::newRow("fallback") << "fallback" << 3 * 3;
        QTest::newRow("credits") << "credits" << 3 * 8;
        // Two transports x two tests x 17 sizes.
        QTest::newRow("stream") << "stream" << 3 * 68;
        // Four ends' pairings x two tests x 3 sizes.
        QTest::newRow("interop") << "interop" << 3 * 24;
        // The letters' own tools: 2 x 3 x 17, 3, 3, 2 cells.
        QTest::newRow("seed000-qperf") << "seed000-qperf" << 3 * 102;
        QTest::newRow("seed002-nginx") << "seed002-nginx" << 3 * 3;
        QTest::newRow("seed003-shortconn") << "seed003-shortconn" << 3 * 3;
        QTest::newRow("seed004-redis") << "seed004-redis" << 3 * 2;
    }
    void everyPresetIsValid() {
        QFETCH(QString, name);
        QFETCH(int, cells);
        QVERIFY(presetNames().contains(name));
        auto spec = presetCampaign(name);
        QVERIFY(spec.has_value());
        QCOMPARE(spec->preset, name);
        QVERIFY2(validateCampaign(*spec).empty(), qPrintable(joinErrors(validateCampaign(*spec))));
        QCOMPARE(int(expandCells(*spec).size()), cells);
        // Presets survive the file format unchanged.
        auto reparsed = campaignFromJson(campaignToJson(*spec));
        QVERIFY2(reparsed.ok(), reparsed.ok() ? "" : reparsed.error().message.c_str());
        QCOMPARE(campaignToJson(*reparsed), campaignToJson(*spec));
    }

    void presetColumnsNameTheirSettings() {
        auto sendfile = presetCampaign(QStringLiteral("sendfile-cork"));
        QCOMPARE(sendfile->columns[1].settings.value("lab.cork_timer_ms").toInt(), 250);
        QCOMPARE(sendfile->columns[2].settings.value("lab.cork_timer_ms").toInt(), 0);
        QCOMPARE(sendfile->columns[0].serverParams.value("sendfile").toBool(), false);
        QCOMPARE(sendfile->sizesFor(sendfile->workloads[0]), (std::vector<uint64_t>{4096}));
        auto fallback = presetCampaign(QStringLiteral("fallback"));
        QCOMPARE(fallback->columns[0].transport, QStringLiteral("tcp"));
        QCOMPARE(fallback->columns[1].transport, QStringLiteral("smcr"));
        QCOMPARE(fallback->columns[1].effectiveClientTransport(), QStringLiteral("tcp"));
        QCOMPARE(fallback->columns[1].settings.value("lab.fast_fallback").toString(), QStringLiteral("off"));
        QCOMPARE(fallback->columns[2].settings.value("lab.fast_fallback").toString(), QStringLiteral("on"));
        auto credits = presetCampaign(QStringLiteral("credits"));
        QCOMPARE(credits->workloads[0].label, QStringLiteral("SET"));
        QCOMPARE(credits->workloads[1].label, QStringLiteral("GET"));
        QCOMPARE(credits->sizesFor(credits->workloads[0]), (std::vector<uint64_t>{10}));
        QCOMPARE(credits->columns[1].settings.value("lab.rq_credits").toString(), QStringLiteral("on"));
        QCOMPARE(credits->columns[2].settings.value("lab.rx_backlog").toString(), QStringLiteral("on"));
        QCOMPARE(credits->columns[3].transport, QStringLiteral("tcp"));
        QVERIFY(!presetCampaign(QStringLiteral("nope")).has_value());
    }

    void expansionOrderAndKeys() {
        auto spec = campaignFromJsonText(minimalCampaign());
        QVERIFY(spec.ok());
        const auto cells = expandCells(*spec);
        // 2 workloads x 2 reps x 2 sizes x 2 columns.
        QCOMPARE(cells.size(), size_t(16));
        QCOMPARE(cells[0].key(*spec), QStringLiteral("tcp_bw|TCP|1|0"));
        QCOMPARE(cells[1].key(*spec), QStringLiteral("tcp_bw|SMC|1|0"));
        QCOMPARE(cells[2].key(*spec), QStringLiteral("tcp_bw|TCP|4096|0"));
        // Rounds outermost (not workload, then repetition): the second
        // round starts after every workload, with
        // the column order rotated.
        QCOMPARE(cells[4].key(*spec), QStringLiteral("Latency|TCP|1|0"));
        QCOMPARE(cells[8].key(*spec), QStringLiteral("tcp_bw|SMC|1|1"));
        QCOMPARE(cells[9].key(*spec), QStringLiteral("tcp_bw|TCP|1|1"));
        QSet<QString> keys;
        for (const Cell& c : cells) keys.insert(c.key(*spec));
        QCOMPARE(keys.size(), 16);
        for (int i = 0; i < int(cells.size()); ++i) QCOMPARE(cells[size_t(i)].index, i);
    }

    void quietHostOption() {
        auto spec = campaignFromJsonText(QByteArray(
            R"({"name":"q","workloads":["tcp_bw"],"sizes":[1],"columns":[{"label":"a","transport":"tcp"}],
                "quietHost":{"otherCpuPct":10,"stealPct":2.5,"repeatBusy":2,"waitMs":3000}})"));
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
        QCOMPARE(spec->quietHost.busyOtherCpuPct, 10.0);
        QCOMPARE(spec->quietHost.busyStealPct, 2.5);
        QCOMPARE(spec->quietHost.repeatBusy, 2);
        QCOMPARE(spec->quietHost.waitMs, 3000);
        auto again = campaignFromJson(campaignToJson(*spec));
        QVERIFY(again.ok());
        QCOMPARE(again->quietHost, spec->quietHost);
        // The default is not written, so files without it stay as they were.
        QVERIFY(!campaignToJson(*presetCampaign(QStringLiteral("datapath"))).contains(QStringLiteral("quietHost")));
        auto bad = campaignFromJsonText(QByteArray(
            R"({"name":"q","workloads":["tcp_bw"],"sizes":[1],"columns":[{"label":"a","transport":"tcp"}],
                "quietHost":{"repeatBusy":99,"loud":1}})"));
        QVERIFY(!bad.ok());
        QVERIFY(QString::fromStdString(bad.error().message).contains(QLatin1String("quietHost.repeatBusy")));
        QVERIFY(QString::fromStdString(bad.error().message).contains(QLatin1String("quietHost.loud")));
    }

    void roundsInterleaveAndRotateColumns() {
        auto spec = presetCampaign(QStringLiteral("datapath"));
        QVERIFY(spec.has_value());
        spec->sizes = {1, 64};
        const auto cells = expandCells(*spec);
        const size_t columns = spec->columns.size();  // 4
        const size_t perRound = spec->workloads.size() * spec->sizes.size() * columns;
        QCOMPARE(cells.size(), perRound * 3);
        for (size_t i = 0; i < cells.size(); ++i) {
            const Cell& cell = cells[i];
            // Round r holds repetition r of every cell and nothing else.
            QCOMPARE(size_t(cell.repetition), i / perRound);
            // Every row (workload, size) of a round has each column once, in
            // the order rotated by the round: slot s runs column (s + r) % 4.
            const size_t slot = i % columns;
            QCOMPARE(size_t(cell.columnIndex), (slot + size_t(cell.repetition)) % columns);
        }
        QCOMPARE(cells[0].columnIndex, 0);
        QCOMPARE(cells[perRound].columnIndex, 1);
        QCOMPARE(cells[2 * perRound].columnIndex, 2);
        QCOMPARE(roundColumn(3, 2, 4), size_t(1));
        QCOMPARE(roundColumn(0, 0, 0), size_t(0));
    }

    void estimates() {
        auto spec = campaignFromJsonText(minimalCampaign());
        QVERIFY(spec.ok());
        QCOMPARE(estimateCellMs(*spec, 100), int64_t(600));
        QCOMPARE(estimateCampaignMs(*spec, 16, 100), int64_t(9600));
        spec->agents = {{"127.0.0.1:1", "127.0.0.1:2"}, {"127.0.0.1:3", "127.0.0.1:4"}};
        QCOMPARE(estimateCampaignMs(*spec, 16, 100), int64_t(4800));
        QCOMPARE(formatDurationMs(187000), QStringLiteral("3m 07s"));
        QCOMPARE(formatDurationMs(7500000), QStringLiteral("2h 05m"));
        QCOMPARE(formatDurationMs(1200), QStringLiteral("1s"));
    }

    void exampleFilesAreValid() {
        const QString dir = qEnvironmentVariable("SMCLAB_SOURCE_DIR") + QStringLiteral("/agents/orchestrator/examples");
        const QStringList files = QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files);
        QVERIFY2(files.size() >= 3, qPrintable(dir));
        for (const QString& name : files) {
            auto spec = loadCampaignFile(dir + QLatin1Char('/') + name);
            QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().message.c_str());
            QVERIFY(!expandCells(*spec).empty());
        }
    }

    void filesLoadAndSave() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("c.json"));
        auto spec = presetCampaign(QStringLiteral("credits"));
        QVERIFY(saveCampaignFile(*spec, path).ok());
        auto loaded = loadCampaignFile(path);
        QVERIFY(loaded.ok());
        QCOMPARE(campaignToJson(*loaded), campaignToJson(*spec));
        auto missing = loadCampaignFile(dir.filePath(QStringLiteral("none.json")));
        QVERIFY(!missing.ok());
        QVERIFY(QString::fromStdString(missing.error().message).contains(QStringLiteral("none.json")));
    }
};

QTEST_APPLESS_MAIN(TestCampaignSpec)
#include "test_campaign_spec.moc"
