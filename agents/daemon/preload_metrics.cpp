#include "preload_metrics.h"

#include <control_path.h>

#include <QJsonDocument>
#include <QJsonObject>

#include "engine_metric_names.h"

namespace smclab::daemon {

void addPreloadProcess(const QByteArray& statJson, MetricsPage* page) {
    const QJsonObject stats = QJsonDocument::fromJson(statJson).object();
    if (stats.isEmpty()) return;
    const MetricLabels process{{QStringLiteral("pid"), QString::number(stats.value(QLatin1String("pid")).toInteger())},
                               {QStringLiteral("program"), stats.value(QLatin1String("program")).toString()}};
    auto with = [&](std::initializer_list<QPair<QString, QString>> extra) {
        MetricLabels labels = process;
        for (const auto& label : extra) labels.append(label);
        return labels;
    };
    auto number = [&](const char* key) { return stats.value(QLatin1String(key)).toDouble(); };

    page->add(QStringLiteral("smcr_preload_info"), MetricType::gauge,
              QStringLiteral("a program running under smcr_run (libsmcr preload)"), process, 1);
    const QString connections = QStringLiteral("smcr_preload_connections_total");
    const QString connectionsHelp =
        QStringLiteral("TCP sockets the program connected or accepted, by the path they took");
    page->add(
        connections, MetricType::counter, connectionsHelp,
        with({{QStringLiteral("path"), QStringLiteral("smc")}, {QStringLiteral("side"), QStringLiteral("client")}}),
        number("smc_client"));
    page->add(
        connections, MetricType::counter, connectionsHelp,
        with({{QStringLiteral("path"), QStringLiteral("smc")}, {QStringLiteral("side"), QStringLiteral("server")}}),
        number("smc_server"));
    page->add(connections, MetricType::counter, connectionsHelp,
              with({{QStringLiteral("path"), QStringLiteral("tcp")}, {QStringLiteral("side"), QStringLiteral("any")}}),
              number("tcp_connections"));
    const QJsonObject reasons = stats.value(QLatin1String("fallbacks")).toObject();
    for (auto it = reasons.begin(); it != reasons.end(); ++it) {
        page->add(QStringLiteral("smcr_preload_tcp_connections_total"), MetricType::counter,
                  QStringLiteral("connections that stayed on kernel TCP, by reason"),
                  with({{QStringLiteral("reason"), it.key()}}), it.value().toDouble());
    }
    const QString bytes = QStringLiteral("smcr_preload_app_bytes_total");
    const QString bytesHelp = QStringLiteral("application bytes the program sent or received, by path");
    for (const auto& [key, path, direction] :
         {std::tuple{"smc_tx_bytes", "smc", "tx"}, std::tuple{"smc_rx_bytes", "smc", "rx"},
          std::tuple{"tcp_tx_bytes", "tcp", "tx"}, std::tuple{"tcp_rx_bytes", "tcp", "rx"}}) {
        page->add(bytes, MetricType::counter, bytesHelp,
                  with({{QStringLiteral("path"), QString::fromLatin1(path)},
                        {QStringLiteral("direction"), QString::fromLatin1(direction)}}),
                  number(key));
    }
    // The engine's own counters, the same families a libsmcr run exports.
    const QJsonObject engine = stats.value(QLatin1String("engine")).toObject();
    for (auto it = engine.begin(); it != engine.end(); ++it) {
        EngineMetric metric = engineMetric(it.key().toStdString());
        if (metric.name.isEmpty()) continue;
        MetricLabels labels = process;
        labels.append(metric.labels);
        page->add(metric.name, metric.type, metric.help, labels, it.value().toDouble());
    }
}

void addPreloadFamilies(MetricsPage* page, int timeoutMs) {
    for (const pid_t pid : smcr::preload::controlPids()) {
        auto answer = smcr::preload::controlRequest(pid, "stat\n", timeoutMs);
        if (!answer) continue;  // gone since it registered (its endpoint is stale)
        addPreloadProcess(QByteArray::fromStdString(answer.value()), page);
    }
}

}  // namespace smclab::daemon
