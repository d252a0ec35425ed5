// The control protocol without a network: the strict validator (every
// error names its field), message round trips, endpoints, and the agent's
// small security pieces (constant-time token check, login back-off, peer
// CIDRs) and the RDMA device probe on a fake sysfs tree.
#include <map>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include "host_probe.h"
#include "login_limiter.h"
#include "options.h"
#include "peer_policy.h"
#include "protocol/validator.h"
#include "settings_bridge.h"
#include "token_auth.h"

using namespace smclab;
using namespace smclab::protocol;

namespace {

// A transport that only has settings: records what the agent hands it and
// refuses values the way an engine does (its own words).
class RecordingTransport final : public transports::Transport {
public:
    std::vector<std::pair<std::string, std::string>> applied;
    std::map<std::string, std::string> values = {{"autocorking_size", "65536"},     {"lab.cork_timer_ms", "0"},
                                                 {"lab.cq_mode", "drain_then_arm"}, {"lab.tx_defer_to_owner", "on"},
                                                 {"lab.wnd_update_limit", "max"},   {"lab.rq_credits", "off"},
                                                 {"lab.rx_backlog", "off"},         {"lab.fast_fallback", "off"}};

    std::string name() const override { return "fake"; }
    smcr::Result<std::unique_ptr<transports::Stream>> connect(const std::string&, uint16_t,
                                                              const transports::ConnectOptions&) override {
        return smcr::fail(smcr::Errc::notSupported, "no streams");
    }
    smcr::Result<std::unique_ptr<transports::Listener>> listen(const std::string&, uint16_t, int) override {
        return smcr::fail(smcr::Errc::notSupported, "no listeners");
    }
    smcr::Result<std::unique_ptr<transports::Poller>> createPoller() override {
        return smcr::fail(smcr::Errc::notSupported, "no pollers");
    }
    std::vector<transports::SettingInfo> settings() const override {
        std::vector<transports::SettingInfo> out;
        for (const auto& [name, value] : values) out.push_back({name, value, transports::SettingScope::immediate, {}});
        return out;
    }
    smcr::Status applySetting(const std::string& name, const std::string& value) override {
        if (name == "lab.cq_mode" && value != "arm_first" && value != "drain_then_arm")
            return smcr::fail(smcr::Errc::invalidArgument,
                              "lab.cq_mode: expected arm_first|drain_then_arm, got '" + value + "'");
        applied.emplace_back(name, value);
        values[name] = value;
        return {};
    }
};

QByteArray text(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject validStart() {
    return QJsonObject{{"type", "start_run"},
                       {"id", 7},
                       {"run_id", "r-1"},
                       {"role", "client"},
                       {"workload", "tcp_bw"},
                       {"transport", "tcp"},
                       {"peer", "10.0.0.2:5201"},
                       {"duration_ms", 2000},
                       {"params", QJsonObject{{"msg_size", "64K"}}}};
}

ProtocolError errorOf(const QJsonObject& object) {
    return parseControllerMessage(text(object)).error;
}

}  // namespace

class TestProtocolMessages : public QObject {
    Q_OBJECT
private slots:
    void validStartRunParses() {
        const ControllerMessage message = parseControllerMessage(text(validStart()));
        QVERIFY2(message.ok(), qPrintable(message.error.message));
        QCOMPARE(message.requestId, qint64(7));
        const auto& start = std::get<StartRun>(message.body);
        QCOMPARE(start.runId, QString("r-1"));
        QCOMPARE(start.role, smcr::Side::client);
        QCOMPARE(start.peer.address, QHostAddress("10.0.0.2"));
        QCOMPARE(start.peer.port, quint16(5201));
        QCOMPARE(start.sampleIntervalMs, kDefaultSampleIntervalMs);
        QCOMPARE(start.warmupMs, qint64(-1));
        // Round trip through the typed struct.
        const ControllerMessage again = parseControllerMessage(text(start.toJson()));
        QVERIFY(again.ok());
        QCOMPARE(std::get<StartRun>(again.body).params, start.params);
    }

    void everyErrorNamesItsField_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("field");
        QTest::newRow("run_id type") << "run_id" << QJsonValue(5) << "bad_field"
                                     << "run_id";
        QTest::newRow("run_id pattern") << "run_id" << QJsonValue("../x") << "bad_field"
                                        << "run_id";
        QTest::newRow("role enum") << "role" << QJsonValue("both") << "bad_field"
                                   << "role";
        QTest::newRow("transport enum") << "transport" << QJsonValue("udp") << "unknown_transport"
                                        << "transport";
        QTest::newRow("workload pattern") << "workload" << QJsonValue("rm -rf") << "bad_field"
                                          << "workload";
        QTest::newRow("duration low") << "duration_ms" << QJsonValue(99) << "bad_field"
                                      << "duration_ms";
        QTest::newRow("duration high") << "duration_ms" << QJsonValue(86'400'001) << "bad_field"
                                       << "duration_ms";
        QTest::newRow("duration fraction") << "duration_ms" << QJsonValue(1000.5) << "bad_field"
                                           << "duration_ms";
        QTest::newRow("interval") << "sample_interval_ms" << QJsonValue(60'001) << "bad_field"
                                  << "sample_interval_ms";
        QTest::newRow("peer v6 form") << "peer" << QJsonValue("::1:80") << "bad_field"
                                      << "peer";
        QTest::newRow("params type") << "params" << QJsonValue("x") << "bad_field"
                                     << "params";
        QTest::newRow("params nested") << "params" << QJsonValue(QJsonObject{{"a", QJsonObject{}}}) << "bad_field"
                                       << "params.a";
        QTest::newRow("params long string")
            << "params" << QJsonValue(QJsonObject{{"a", QString(1025, 'x')}}) << "bad_field"
            << "params.a";
        QTest::newRow("settings array element")
            << "settings" << QJsonValue(QJsonObject{{"tcp_wmem", QJsonArray{1, QJsonObject{}}}}) << "bad_field"
            << "settings.tcp_wmem[1]";
        QTest::newRow("listen on client") << "listen" << QJsonValue("0.0.0.0:0") << "bad_field"
                                          << "listen";
        QTest::newRow("unknown") << "colour" << QJsonValue("red") << "bad_field"
                                 << "colour";
    }
    void everyErrorNamesItsField() {
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, code);
        QFETCH(QString, field);
        QJsonObject message = validStart();
        message.insert(key, value);
        const ProtocolError error = errorOf(message);
        QCOMPARE(error.code, code);
        QCOMPARE(error.field, field);
        QVERIFY2(error.message.startsWith(field), qPrintable(error.message));
        const QJsonObject wire = error.toJson();
        QCOMPARE(wire.value("type").toString(), QString("error"));
        QCOMPARE(wire.value("field").toString(), field);
    }

    void otherMessages() {
        QVERIFY(parseControllerMessage(R"({"type":"status"})").ok());
        QVERIFY(parseControllerMessage(R"({"type":"stop_run","run_id":"a"})").ok());
        QCOMPARE(parseControllerMessage(R"({"type":"stop_run"})").error.field, QString("run_id"));
        QCOMPARE(parseControllerMessage(R"({"type":"set_settings","run_id":"a"})").error.code,
                 QString("missing_field"));
        const auto set = parseControllerMessage(R"({"type":"set_settings","run_id":"a","settings":{"x":true}})");
        QVERIFY(set.ok());
        QCOMPARE(std::get<SetSettings>(set.body).settings.value("x").toBool(), true);
        QCOMPARE(parseControllerMessage("nope").error.code, QString("bad_json"));
        QCOMPARE(parseControllerMessage(QByteArray(kMaxMessageBytes + 1, ' ')).error.code, QString("bad_json"));
        QCOMPARE(parseControllerMessage(R"({"type":7})").error.code, QString("bad_message"));
        QCOMPARE(parseControllerMessage(R"({"type":"status","id":9007199254740992})").error.field, QString("id"));
    }

    void agentMessagesRoundTrip() {
        Samples samples;
        samples.runId = "r";
        samples.seq = 3;
        samples.tMs = 800;
        samples.intervalMs = 200;
        samples.bytes = 5'000'000'000ULL;
        samples.throughputBps = 2e11;
        samples.latency = {true, 1, 2, 3, 4, 5, 6};
        samples.counters = {{"tcp.retransmits", 2}};
        const Samples back = Samples::fromJson(samples.toJson());
        QCOMPARE(back.bytes, samples.bytes);
        QCOMPARE(back.latency.p999Us, 5.0);
        QCOMPARE(back.counters, samples.counters);
        RunResult result;
        result.runId = "r";
        result.state = RunState::stopped;
        result.role = smcr::Side::server;
        result.summary = {{"bw_MBps", 1.5}};
        const RunResult resultBack = RunResult::fromJson(result.toJson());
        QCOMPARE(resultBack.state, RunState::stopped);
        QCOMPARE(resultBack.role, smcr::Side::server);
        QCOMPARE(resultBack.summary, result.summary);
        Hello hello{"1.0", "0.1.0", "s1", {}};
        hello.capabilities.transports = {{"tcp", true, {}}, {"ksmc", false, "no AF_SMC"}};
        const Hello helloBack = Hello::fromJson(hello.toJson());
        QVERIFY(helloBack.capabilities.transportAvailable("tcp"));
        QVERIFY(!helloBack.capabilities.transportAvailable("ksmc"));
        QCOMPARE(helloBack.capabilities.transports.at(1).reason, QString("no AF_SMC"));
        // kernel_smcr is optional: absent unless reported, and read back whole.
        QVERIFY(!hello.toJson().value("capabilities").toObject().contains("kernel_smcr"));
        QVERIFY(!helloBack.capabilities.kernelSmcr.reported);
        hello.capabilities.kernelSmcr = {
            true, "pnet table: no SMC-R family", {"SMCLAB"}, {}, {"server 0x03030000 NOSMCDEV: 2"}};
        const Hello smcrBack = Hello::fromJson(hello.toJson());
        QVERIFY(smcrBack.capabilities.kernelSmcr.reported);
        QCOMPARE(smcrBack.capabilities.kernelSmcr.ueids, QStringList{"SMCLAB"});
        QVERIFY(smcrBack.capabilities.kernelSmcr.pnet.isEmpty());
        QCOMPARE(smcrBack.capabilities.kernelSmcr.fallbacks, QStringList{"server 0x03030000 NOSMCDEV: 2"});
        QCOMPARE(smcrBack.capabilities.kernelSmcr.error, QString("pnet table: no SMC-R family"));
    }

    void endpoints() {
        QString why;
        QCOMPARE(parseEndpoint("[::1]:80", &why)->toString(), QString("[::1]:80"));
        QCOMPARE(parseEndpoint("192.168.1.1:0", &why)->port, quint16(0));
        QVERIFY(!parseEndpoint("host:80", &why));
        QVERIFY(why.contains("not an IP address"));
        QVERIFY(!parseEndpoint("1.2.3.4", &why));
        QVERIFY(!parseEndpoint("1.2.3.4:-1", &why));
    }

    void tokens() {
        QVERIFY(daemon::tokensEqual("secret-token", "secret-token"));
        QVERIFY(!daemon::tokensEqual("secret-token", "secret-tokem"));
        QVERIFY(!daemon::tokensEqual("secret-token", "secret-token-longer"));
        QVERIFY(!daemon::tokensEqual("secret-token", ""));
        QVERIFY(!daemon::tokensEqual("", ""));
        QCOMPARE(daemon::bearerToken("Bearer abc"), QByteArray("abc"));
        QCOMPARE(daemon::bearerToken("bearer   abc "), QByteArray("abc"));
        QCOMPARE(daemon::bearerToken("Basic abc"), QByteArray());
        QTemporaryDir dir;
        QFile file(dir.filePath("t"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("short\n");
        file.close();
        QString why;
        QVERIFY(!daemon::loadToken(file.fileName(), &why));
        QVERIFY(why.contains("at least 8"));
    }

    void loginBackoffGrows() {
        daemon::LoginLimiter limiter;
        const QHostAddress peer("10.1.2.3");
        for (int i = 0; i < daemon::LoginLimiter::kFreeFailures - 1; ++i) limiter.recordFailure(peer);
        QCOMPARE(limiter.retryAfterMs(peer), qint64(0));
        limiter.recordFailure(peer);
        const qint64 first = limiter.retryAfterMs(peer);
        QVERIFY(first > 0 && first <= daemon::LoginLimiter::kBaseDelayMs);
        limiter.recordFailure(peer);
        QVERIFY(limiter.retryAfterMs(peer) > first);
        QCOMPARE(limiter.retryAfterMs(QHostAddress("10.1.2.4")), qint64(0));
        limiter.recordSuccess(peer);
        QCOMPARE(limiter.retryAfterMs(peer), qint64(0));
    }

    void peerPolicy() {
        daemon::PeerPolicy policy;
        QString why;
        QVERIFY(policy.addCidr("10.77.0.0/24", &why));
        QVERIFY(policy.addCidr("fd00::5", &why));
        QVERIFY(!policy.addCidr("10.0.0.0/40", &why));
        QVERIFY(policy.isAllowed(QHostAddress("127.0.0.9")));
        QVERIFY(policy.isAllowed(QHostAddress("::1")));
        QVERIFY(policy.isAllowed(QHostAddress("10.77.0.200")));
        QVERIFY(policy.isAllowed(QHostAddress("::ffff:10.77.0.1")));
        QVERIFY(policy.isAllowed(QHostAddress("fd00::5")));
        QVERIFY(!policy.isAllowed(QHostAddress("10.77.1.1")));
        QVERIFY(!policy.isAllowed(QHostAddress("fd00::6")));
        QCOMPARE(policy.describe().first(), QString("loopback"));
        // --no-loopback-peers: loopback only when a CIDR names it.
        policy.setLoopbackAllowed(false);
        QVERIFY(!policy.isAllowed(QHostAddress("127.0.0.9")));
        QVERIFY(!policy.isAllowed(QHostAddress("::1")));
        QVERIFY(!policy.isAllowed(QHostAddress("::ffff:127.0.0.1")));
        QVERIFY(policy.isAllowed(QHostAddress("10.77.0.200")));
        QVERIFY(!policy.describe().contains("loopback"));
    }

    void loopbackPeersAreTheDefault() {
        daemon::DaemonOptions plain;
        QCOMPARE(daemon::parseOptions({"smclab-agent", "--token-file", "t"}, &plain), daemon::ParseOutcome::run);
        QVERIFY(plain.allowLoopbackPeers);
        daemon::DaemonOptions strict;
        QCOMPARE(
            daemon::parseOptions(
                {"smclab-agent", "--token-file", "t", "--no-loopback-peers", "--allow-peer", "10.0.0.0/8"}, &strict),
            daemon::ParseOutcome::run);
        QVERIFY(!strict.allowLoopbackPeers);
        QCOMPARE(strict.allowPeers, QStringList{"10.0.0.0/8"});
    }

    void settingValuesBecomeText() {
        QCOMPARE(daemon::settingText(QJsonValue(true)), std::string("1"));
        QCOMPARE(daemon::settingText(QJsonValue(65536)), std::string("65536"));
        QCOMPARE(daemon::settingText(QJsonValue(0.25)), std::string("0.25"));
        QCOMPARE(daemon::settingText(QJsonArray{4096, 87380, 6291456}), std::string("4096 87380 6291456"));
    }

    void presetSettingSpellingsPassThroughUnchanged() {
        // The values the presets and the GUI send reach the engine as the
        // same text (no translation in the agent).
        RecordingTransport transport;
        const QJsonObject settings{{"lab.cq_mode", "arm_first"},    {"lab.tx_defer_to_owner", "off"},
                                   {"lab.wnd_update_limit", "min"}, {"lab.rq_credits", "on"},
                                   {"lab.rx_backlog", "on"},        {"lab.fast_fallback", "on"},
                                   {"autocorking_size", 0},         {"lab.cork_timer_ms", 250}};
        std::map<std::string, std::string> previous;
        QJsonObject applied;
        const ProtocolError error = daemon::applySettings(transport, settings, &previous, &applied);
        QVERIFY2(error.code.isEmpty(), qPrintable(error.message));
        std::map<std::string, std::string> got(transport.applied.begin(), transport.applied.end());
        const std::map<std::string, std::string> expected = {
            {"lab.cq_mode", "arm_first"}, {"lab.tx_defer_to_owner", "off"}, {"lab.wnd_update_limit", "min"},
            {"lab.rq_credits", "on"},     {"lab.rx_backlog", "on"},         {"lab.fast_fallback", "on"},
            {"autocorking_size", "0"},    {"lab.cork_timer_ms", "250"}};
        QVERIFY(got == expected);
        QCOMPARE(applied, settings);
        QCOMPARE(previous.at("lab.cq_mode"), std::string("drain_then_arm"));
        QCOMPARE(previous.at("autocorking_size"), std::string("65536"));
    }

    void refusedSettingCarriesTheEnginesReason() {
        RecordingTransport transport;
        QJsonObject applied;
        const ProtocolError error = daemon::applySettings(transport, {{"lab.cq_mode", "sideways"}}, nullptr, &applied);
        QCOMPARE(error.field, QString("settings.lab.cq_mode"));
        QVERIFY2(error.message.contains("cannot set to 'sideways'"), qPrintable(error.message));
        QVERIFY2(error.message.contains("expected arm_first|drain_then_arm, got 'sideways'"),
                 qPrintable(error.message));
        QVERIFY(transport.applied.empty());
        const ProtocolError unknown = daemon::applySettings(transport, {{"lab.nope", "on"}}, nullptr, &applied);
        QCOMPARE(unknown.field, QString("settings.lab.nope"));
        QVERIFY(unknown.message.contains("has no setting 'lab.nope'"));
    }

    void rdmaDevicesFromSysfs() {
        QTemporaryDir root;
        QDir dir(root.path());
        QVERIFY(dir.mkpath("mlx5_0/ports/1"));
        QVERIFY(dir.mkpath("mlx5_0/device/net/ens1f0"));
        auto write = [&](const QString& path, const QByteArray& content) {
            QFile file(dir.filePath(path));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        };
        write("mlx5_0/ports/1/state", "4: ACTIVE\n");
        write("mlx5_0/ports/1/link_layer", "Ethernet\n");
        const auto devices = daemon::probeRdmaDevices(root.path());
        QCOMPARE(devices.size(), 1);
        QCOMPARE(devices.first().name, QString("mlx5_0"));
        QCOMPARE(devices.first().ports, QStringList{"1: ACTIVE (Ethernet)"});
        QCOMPARE(devices.first().netDevice, QString("ens1f0"));
        QVERIFY(daemon::probeRdmaDevices(root.path() + "/absent").isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestProtocolMessages)
#include "test_protocol_messages.moc"
