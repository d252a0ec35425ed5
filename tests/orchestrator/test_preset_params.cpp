// A preset run with parameters (orchestrator/preset_params.h), as the bench
// commands ask for it: columns chosen by key in the given order, settings
// into the libsmcr columns only, the scale of the run, and errors naming an
// unknown key.
#include <QTest>

#include "orchestrator/preset_params.h"
#include "orchestrator/presets.h"

using namespace smclab::orchestrator;

class TestPresetParams : public QObject {
    Q_OBJECT
private slots:
    void unsetParamsKeepThePreset() {
        const auto spec = presetWithParams(QStringLiteral("credits"), {});
        QVERIFY(spec.ok());
        const CampaignSpec preset = *presetCampaign(QStringLiteral("credits"));
        QCOMPARE(spec->columns.size(), preset.columns.size());
        QCOMPARE(spec->durationMs, preset.durationMs);
        QCOMPARE(spec->repetitions, preset.repetitions);
        QCOMPARE(spec->workloads[0].params, preset.workloads[0].params);
    }

    void columnsByKeyWithSettingsOnSmcOnly() {
        PresetParams params;
        params.columns = {QStringLiteral("tcp"), QStringLiteral("on")};
        params.smcSettings = {{QStringLiteral("smcr_max_recv_wr"), 8}};
        params.workloadParams = {{QStringLiteral("clients"), 20}};
        params.sizes = {32};
        params.repetitions = 2;
        const auto spec = presetWithParams(QStringLiteral("credits"), params);
        QVERIFY(spec.ok());
        QCOMPARE(spec->columns.size(), size_t{2});
        QCOMPARE(spec->columns[0].label, QStringLiteral("TCP"));
        QVERIFY(spec->columns[0].settings.isEmpty());
        QCOMPARE(spec->columns[1].label, QStringLiteral("SMC credits on"));
        QCOMPARE(spec->columns[1].settings.value(QStringLiteral("smcr_max_recv_wr")).toInt(), 8);
        QCOMPARE(spec->columns[1].settings.value(QStringLiteral("lab.rq_credits")).toString(), QStringLiteral("on"));
        for (const WorkloadSpec& w : spec->workloads) {
            QCOMPARE(w.params.value(QStringLiteral("clients")).toInt(), 20);
            QCOMPARE(w.sizes, std::vector<uint64_t>{32});
        }
        QCOMPARE(spec->repetitions, 2);
    }

    void aColumnOutsideThePresetsTable() {
        PresetParams params;
        params.columns = {QStringLiteral("timer"), QStringLiteral("tcp")};
        params.columnSettings.insert(QStringLiteral("timer"), {{QStringLiteral("lab.cork_timer_ms"), 40}});
        const auto spec = presetWithParams(QStringLiteral("sendfile-cork"), params);
        QVERIFY(spec.ok());
        QCOMPARE(spec->columns[0].settings.value(QStringLiteral("lab.cork_timer_ms")).toInt(), 40);
        QCOMPARE(spec->columns[1].label, QStringLiteral("TCP sendfile"));
        QCOMPARE(spec->columns[1].serverParams.value(QStringLiteral("sendfile")).toBool(), true);
    }

    void scaleAndWorkloads() {
        PresetParams params;
        params.durationMs = 1000;
        params.workloads = {QStringLiteral("tcp_lat")};
        params.link = QStringLiteral("ideal");
        const auto spec = presetWithParams(QStringLiteral("datapath"), params);
        QVERIFY(spec.ok());
        QCOMPARE(spec->durationMs, 1000);
        QCOMPARE(spec->warmupMs, 200);
        QVERIFY(spec->sampleIntervalMs <= 500);
        QCOMPARE(spec->workloads.size(), size_t{1});
        QCOMPARE(spec->workloads[0].workload, QStringLiteral("tcp_lat"));
        QCOMPARE(spec->transportOptions.value(QStringLiteral("link")).toString(), QStringLiteral("ideal"));
    }

    // `smclab bench stream` without --preset: one column per transport in
    // the order given, the tests in the order given, --set on SMC only.
    void streamColumnsByTransport() {
        PresetParams params;
        params.columns = {QStringLiteral("tcp"), QStringLiteral("smcr")};
        params.workloads = {QStringLiteral("tcp_lat"), QStringLiteral("tcp_bw")};
        params.sizes = {64, 4096};
        params.durationMs = 3000;
        params.repetitions = 1;
        params.smcSettings = {{QStringLiteral("lab.busy_poll_us"), 0}};
        params.link = QStringLiteral("cx4-25g");
        const auto spec = presetWithParams(QStringLiteral("stream"), params);
        QVERIFY(spec.ok());
        QCOMPARE(spec->preset, QStringLiteral("stream"));
        QCOMPARE(spec->columns.size(), size_t{2});
        QCOMPARE(spec->columns[0].label, QStringLiteral("TCP"));
        QCOMPARE(spec->columns[0].transport, QStringLiteral("tcp"));
        QVERIFY(spec->columns[0].settings.isEmpty());
        QCOMPARE(spec->columns[1].label, QStringLiteral("SMC-R"));
        QCOMPARE(spec->columns[1].transport, QStringLiteral("smcr"));
        QCOMPARE(spec->columns[1].settings, (QJsonObject{{QStringLiteral("lab.busy_poll_us"), 0}}));
        QCOMPARE(spec->workloads.size(), size_t{2});
        QCOMPARE(spec->workloads[0].label, QStringLiteral("Latency"));
        QCOMPARE(spec->workloads[1].label, QStringLiteral("Bandwidth"));
        QCOMPARE(spec->sizes, (std::vector<uint64_t>{64, 4096}));
        QCOMPARE(spec->durationMs, 3000);
        QCOMPARE(spec->warmupMs, 600);
        QCOMPARE(spec->sampleIntervalMs, 500);
        QCOMPARE(spec->repetitions, 1);
        QCOMPARE(spec->transportOptions.value(QStringLiteral("fabric")).toString(), QStringLiteral("sim"));
        QCOMPARE(spec->transportOptions.value(QStringLiteral("link")).toString(), QStringLiteral("cx4-25g"));
    }

    void unknownNamesAreErrors() {
        PresetParams params;
        params.columns = {QStringLiteral("nope")};
        const auto column = presetWithParams(QStringLiteral("credits"), params);
        QVERIFY(!column.ok());
        QVERIFY(column.error().message.find("nope") != std::string::npos);
        QVERIFY(!presetWithParams(QStringLiteral("no-such-preset"), {}).ok());
        PresetParams workload;
        workload.workloads = {QStringLiteral("kv")};
        QVERIFY(!presetWithParams(QStringLiteral("datapath"), workload).ok());
    }
};

QTEST_GUILESS_MAIN(TestPresetParams)
#include "test_preset_params.moc"
