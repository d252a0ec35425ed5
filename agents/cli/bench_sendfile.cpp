// smclab bench sendfile: the request pattern of "net/smc: Improvements for
// TCP_CORK and sendfile()" (2022): an nginx-style server answering each
// request with TCP_CORK on, the header, sendfile of the file, TCP_CORK off,
// to a wrk-style closed-loop client, in requests/s. The `sendfile-cork`
// campaign preset (the agents' http workload; columns sendfile off, sendfile
// with the old cork timer, sendfile with the fix) plus kernel TCP with the
// same pattern for reference, on the demo's local lab, stored like any
// campaign (local_campaign.h).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <smcr/fabric_sim.h>

#include <QDateTime>
#include <QJsonObject>

#include "args.h"
#include "bench_commands.h"
#include "bench_run_options.h"
#include "command.h"
#include "orchestrator/preset_params.h"
#include "orchestrator/run_record.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"
#include "smclab/report/stored_counters.h"
#include "stream_campaign.h"
#include "workload.h"

namespace smclab::cli {

namespace {

using namespace smclab::orchestrator;

constexpr const char* kWho = "smclab bench sendfile";
constexpr uint64_t kMaxFileBytes = 16u << 20;

const char* const kPreset = "sendfile-cork";

// The preset's column keys (its own and the TCP reference), "copy, timer, sendfile, tcp".
std::string columnKeys() {
    std::string out;
    for (const PresetColumnChoice& c : presetColumnChoices(QLatin1String(kPreset)))
        out += (out.empty() ? "" : ", ") + c.key.toStdString();
    return out;
}

struct Options {
    std::optional<std::string> link;  // default: the preset's
    int connections = 100;
    std::vector<uint64_t> fileSizes = {4096};
    int corkTimerMs = 250;
    QStringList columns;  // keys; empty: all of them
    bool counters = false;
    report::Format format = report::Format::text;
    BenchRunOptions run;
};

void printHelp() {
    std::printf(
        "usage: smclab bench sendfile [--link ideal|cx4-25g|cx4lx-vf] [-t SECONDS] [-c CONNECTIONS]\n"
        "                             [--file-size SIZE[,SIZE..]] [--cork-timer-ms MS]\n"
        "                             [--columns LIST] [--counters] [--format text|csv|json|markdown|html]\n"
        "                             [--reps N] [--no-pin] [--db PATH]\n"
        "\n"
        "The TCP_CORK + sendfile pattern of nginx (\"net/smc: Improvements for TCP_CORK\n"
        "and sendfile()\"): per request the server corks, writes the header, sendfile()s\n"
        "the file and uncorks; a wrk-style closed-loop client (2 threads) counts\n"
        "requests/s. The `sendfile-cork` campaign preset between two local agents (the\n"
        "local lab of `smclab demo`), stored in the results database; printed as the\n"
        "cover-letter table, percentages against the first column.\n"
        "\n"
        "options:\n"
        "  -t SECONDS        measured time per cell (default 5; 100ms..1h)\n"
        "  -c N              connections (default 100, as the letter's wrk -c 100)\n"
        "  --file-size LIST  file sizes (default 4K)\n"
        "  --cork-timer-ms N lab.cork_timer_ms of the timer column (default 250)\n"
        "  --link NAME       sim link model (default: the preset's, cx4-25g)\n"
        "  --columns LIST    columns by key, first = baseline (default copy,timer,sendfile,tcp)\n"
        "  --counters        also server CDC messages and RDMA writes per request\n"
        "  --format F        text (default), csv, json, markdown or html\n"
        "  --reps N          repetitions in interleaved rounds (default 1)\n"
        "  --no-pin          do not pin the agents to CPUs\n"
        "  --db PATH         results database (default: $SMCLAB_DB or the default file)\n"
        "columns:\n");
    for (const PresetColumnChoice& c : presetColumnChoices(QLatin1String(kPreset)))
        std::printf("  %-9s %s\n", qPrintable(c.key), qPrintable(c.summary));
}

PresetParams benchParams(const Options& o) {
    PresetParams params;
    params.name = QStringLiteral("bench sendfile");
    applyBenchRunOptions(o.run, &params);
    params.durationMs = params.durationMs.value_or(5000);
    params.repetitions = params.repetitions.value_or(1);
    params.sizes = o.fileSizes;
    params.workloadParams = {{QStringLiteral("connections"), o.connections},
                             {QStringLiteral("threads"), std::min(2, o.connections)}};
    if (o.link) params.link = QString::fromStdString(*o.link);
    params.columns = o.columns;
    if (params.columns.isEmpty()) {
        for (const PresetColumnChoice& c : presetColumnChoices(QLatin1String(kPreset))) params.columns << c.key;
    }
    params.columnSettings.insert(QStringLiteral("timer"), {{QStringLiteral("lab.cork_timer_ms"), o.corkTimerMs}});
    params.description = QStringLiteral(
                             "smclab bench sendfile: the sendfile-cork preset, %1 connections, %2 s per cell, "
                             "%3 repetition(s), cork timer %4 ms")
                             .arg(o.connections)
                             .arg(static_cast<double>(*params.durationMs) / 1000.0)
                             .arg(*params.repetitions)
                             .arg(o.corkTimerMs);
    return params;
}

// The exit status when the command line says to stop here (help, a usage
// error); else `o` holds the options and `columnNames` the --columns words.
std::optional<int> parseOptions(const Args& args, Options* o, std::vector<std::string>* columnNames) {
    auto takeOwn = [o, columnNames](ArgCursor& cursor) {
        if (auto c = cursor.takeValue("-c")) {
            auto n = parseInt(*c);
            if (!n || *n < 1 || *n > 10000)
                cursor.setError("-c needs 1..10000 connections");
            else
                o->connections = static_cast<int>(*n);
        } else if (auto f = cursor.takeValue("--file-size")) {
            o->fileSizes.clear();
            for (const std::string& word : splitList(*f)) {
                auto size = parseSize(word);
                if (!size || *size > kMaxFileBytes) {
                    cursor.setError("--file-size: bad size '" + word + "' (0..16M)");
                    break;
                }
                o->fileSizes.push_back(*size);
            }
        } else if (auto t = cursor.takeValue("--cork-timer-ms")) {
            auto n = parseInt(*t);
            if (!n || *n < 1 || *n > 10000)
                cursor.setError("--cork-timer-ms needs 1..10000");
            else
                o->corkTimerMs = static_cast<int>(*n);
        } else if (auto l = cursor.takeValue("--link")) {
            if (auto model = smcr::fabric::sim::linkPreset(*l); !model)
                cursor.setError("--link: " + model.error().message);
            else
                o->link = *l;
        } else if (auto cols = cursor.takeValue("--columns")) {
            *columnNames = splitList(*cols);
        } else if (auto fmt = cursor.takeValue("--format")) {
            auto parsed = report::parseFormat(QString::fromStdString(*fmt));
            if (!parsed)
                cursor.setError("--format must be text, csv, json, markdown or html");
            else
                o->format = *parsed;
        } else if (cursor.takeFlag("--counters")) {
            o->counters = true;
        } else {
            return false;
        }
        return true;
    };
    return readBenchOptions(args, kWho, printHelp, {.duration = true, .settings = false}, &o->run, takeOwn);
}

// --columns by key (all of them when not given); a usage error's exit status on an unknown one.
std::optional<int> pickColumns(const std::vector<std::string>& columnNames, Options* o) {
    const std::vector<PresetColumnChoice> choices = presetColumnChoices(QLatin1String(kPreset));
    for (const std::string& name : columnNames) {
        const QString key = QString::fromStdString(name);
        if (std::none_of(choices.begin(), choices.end(), [&](const PresetColumnChoice& c) { return c.key == key; }))
            return benchUsage(kWho, "--columns: unknown column '" + name + "' (" + columnKeys() + ")");
        o->columns << key;
    }
    return std::nullopt;
}

// --counters: the server's CDC messages and RDMA writes per request.
QList<report::ComparisonTable> counterTables(db::ResultStore& store, qint64 id, const CampaignSpec& spec) {
    QList<report::ComparisonTable> tables;
    const QString workload = storedWorkloadName(spec, 0);
    for (const auto& [counter, title] : {std::pair{"smcr.cdc_sent", "Server CDC messages per request"},
                                         std::pair{"smcr.rdma_writes", "Server RDMA writes per request"}}) {
        auto table = db::counterPerOpTable(store, id, orchestrator::columnLabels(spec),
                                           {workload, smcr::Side::server, QString::fromLatin1(counter),
                                            QStringLiteral("requests"), QString::fromLatin1(title)});
        if (table) tables.append(*table);
    }
    return tables;
}

}  // namespace

int runBenchSendfile(const Args& args) {
    Options o;
    std::vector<std::string> columnNames;
    if (const auto exitCode = parseOptions(args, &o, &columnNames)) return *exitCode;
    if (o.fileSizes.empty()) return benchUsage(kWho, "--file-size needs at least one size");
    if (const auto exitCode = pickColumns(columnNames, &o)) return *exitCode;

    auto bench = runPresetLocally(kWho, QLatin1String(kPreset), benchParams(o), o.run);
    if (!bench) return kExitFailure;
    db::ResultStore* store = bench->store.get();
    const LocalCampaign* ran = &bench->ran;
    const CampaignSpec& spec = bench->spec;
    const qint64 id = ran->result.campaignId;
    auto document =
        db::campaignReport(*store, id, workloads::headlineMetricsByWorkload(), QDateTime::currentDateTimeUtc());
    if (!document) {
        std::fprintf(stderr, "%s: %s\n", kWho, document.error().message.c_str());
        return kExitFailure;
    }
    const QList<report::ComparisonTable> counters =
        o.counters ? counterTables(*store, id, spec) : QList<report::ComparisonTable>{};
    QString out;
    if (o.format == report::Format::text) {
        out = report::formatTextWithConfidence(document->tables) + report::formatText(counters) +
              QStringLiteral("wire: %1\ncampaign %2 in %3\n").arg(ran->wireNote).arg(id).arg(store->path());
    } else if (o.format == report::Format::csv) {
        out = report::formatCsv(document->tables + counters);
    } else {
        document->tables += counters;
        out = report::render(*document, o.format);
    }
    std::fputs(out.toUtf8().constData(), stdout);
    std::fflush(stdout);
    return ran->result.failedCells == 0 ? kExitOk : kExitRunsFailed;
}

}  // namespace smclab::cli
