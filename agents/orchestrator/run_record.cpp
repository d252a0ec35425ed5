#include "run_record.h"

#include <cstring>
#include <tuple>

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include "host_load.h"

namespace smclab::orchestrator {

namespace {

QString valueText(const QJsonValue& value) {
    if (value.isString()) return value.toString();
    if (value.isBool()) return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (d == static_cast<double>(static_cast<qint64>(d))) return QString::number(static_cast<qint64>(d));
        return QString::number(d, 'g', 17);
    }
    return QString::fromUtf8(QJsonDocument::fromVariant(value.toVariant()).toJson(QJsonDocument::Compact));
}

void addNumbers(const QJsonObject& object, const QString& prefix, QMap<QString, double>& out) {
    static const QString kMs = QStringLiteral("_latency_ms");
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!it.value().isDouble()) continue;
        const QString key = it.key().toLower();
        out.insert(prefix + key, it.value().toDouble());
        // redis-benchmark reports milliseconds; the lab's latency metrics
        // are microseconds (p50_latency_ms -> p50_us).
        if (key.endsWith(kMs))
            out.insert(prefix + key.chopped(kMs.size()) + QStringLiteral("_us"), it.value().toDouble() * 1000.0);
    }
}

// Tool workloads (summary "tool"): what each side ran, exactly, as facts
// tool.command / tool.version / tool.program / tool.output, and the server
// program's CPU time beside the client's (cpu_sec is the client's).
void addToolRecord(const QJsonObject& client, const QJsonObject& server, db::RunRecord& record) {
    for (const auto& [summary, facts] :
         {std::pair{&client, &record.clientFacts}, std::pair{&server, &record.serverFacts}}) {
        const QJsonObject tool = summary->value(QLatin1String("tool")).toObject();
        for (auto it = tool.begin(); it != tool.end(); ++it)
            facts->insert(QStringLiteral("tool.") + it.key(), it.value().toString());
    }
    if (!server.contains(QLatin1String("tool"))) return;
    for (const char* key : {"cpu_sec", "cpu_user_sec", "cpu_system_sec"}) {
        const QJsonValue v = server.value(QLatin1String(key));
        if (v.isDouble()) record.results.insert(QStringLiteral("server_") + QLatin1String(key), v.toDouble());
    }
}

qint64 counter(const QJsonObject& counters, const char* name) {
    return static_cast<qint64>(counters.value(QLatin1String(name)).toDouble());
}

bool settingOn(const QJsonObject& settings, const char* name) {
    const QString value = valueText(settings.value(QLatin1String(name)));
    return value == QLatin1String("on") || value == QLatin1String("1") || value == QLatin1String("true");
}

// What an SMC end negotiated over the run, from its own counters: the
// version and connections, fallbacks by reason, and for libsmcr the
// experiments it had on and whether the peer took them (a stock kernel
// knows no credits: the link runs the standard protocol, counted in
// smcr.credit_links). Empty for a TCP end or one without counters.
QString negotiatedText(const QString& transport, const QJsonObject& counters, const QJsonObject& settings) {
    if (counters.isEmpty()) return {};
    QStringList parts;
    QStringList fallbacks;
    for (auto it = counters.begin(); it != counters.end(); ++it) {
        for (const char* prefix : {"kernel.fallback.", "smcr.fallback."}) {
            if (it.key().startsWith(QLatin1String(prefix)) && it.value().toDouble() > 0)
                fallbacks << QStringLiteral("%1 %2").arg(it.key().mid(static_cast<int>(std::strlen(prefix))),
                                                         valueText(it.value()));
        }
    }
    if (transport == QLatin1String("ksmc")) {
        const qint64 v2 =
            counter(counters, "kernel.smcr.clnt_v2_succ_cnt") + counter(counters, "kernel.smcr.srv_v2_succ_cnt");
        const qint64 v1 =
            counter(counters, "kernel.smcr.clnt_v1_succ_cnt") + counter(counters, "kernel.smcr.srv_v1_succ_cnt");
        if (v2 > 0) parts << QStringLiteral("SMC-Rv2, %1 connection%2").arg(v2).arg(v2 == 1 ? "" : "s");
        if (v1 > 0) parts << QStringLiteral("SMC-Rv1, %1 connection%2").arg(v1).arg(v1 == 1 ? "" : "s");
        if (v1 + v2 == 0) parts << QStringLiteral("no SMC-R connection");
    } else if (transport == QLatin1String("smcr")) {
        const qint64 smc = counter(counters, "smcr.clnt_success") + counter(counters, "smcr.srv_success");
        // libsmcr speaks v2 exactly when it has a UEID (lab.ueid), v1 otherwise.
        const bool v2 = !valueText(settings.value(QLatin1String("lab.ueid"))).isEmpty();
        if (smc > 0)
            parts << QStringLiteral("%1, %2 connection%3")
                         .arg(v2 ? QStringLiteral("SMC-Rv2") : QStringLiteral("SMC-Rv1"))
                         .arg(smc)
                         .arg(smc == 1 ? "" : "s");
        else
            parts << QStringLiteral("no SMC-R connection");
        if (settingOn(settings, "lab.rq_credits")) {
            const qint64 links = counter(counters, "smcr.credit_links");
            parts << (links > 0
                          ? QStringLiteral("credits negotiated on %1 link%2").arg(links).arg(links == 1 ? "" : "s")
                          : QStringLiteral("credits asked, not negotiated (smcr.credit_links 0: the "
                                           "standard protocol)"));
        }
        if (settingOn(settings, "lab.fast_fallback"))
            parts
                << QStringLiteral("fast fallback on (%1 accepts)").arg(counter(counters, "smcr.fast_fallback_accepts"));
    } else {
        return {};
    }
    if (!fallbacks.isEmpty()) parts << QStringLiteral("fallbacks: ") + fallbacks.join(QStringLiteral(", "));
    return parts.join(QStringLiteral("; "));
}

}  // namespace

QString storedWorkloadName(const CampaignSpec& spec, int workloadIndex) {
    const WorkloadSpec& workload = spec.workloads.at(static_cast<size_t>(workloadIndex));
    int sameName = 0;
    for (const WorkloadSpec& other : spec.workloads) sameName += other.workload == workload.workload ? 1 : 0;
    if (sameName <= 1) return workload.workload;
    return workload.workload + QLatin1Char(':') + workload.label;
}

QList<db::StoredWorkload> storedWorkloads(const CampaignSpec& spec) {
    QList<db::StoredWorkload> out;
    for (int w = 0; w < static_cast<int>(spec.workloads.size()); ++w) {
        out.append({storedWorkloadName(spec, w), spec.workloads[static_cast<size_t>(w)].label});
    }
    return out;
}

QStringList columnLabels(const CampaignSpec& spec) {
    QStringList out;
    for (const ColumnSpec& c : spec.columns) out << c.label;
    return out;
}

db::RunCell toRunCell(const CampaignSpec& spec, const Cell& cell) {
    db::RunCell runCell;
    runCell.workload = storedWorkloadName(spec, cell.workloadIndex);
    const ColumnSpec& column = spec.columns.at(static_cast<size_t>(cell.columnIndex));
    runCell.transport = column.transport;
    runCell.column = column.label;
    runCell.msgSize = static_cast<qint64>(cell.sizeBytes);
    runCell.repetition = cell.repetition;
    return runCell;
}

int findCell(const CampaignSpec& spec, const std::vector<Cell>& cells, const db::RunCell& runCell) {
    for (const Cell& cell : cells) {
        if (toRunCell(spec, cell) == runCell) return cell.index;
    }
    return -1;
}

QString implementationLabel(const protocol::Capabilities& caps, const QJsonObject& transportOptions,
                            const QString& transport) {
    if (transport == QLatin1String("tcp")) return QStringLiteral("kernel TCP");
    if (transport == QLatin1String("ksmc")) {
        static const QRegularExpression kMajorMinor(QStringLiteral("^(\\d+\\.\\d+)"));
        const QRegularExpressionMatch m = kMajorMinor.match(caps.host.kernelRelease);
        return QStringLiteral("kernel SMC-R %1").arg(m.hasMatch() ? m.captured(1) : caps.host.kernelRelease).trimmed();
    }
    if (transport == QLatin1String("smcr")) {
        QString fabric = valueText(transportOptions.value(QLatin1String("fabric")));
        if (fabric.isEmpty()) fabric = QStringLiteral("sim");
        if (fabric != QLatin1String("sim") && !caps.rdmaDevices.isEmpty())
            return QStringLiteral("libsmcr %1/%2").arg(fabric, caps.rdmaDevices.front().name);
        return QStringLiteral("libsmcr ") + fabric;
    }
    return transport;
}

void addEndsFacts(const db::HostFacts& serverFacts, db::HostFacts& clientFacts) {
    const QString server = serverFacts.value(QStringLiteral("implementation"));
    const QString client = clientFacts.value(QStringLiteral("implementation"));
    if (server.isEmpty() || client.isEmpty()) return;
    const QString ends = QStringLiteral("server: %1, client: %2").arg(server, client);
    clientFacts.insert(QStringLiteral("ends"), ends);
    const auto kernelSmc = [](const QString& impl) { return impl.startsWith(QLatin1String("kernel SMC-R")); };
    const auto realFabric = [](const QString& impl) {
        return impl.startsWith(QLatin1String("libsmcr ")) && impl != QLatin1String("libsmcr sim");
    };
    if (server != client || kernelSmc(server) || kernelSmc(client) || realFabric(server) || realFabric(client))
        clientFacts.insert(QStringLiteral("wire.ends"), ends);
}

db::HostFacts hostFacts(const protocol::Hello& hello, const QJsonObject& transportOptions, const QString& transport) {
    const protocol::Capabilities& caps = hello.capabilities;
    db::HostFacts facts;
    facts.insert(QStringLiteral("host"), caps.host.hostname);
    facts.insert(QStringLiteral("cpu_model"), caps.host.cpuModel);
    facts.insert(QStringLiteral("cpu_count"), QString::number(caps.host.cpuCount));
    facts.insert(QStringLiteral("kernel"),
                 QStringLiteral("%1 %2").arg(caps.host.kernelName, caps.host.kernelRelease).trimmed());
    facts.insert(QStringLiteral("agent_version"), hello.agentVersion);
    facts.insert(QStringLiteral("ksmc"), caps.ksmc.available ? QStringLiteral("available")
                                                             : QStringLiteral("unavailable: %1").arg(caps.ksmc.reason));
    if (!caps.rdmaDevices.isEmpty()) facts.insert(QStringLiteral("rdma_device"), caps.rdmaDevices.front().name);
    if (!caps.host.virtualization.isEmpty()) facts.insert(QStringLiteral("virtualization"), caps.host.virtualization);
    facts.insert(QStringLiteral("implementation"), implementationLabel(caps, transportOptions, transport));
    if (transport == QLatin1String("smcr")) {
        if (transportOptions.contains(QLatin1String("fabric")))
            facts.insert(QStringLiteral("fabric"), valueText(transportOptions.value(QLatin1String("fabric"))));
        if (transportOptions.contains(QLatin1String("link")))
            facts.insert(QStringLiteral("link_model"), valueText(transportOptions.value(QLatin1String("link"))));
        // The agent loads the option's program only where it has an RDMA
        // device, and writes it only for runs over a real fabric.
        const QString fabric = valueText(transportOptions.value(QLatin1String("fabric")));
        if (!caps.synOption.name.isEmpty() && !fabric.isEmpty() && fabric != QLatin1String("sim")) {
            facts.insert(QStringLiteral("syn_option"), caps.synOption.available
                                                           ? QStringLiteral("on")
                                                           : QStringLiteral("off: %1").arg(caps.synOption.reason));
        }
    }
    return facts;
}

void addWireFacts(const QJsonObject& wire, const QJsonObject& transportOptions, db::HostFacts& facts) {
    // VM lab hosts under TCG: every figure is emulated, and every table says so.
    if (facts.value(QStringLiteral("virtualization")) == QLatin1String("qemu-tcg"))
        facts.insert(QStringLiteral("wire.hosts"), QStringLiteral("VM lab hosts under QEMU TCG: emulated timings"));
    else if (facts.value(QStringLiteral("virtualization")) == QLatin1String("qemu-kvm"))
        facts.insert(QStringLiteral("wire.hosts"), QStringLiteral("VM lab hosts under QEMU KVM"));
    if (wire.isEmpty()) {
        const QString fabric = valueText(transportOptions.value(QLatin1String("fabric")));
        const bool sim = fabric.isEmpty() || fabric == QLatin1String("sim");
        facts.insert(QStringLiteral("wire.tcp_path"), QStringLiteral("the network between the agents' hosts"));
        facts.insert(QStringLiteral("wire.tcp_rate"), QStringLiteral("not shaped by smclab"));
        if (!sim) {
            // A real fabric has no link model: the hosts' RDMA devices are the wire.
            facts.insert(QStringLiteral("wire"),
                         QStringLiteral("SMC over the %1 fabric (the hosts' RDMA devices); TCP "
                                        "over the network between the agents' hosts, not shaped "
                                        "by smclab")
                             .arg(fabric));
            return;
        }
        const QString link = valueText(transportOptions.value(QLatin1String("link")));
        facts.insert(QStringLiteral("wire.model"), link.isEmpty() ? QStringLiteral("ideal") : link);
        facts.insert(QStringLiteral("wire"),
                     QStringLiteral("SMC over the sim link model %1; TCP over the network between "
                                    "the agents' hosts, not shaped by smclab")
                         .arg(facts.value(QStringLiteral("wire.model"))));
        return;
    }
    for (auto it = wire.begin(); it != wire.end(); ++it) {
        const QString key =
            it.key() == QLatin1String("note") ? QStringLiteral("wire") : QStringLiteral("wire.") + it.key();
        facts.insert(key, valueText(it.value()));
    }
}

QMap<QString, double> resultMetrics(const QJsonObject& summary) {
    QMap<QString, double> metrics;
    addNumbers(summary, QString(), metrics);
    if (metrics.contains(QStringLiteral("requests_per_sec")))
        metrics.insert(QStringLiteral("rps"), metrics.value(QStringLiteral("requests_per_sec")));
    const QJsonArray tests = summary.value(QLatin1String("tests")).toArray();
    for (const QJsonValue& entry : tests) {
        const QJsonObject test = entry.toObject();
        QString name = test.value(QLatin1String("test")).toString();
        if (name.isEmpty()) name = test.value(QLatin1String("name")).toString();
        if (tests.size() == 1) addNumbers(test, QString(), metrics);
        if (!name.isEmpty()) addNumbers(test, name.toLower() + QLatin1Char('_'), metrics);
    }
    return metrics;
}

QList<db::Sample> sampleSeries(const QList<protocol::Samples>& client, const QList<protocol::Samples>& server) {
    QList<db::Sample> out;
    for (const protocol::Samples& s : client) {
        out.append({s.tMs, QStringLiteral("throughput_mbps"), s.throughputBps / 8e6});
        out.append({s.tMs, QStringLiteral("ops_per_sec"), s.opsPerSec});
        if (s.latency.present) {
            out.append({s.tMs, QStringLiteral("latency_mean_us"), s.latency.meanUs});
            out.append({s.tMs, QStringLiteral("latency_p50_us"), s.latency.p50Us});
            out.append({s.tMs, QStringLiteral("latency_p99_us"), s.latency.p99Us});
        }
        out.append({s.tMs, QStringLiteral("cpu_client_pct"), s.cpuUserPercent + s.cpuSystemPercent});
    }
    for (const protocol::Samples& s : server) {
        out.append({s.tMs, QStringLiteral("server_throughput_mbps"), s.throughputBps / 8e6});
        out.append({s.tMs, QStringLiteral("cpu_server_pct"), s.cpuUserPercent + s.cpuSystemPercent});
    }
    return out;
}

db::RunRecord buildRunRecord(const RecordInputs& in, const CellOutcome& outcome) {
    const CampaignSpec& spec = *in.spec;
    const ColumnSpec& column = spec.columns.at(static_cast<size_t>(in.cell.columnIndex));
    db::RunRecord record;
    record.campaignId = in.campaignId;
    record.cell = toRunCell(spec, in.cell);
    record.clientAgentId = in.clientAgentId;
    record.serverAgentId = in.serverAgentId;
    record.startedAt = outcome.startedAt;
    record.finishedAt = outcome.finishedAt;
    record.clientFacts = in.clientFacts;
    record.serverFacts = in.serverFacts;
    addHostStateFacts(record.clientFacts, outcome.client.hostState);
    addHostStateFacts(record.serverFacts, outcome.server.hostState);
    const bool sameHost = !in.clientFacts.value(QStringLiteral("host")).isEmpty() &&
                          in.clientFacts.value(QStringLiteral("host")) == in.serverFacts.value(QStringLiteral("host"));
    addHostLoadFacts(record.clientFacts,
                     judgeHostLoad(outcome.client.hostState, outcome.server.hostState, sameHost, spec.quietHost));

    // The snapshot the agents report at the end of the run (server side
    // first, the client's over it), with live-changed settings put back to
    // the value the cell started with: the record says what the run was
    // configured as; setting_changes say what changed when.
    QJsonObject snapshot = outcome.server.settings;
    for (auto it = outcome.client.settings.begin(); it != outcome.client.settings.end(); ++it)
        snapshot.insert(it.key(), it.value());
    for (auto it = column.settings.begin(); it != column.settings.end(); ++it) snapshot.insert(it.key(), it.value());
    for (auto it = snapshot.begin(); it != snapshot.end(); ++it)
        record.settings.insert(it.key(), valueText(it.value()));
    record.settings.insert(QStringLiteral("transport"), column.transport);
    record.settings.insert(QStringLiteral("client_transport"), column.effectiveClientTransport());

    // What each SMC end negotiated, beside which implementation it was (ends).
    for (const auto& [transport, result, facts] :
         {std::tuple{column.transport, &outcome.server, &record.serverFacts},
          std::tuple{column.effectiveClientTransport(), &outcome.client, &record.clientFacts}}) {
        const QString text = negotiatedText(transport, result->counters, result->settings);
        if (!text.isEmpty()) facts->insert(QStringLiteral("smc.negotiated"), text);
    }

    record.results = resultMetrics(outcome.client.summary);
    addToolRecord(outcome.client.summary, outcome.server.summary, record);
    if (!outcome.client.histogram.isEmpty()) {
        record.histograms.append({QStringLiteral("latency_us"), QStringLiteral("smclab-histogram-json-v1"),
                                  QJsonDocument(outcome.client.histogram).toJson(QJsonDocument::Compact)});
        // Workloads whose summary has no percentiles (http, as wrk prints them
        // only with --latency) still get them as results, from the histogram.
        for (const char* p : {"p50", "p90", "p99", "p999"}) {
            const QString metric = QLatin1String(p) + QStringLiteral("_us");
            const QJsonValue v = outcome.client.histogram.value(QLatin1String(p));
            if (!record.results.contains(metric) && v.isDouble()) record.results.insert(metric, v.toDouble());
        }
    }
    record.samples = sampleSeries(outcome.clientSamples, outcome.serverSamples);
    for (auto it = outcome.client.counters.begin(); it != outcome.client.counters.end(); ++it) {
        if (it.value().isDouble())
            record.counters.append({smcr::Side::client, it.key(), static_cast<qint64>(it.value().toDouble())});
    }
    for (auto it = outcome.server.counters.begin(); it != outcome.server.counters.end(); ++it) {
        if (it.value().isDouble())
            record.counters.append({smcr::Side::server, it.key(), static_cast<qint64>(it.value().toDouble())});
    }
    for (const protocol::SettingsApplied& change : outcome.settingChanges) {
        for (auto it = change.applied.begin(); it != change.applied.end(); ++it)
            record.settingChanges.append({change.atMs, it.key(), valueText(it.value())});
    }
    return record;
}

namespace {

QJsonObject lastCounters(const QList<protocol::Samples>& samples) {
    for (auto it = samples.crbegin(); it != samples.crend(); ++it) {
        if (!it->counters.isEmpty()) return it->counters;
    }
    return {};
}

}  // namespace

bool outcomeHasData(const CellOutcome& outcome) {
    return !outcome.clientSamples.isEmpty() || !outcome.serverSamples.isEmpty() || !outcome.client.counters.isEmpty() ||
           !outcome.server.counters.isEmpty();
}

db::RunRecord buildFailedRunRecord(const RecordInputs& inputs, const CellOutcome& outcome) {
    CellOutcome seen = outcome;
    if (seen.client.counters.isEmpty()) seen.client.counters = lastCounters(outcome.clientSamples);
    if (seen.server.counters.isEmpty()) seen.server.counters = lastCounters(outcome.serverSamples);
    db::RunRecord record = buildRunRecord(inputs, seen);
    record.results.clear();
    record.histograms.clear();
    return record;
}

}  // namespace smclab::orchestrator
