// libsmcr and the kernel's SMC-R as the two ends of smclab campaigns on
// the VM lab hosts, through the agents alone (no smc_synopt wrapper): the
// agents load the BPF program of the SMC TCP option at start, so a libsmcr
// end run by an agent speaks SMC-Rv2 with a kernel end. One short campaign
// with the four pairings as columns (libsmcr<->libsmcr, libsmcr->kernel,
// kernel->libsmcr, kernel<->kernel), every byte checked, no fallback; the
// stored facts say which end ran which implementation and what libsmcr's
// experiments negotiated with the stock kernel. And an agent without the
// privileges for BPF says so once and keeps the first-bytes detection.
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "smclab/db/result_store.h"
#include "vm_hosts.h"
#include "vmlab_session.h"

using smclab::testing::GuestRun;
using smclab::testing::Outcome;
using smclab::testing::runSmclab;
using smclab::testing::VmLabSession;
using smclab::testing::writeText;
namespace lab = smclab::lab;
namespace db = smclab::db;

class TestVmLabInteropCampaign : public QObject {
    Q_OBJECT

private:
    VmLabSession m_lab;
    QString m_kernel;   // "kernel SMC-R 6.12"
    QString m_libsmcr;  // "libsmcr verbs/rxe0"

private slots:
    void initTestCase() {
        QVERIFY2(m_lab.open(), qPrintable(m_lab.why()));
        auto hello = m_lab.hello(0);
        QVERIFY2(hello.ok(), hello.ok() ? "" : hello.error().message.c_str());
        const smclab::protocol::Capabilities& caps = hello->capabilities;
        if (caps.synOption.reason.contains(QLatin1String("this build has no BPF program")))
            QSKIP("smc_synopt's BPF program is not built (needs clang and libbpf-dev)");
        const QRegularExpressionMatch release =
            QRegularExpression(QStringLiteral("^(\\d+\\.\\d+)")).match(caps.host.kernelRelease);
        QVERIFY(release.hasMatch());
        m_kernel = QStringLiteral("kernel SMC-R ") + release.captured(1);
        QVERIFY(!caps.rdmaDevices.isEmpty());
        m_libsmcr = QStringLiteral("libsmcr verbs/") + caps.rdmaDevices.front().name;
    }

    // Both lab agents run as root on a host with rxe0: their hello says
    // that their libsmcr runs over verbs carry the option.
    void labAgentsCarryTheSynOption() {
        for (int i = 0; i < 2; ++i) {
            auto hello = m_lab.hello(i);
            QVERIFY2(hello.ok(), hello.ok() ? "" : hello.error().message.c_str());
            const smclab::protocol::Availability& option = hello->capabilities.synOption;
            QCOMPARE(option.name, QStringLiteral("syn_option"));
            QVERIFY2(option.available, qPrintable(option.reason));
        }
    }

    // The four pairings as columns of one campaign, 1 size, 1 repetition,
    // half a second each; libsmcr's experiments on in the mixed columns.
    // Exit status 0: every cell finished with its bytes checked (verify) and
    // none ran over TCP; the stored facts name each end and what it
    // negotiated: SMC-Rv2 everywhere, no fallback, and libsmcr's credits
    // asked but not negotiated with the stock kernel.
    void fourPairingsCampaign() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString campaign = dir.filePath(QStringLiteral("interop.json"));
        const QString experiments = QStringLiteral(R"({"lab.rq_credits": "on", "lab.fast_fallback": "on"})");
        QVERIFY(writeText(campaign, QStringLiteral(R"({"name": "vm-interop",
            "workloads": [{"workload": "tcp_bw", "label": "Bandwidth", "params": {"verify": true}}],
            "columns": [{"label": "libsmcr<->libsmcr", "transport": "smcr"},
                        {"label": "libsmcr->kernel", "transport": "ksmc", "clientTransport": "smcr",
                         "clientSettings": %1},
                        {"label": "kernel->libsmcr", "transport": "smcr", "clientTransport": "ksmc",
                         "settings": %1},
                        {"label": "kernel<->kernel", "transport": "ksmc"}],
            "sizes": [65536], "duration": "500ms",
            "transportOptions": {"fabric": "verbs", "lab.ueid": "%2"}})")
                                        .arg(experiments, lab::vm::VmUpOptions().ueid)));
        const QString dbPath = dir.filePath(QStringLiteral("results.db"));
        const Outcome run = runSmclab({QStringLiteral("run"), campaign, QStringLiteral("--lab"),
                                       qEnvironmentVariable("SMCLAB_VMLAB_FILE"), QStringLiteral("--db"), dbPath},
                                      240'000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY2(run.err.contains(QLatin1String("4 cells ran, 0 failed")), qPrintable(run.err));
        // The tables' Wire section names the ends of every column.
        const QMap<QString, QString> ends{
            {QStringLiteral("libsmcr<->libsmcr"), QStringLiteral("server: %1, client: %1").arg(m_libsmcr)},
            {QStringLiteral("libsmcr->kernel"), QStringLiteral("server: %1, client: %2").arg(m_kernel, m_libsmcr)},
            {QStringLiteral("kernel->libsmcr"), QStringLiteral("server: %1, client: %2").arg(m_libsmcr, m_kernel)},
            {QStringLiteral("kernel<->kernel"), QStringLiteral("server: %1, client: %1").arg(m_kernel)},
        };
        for (auto it = ends.begin(); it != ends.end(); ++it) {
            const QRegularExpression line(QRegularExpression::escape(it.key()) + QStringLiteral(" +[^\\n]*") +
                                          QRegularExpression::escape(it.value()));
            QVERIFY2(line.match(run.out).hasMatch(), qPrintable(it.key() + QStringLiteral(": ") + run.out));
        }

        // The column's SMC-R crosses its server's fabric (libsmcr's verbs
        // under a kernel client, not the sim fabric).
        QVERIFY2(!run.out.contains(QLatin1String("over the sim fabric")), qPrintable(run.out));

        auto store = db::ResultStore::open(dbPath);
        QVERIFY2(store.ok(), store.ok() ? "" : store.error().message.c_str());
        auto runs = (*store)->runs(1);
        QVERIFY(runs.ok());
        QCOMPARE(runs->size(), 4);
        for (const db::Run& r : *runs) {
            const QString& column = r.cell.column;
            auto facts = (*store)->hostFacts(r.id);
            QVERIFY(facts.ok());
            QCOMPARE(facts->client.value(QStringLiteral("ends")), ends.value(column));
            for (const db::HostFacts* side : {&facts->client, &facts->server}) {
                const QString impl = side->value(QStringLiteral("implementation"));
                const QString negotiated = side->value(QStringLiteral("smc.negotiated"));
                static const QRegularExpression kV2(QStringLiteral("^SMC-Rv2, [1-9][0-9]* connections?(;|$)"));
                QVERIFY2(kV2.match(negotiated).hasMatch(), qPrintable(column + QStringLiteral(": ") + negotiated));
                QVERIFY2(!negotiated.contains(QLatin1String("fallbacks")), qPrintable(column + ": " + negotiated));
                if (impl != m_libsmcr) continue;
                QCOMPARE(side->value(QStringLiteral("syn_option")), QStringLiteral("on"));
                // Against the stock kernel the experiments give way to the
                // standard protocol; between two libsmcr ends nobody asked.
                const bool mixed = !column.contains(QLatin1String("<->"));
                QVERIFY2(negotiated.contains(QLatin1String("credits asked, not negotiated")) == mixed,
                         qPrintable(column + QStringLiteral(": ") + negotiated));
                QVERIFY2(negotiated.contains(QLatin1String("fast fallback on")),
                         qPrintable(negotiated));  // the default
            }
        }
    }

    // An agent without CAP_BPF / CAP_NET_ADMIN (setpriv drops them) says
    // once, at start, that the option is off and why; its hello carries the
    // reason; its libsmcr runs (both ends here, over rxe0 on one host) still
    // speak SMC-R by first bytes, and the run's facts say the option was off.
    void unprivilegedAgentSaysSoOnce() {
        const GuestRun run = m_lab.run(
            0,
            QStringLiteral(
                "d=$(mktemp -d); head -c 24 /dev/urandom | base64 > $d/token; chmod 600 $d/token\n"
                "setpriv --bounding-set=-all --inh-caps=-all smclab-agent --listen 127.0.0.1:0 --token-file "
                "$d/token > $d/agent.out 2> $d/agent.log < /dev/null &\n"
                "agent=$!\n"
                "for i in $(seq 150); do grep -q 'listening on' $d/agent.out && break; sleep 0.2; done\n"
                "port=$(sed -n 's/^listening on .*:\\([0-9]*\\)$/\\1/p' $d/agent.out)\n"
                "cat > $d/c.json <<'EOF'\n"
                "{\"name\": \"unprivileged\", \"workloads\": [{\"workload\": \"tcp_bw\", \"params\": {\"verify\": "
                "true}}], \"columns\": [{\"label\": \"libsmcr\", \"transport\": \"smcr\"}], \"sizes\": [4096], "
                "\"duration\": \"300ms\", \"transportOptions\": {\"fabric\": \"verbs\"}}\n"
                "EOF\n"
                "status=0; smclab run $d/c.json --agents 127.0.0.1:$port,127.0.0.1:$port --token-file $d/token "
                "--db $d/r.db > $d/run.out 2>&1 || status=$?\n"
                "smclab report 1 --db $d/r.db --format md > $d/report.md 2>&1 || true\n"
                "kill $agent; wait $agent; echo \"agent status $?\"\n"
                "echo \"run status $status\"; cat $d/run.out; echo '--- agent log'; cat $d/agent.log\n"
                "echo '--- report'; grep -E 'syn_option|smc.negotiated' $d/report.md; rm -rf $d"),
            180'000);
        QVERIFY2(run.ok, qPrintable(run.error));
        QVERIFY2(run.output.contains(QLatin1String("run status 0")), qPrintable(run.output));
        QVERIFY2(run.output.contains(QLatin1String("agent status 0")),
                 qPrintable(run.output));  // alive until its SIGTERM
        const QString log = run.output.section(QStringLiteral("--- agent log"), 1);
        QCOMPARE(log.count(QLatin1String("the SMC TCP option is off")), 1);
        QVERIFY2(log.contains(QLatin1String("CAP_BPF and CAP_NET_ADMIN")), qPrintable(log));
        const QString report = run.output.section(QStringLiteral("--- report"), 1);
        QVERIFY2(report.contains(QLatin1String("off: the kernel refused the sock_ops program")), qPrintable(report));
        QVERIFY2(report.contains(QLatin1String("SMC-Rv1, 1 connection")), qPrintable(report));  // by first bytes
    }
};

QTEST_GUILESS_MAIN(TestVmLabInteropCampaign)
#include "test_vmlab_interop_campaign.moc"
