// The metrics page's pure parts: every counter libsmcr flattens (fallback
// and decline reasons included) becomes a metric whose name the format
// accepts, counters ending in _total and gauges not, the kernel-like names
// the dashboards use; and the text format's escaping, checked by
// promtool when it is installed.
#include <smcr/stats.h>

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

#include "engine_metric_names.h"
#include "prometheus_text.h"

using namespace smclab::daemon;

class TestPrometheusNames : public QObject {
    Q_OBJECT

private slots:
    void everyEngineCounterHasAValidName() {
        smcr::EngineStats stats;
        stats.clientFallbackReasons[0x03010000] = 2;  // PEERNOSMC
        stats.serverFallbackReasons[0x12345678] = 1;  // a code with no name
        stats.peerDeclineReasons[0x03010000] = 1;
        static const QRegularExpression valid(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
        static const QRegularExpression labelValue(QStringLiteral("^[A-Za-z0-9_]+$"));
        QSet<QString> seen;
        for (const auto& [name, value] : stats.flatten()) {
            const EngineMetric metric = engineMetric(name);
            QVERIFY2(valid.match(metric.name).hasMatch(), name.c_str());
            QVERIFY2(!metric.help.isEmpty(), name.c_str());
            QCOMPARE(metric.name.endsWith(QLatin1String("_total")), metric.type == MetricType::counter);
            // Without labels, two engine counters must not share a name.
            if (metric.labels.isEmpty()) {
                QVERIFY2(!seen.contains(metric.name), qPrintable(metric.name));
                seen.insert(metric.name);
            }
            for (const auto& [key, label] : metric.labels)
                QVERIFY2(labelValue.match(label).hasMatch(), qPrintable(label));
        }
        QCOMPARE(engineMetric("smcr.cdc_sent").name, QStringLiteral("smcr_cdc_msgs_sent_total"));
        QCOMPARE(engineMetric("smcr.rdma_writes").name, QStringLiteral("smcr_rdma_writes_total"));
        QCOMPARE(engineMetric("smcr.conns_active").type, MetricType::gauge);
        const EngineMetric fallback = engineMetric("smcr.fallback.client.PEERNOSMC");
        QCOMPARE(fallback.name, QStringLiteral("smcr_fallbacks_total"));
        QCOMPARE(fallback.labels, (MetricLabels{{"side", "client"}, {"reason", "PEERNOSMC"}}));
        QCOMPARE(engineMetric("smcr.some.new-counter").name, QStringLiteral("smcr_some_new_counter_total"));
        QVERIFY(engineMetric("tcp.retransmits").name.isEmpty());
    }

    void textEscapesAndGroupsFamilies() {
        MetricsPage page;
        page.add("smclab_test_total", MetricType::counter, "a help with \\ and\nnewline", {{"run_id", "a\"b\\c\nd"}},
                 3);
        page.add("smclab_test_level", MetricType::gauge, "level", {}, 0.25);
        page.add("smclab_test_total", MetricType::counter, "ignored", {{"run_id", "second"}}, 1e18);
        const QByteArray text = page.toText();
        QCOMPARE(text, QByteArray("# HELP smclab_test_total a help with \\\\ and\\nnewline\n"
                                  "# TYPE smclab_test_total counter\n"
                                  "smclab_test_total{run_id=\"a\\\"b\\\\c\\nd\"} 3\n"
                                  "smclab_test_total{run_id=\"second\"} 1e+18\n"
                                  "# HELP smclab_test_level level\n"
                                  "# TYPE smclab_test_level gauge\n"
                                  "smclab_test_level 0.25\n"));
        const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
        if (promtool.isEmpty()) QSKIP("promtool not installed (Debian prometheus); the text was checked by hand above");
        QProcess check;
        check.start(promtool, {"check", "metrics"});
        QVERIFY(check.waitForStarted());
        check.write(text);
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(20'000));
        QVERIFY2(check.exitCode() == 0, (check.readAllStandardOutput() + check.readAllStandardError()).constData());
    }
};

QTEST_GUILESS_MAIN(TestPrometheusNames)
#include "test_prometheus_names.moc"
