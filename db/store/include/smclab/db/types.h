// Value types of the results store (see result_store.h for the schema).
// Plain structs: the orchestrator fills them, the store writes them in one
// transaction, the GUI and the report read them back.
#pragma once

#include <optional>

#include <smcr/side.h>

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace smclab::db {

enum class CampaignStatus { invalid = 0, planned, running, paused, done, failed };
// planned: created, no result yet; running: picked up by a runner (a crash
// leaves it so, and resume treats it as not done); done/failed: final.
enum class RunStatus { invalid = 0, planned, running, done, failed };

QString statusName(CampaignStatus status);
QString statusName(RunStatus status);
CampaignStatus campaignStatusFromString(const QString& text);  // invalid if unknown
RunStatus runStatusFromString(const QString& text);

// One cell of a campaign's matrix: what a single run measures. Unique per
// campaign; the orchestrator plans the cells, runs them, and the store
// answers "which cells are not done yet" for resume.
struct RunCell {
    QString workload;    // "tcp_bw", "tcp_lat", "http", "kv"
    QString transport;   // "tcp", "smcr", "ksmc"
    QString column;      // the settings variant's label: "Origin SMC", "TCP"
    qint64 msgSize = 0;  // bytes (file size for http, value size for kv)
    int repetition = 0;  // 0-based

    bool operator==(const RunCell&) const = default;
};

struct NewCampaign {
    QString name;
    QString preset;        // "datapath", ... or empty for a campaign file
    QJsonObject spec;      // the campaign as the user wrote it (campaign file JSON)
    QString notes;         // free text, like the letters' "Test environment notes"
    QList<RunCell> cells;  // the expanded matrix, in run order; column order = first appearance
};

struct Campaign {
    qint64 id = 0;
    QString name;
    QString preset;
    QJsonObject spec;
    QString notes;
    CampaignStatus status = CampaignStatus::invalid;
    QDateTime createdAt;   // UTC
    QDateTime finishedAt;  // UTC; invalid until done/failed
    int runsTotal = 0;
    int runsDone = 0;
    int runsFailed = 0;
};

struct Run {
    qint64 id = 0;
    qint64 campaignId = 0;
    RunCell cell;
    std::optional<qint64> clientAgentId;
    std::optional<qint64> serverAgentId;
    RunStatus status = RunStatus::invalid;
    QDateTime startedAt;
    QDateTime finishedAt;
    QString error;  // failed runs: why
};

struct Histogram {
    QString metric;    // "latency_us"
    QString encoding;  // how `data` is laid out, e.g. "smclab-hdr-v1" (owned by the workload)
    QByteArray data;

    bool operator==(const Histogram&) const = default;
};

struct Sample {
    qint64 tMs = 0;  // since the run's start
    QString metric;  // "bw_mbps", "latency_us", "cpu_client_pct", ...
    double value = 0.0;

    bool operator==(const Sample&) const = default;
};

struct Counter {
    smcr::Side side = smcr::Side::client;
    QString name;  // engine counter: "cdc_msgs_sent", "rdma_writes", "corked_sends", ...
    qint64 value = 0;

    bool operator==(const Counter&) const = default;
};

// A live toggle applied during a run (the markers on the plots).
struct SettingChange {
    qint64 tMs = 0;  // when the agent applied it, since the run's start
    QString name;    // kernel sysctl name: "autocorking_size"
    QString value;

    bool operator==(const SettingChange&) const = default;
};

// Facts about one end of a run. Well-known keys: host, cpu_model, cpu_count,
// kernel, fabric, link_model, rdma_device, ksmc, agent_version; anything
// else the agent reports may be added.
using HostFacts = QMap<QString, QString>;

// Everything one finished run produced; recordRun() writes it in one
// transaction.
struct RunRecord {
    qint64 campaignId = 0;
    RunCell cell;
    std::optional<qint64> clientAgentId;
    std::optional<qint64> serverAgentId;
    QDateTime startedAt;
    QDateTime finishedAt;
    QMap<QString, QString> settings;  // full snapshot: every setting's name -> value at start
    HostFacts clientFacts;
    HostFacts serverFacts;
    QMap<QString, double> results;  // metric -> value: bw_mbps, latency_us, msg_rate, p50_us, p99_us, rps, ...
    QList<Histogram> histograms;
    QList<Sample> samples;
    QList<Counter> counters;
    QList<SettingChange> settingChanges;
};

// A lab machine (by name) and an agent on it (by address).
struct Host {
    qint64 id = 0;
    QString name;
    HostFacts facts;
    QDateTime lastSeen;
};

struct Agent {
    qint64 id = 0;
    std::optional<qint64> hostId;
    QString address;  // "10.0.0.1:7000"
    QString version;
    QJsonObject capabilities;
    QDateTime lastSeen;
};

}  // namespace smclab::db
