#include "bench_datapath.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include <sys/utsname.h>

#include <QDateTime>
#include <QSaveFile>

#include "command.h"
#include "datapath_columns.h"
#include "orchestrator/datapath_columns.h"
#include "orchestrator/datapath_verdicts.h"
#include "orchestrator/preset_params.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/datapath_shapes.h"
#include "smclab/report/datapath_tables.h"
#include "smclab/report/format_text.h"
#include "stream_campaign.h"
#include "workload.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench stream";

SettingList columnSettings(const DatapathColumn& column, const DatapathOptions& options) {
    SettingList s = {{"lab.link", options.link}};
    s.insert(s.end(), column.settings.begin(), column.settings.end());
    s.insert(s.end(), options.extraSettings.begin(), options.extraSettings.end());
    return s;
}

// How the run was made, in the spirit of the cover letter's "Test
// environment notes": the waiting mode of the SMC columns above all, since
// it decides what the CQ and push changes can show.
std::string notesText(const std::vector<DatapathColumn>& columns, const DatapathOptions& options,
                      const StreamCampaignRun& ran) {
    std::string out = "==== Notes ====\n";
    char line[512];
    std::snprintf(line, sizeof line,
                  "campaign %lld in %s: two local agents (%s), %.3g s per cell, %d repetition%s in interleaved "
                  "rounds\n",
                  static_cast<long long>(ran.campaignId), qPrintable(ran.storePath),
                  options.pin ? "client on CPU 0, server on CPU 1" : "not pinned",
                  static_cast<double>(options.durationMs) / 1000.0, options.repetitions,
                  options.repetitions == 1 ? "" : "s");
    out += line;
    out += "wire: " + ran.wireNote.toStdString() + "\n";
    std::vector<std::string> polls;
    for (const DatapathColumn& c : columns) {
        if (c.transport != "smcr") continue;
        std::string value = "engine default";
        for (const auto& [name, v] : columnSettings(c, options)) {
            if (name == "lab.busy_poll_us") value = v;
        }
        if (std::find(polls.begin(), polls.end(), value) == polls.end()) polls.push_back(value);
    }
    if (polls.size() == 1 && polls.front() == "0") {
        out +=
            "SMC columns: lab.busy_poll_us 0, interrupt-driven waiting as in the kernel (arm the CQs, sleep on "
            "the completion channel; no busy polling)\n";
    } else if (!polls.empty()) {
        std::string list;
        for (const std::string& p : polls) list += (list.empty() ? "" : ", ") + p;
        out += "SMC columns: lab.busy_poll_us " + list + " (the kernel never busy-polls; 0 is its behaviour)\n";
    }
    out +=
        "SMC-NoCork is the pre-2022 kernel: every send pushes (a send that finds all CDC slots busy waits for "
        "one, so one CDC per send), window limit min, CQ armed after the first poll, pushes in completion "
        "context\n";
    return out;
}

report::ReportDocument makeDocument(const std::vector<DatapathColumn>& columns, const DatapathOptions& options,
                                    const QList<report::ComparisonTable>& tables,
                                    const std::vector<report::ShapeResult>& shapes, const StreamCampaignRun& ran) {
    report::ReportDocument doc;
    doc.title = QStringLiteral("smclab bench stream --preset datapath");
    doc.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    doc.tables = tables;
    doc.details.append(report::shapesTable(shapes));
    report::DetailTable settings;
    settings.title = QStringLiteral("Settings");
    for (const DatapathColumn& c : columns) settings.columns << QString::fromStdString(c.label);
    std::vector<std::string> names;
    for (const DatapathColumn& c : columns) {
        for (const auto& [name, value] : columnSettings(c, options)) {
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    }
    for (const std::string& name : names) {
        report::DetailRow row;
        row.name = QString::fromStdString(name);
        for (const DatapathColumn& c : columns) {
            QString value;
            if (c.transport == "smcr") {
                for (const auto& [n, v] : columnSettings(c, options)) {
                    if (n == name) value = QString::fromStdString(v);
                }
            }
            row.values << value;
        }
        settings.rows.append(row);
    }
    doc.details.append(settings);
    report::ProvenanceSection prov;
    prov.title = QStringLiteral("Run");
    utsname u{};
    ::uname(&u);
    prov.entries = {
        {QStringLiteral("campaign"), QString::number(ran.campaignId)},
        {QStringLiteral("wire"), ran.wireNote},
        {QStringLiteral("repetitions"), QString::number(options.repetitions)},
        {QStringLiteral("link"), QString::fromStdString(options.link)},
        {QStringLiteral("seconds per size"), QString::number(static_cast<double>(options.durationMs) / 1000.0)},
        {QStringLiteral("host"), QString::fromLocal8Bit(u.nodename)},
        {QStringLiteral("kernel"), QString::fromLocal8Bit(u.release)},
        {QStringLiteral("pinned"),
         options.pin ? QStringLiteral("client agent CPU 0, server agent CPU 1") : QStringLiteral("no")}};
    doc.provenance.append(prov);
    return doc;
}

// The datapath preset with the bench's columns, tests, sizes, time and
// repetitions, and the run that will hold its results; false (after saying
// so) on an unknown column.
bool planCampaign(const DatapathOptions& options, orchestrator::PresetParams* params,
                  std::vector<DatapathColumn>* columns, report::DatapathRun* run) {
    params->name = QStringLiteral("bench stream datapath");
    params->durationMs = static_cast<int>(options.durationMs);
    params->repetitions = options.repetitions;
    params->sizes = options.sizes;
    params->link = QString::fromStdString(options.link);
    for (report::StreamTest test : options.tests) params->workloads << QLatin1String(report::streamTestName(test));
    SettingList smc = {{"lab.link", options.link}};
    smc.insert(smc.end(), options.extraSettings.begin(), options.extraSettings.end());
    params->smcSettings = settingsObject(smc);
    run->link = options.link;
    run->sizes = options.sizes;
    run->known = orchestrator::datapathShapeColumns();
    for (const std::string& key : options.columnKeys) {
        auto column = findDatapathColumn(key);
        if (!column) {
            std::fprintf(stderr, "%s: unknown column '%s'\n", kWho, key.c_str());
            return false;
        }
        columns->push_back(*column);
        params->columns << QString::fromStdString(column->key);
        for (const report::ShapeColumn& known : run->known) {
            if (known.key == column->key) run->columns.push_back(known);
        }
    }
    params->description =
        QStringLiteral(
            "smclab bench stream --preset datapath: %1 sizes %2..%3 B, %4 s per cell, %5 repetitions in "
            "interleaved rounds, two local agents; %6")
            .arg(options.sizes.size())
            .arg(options.sizes.front())
            .arg(options.sizes.back())
            .arg(static_cast<double>(options.durationMs) / 1000.0)
            .arg(options.repetitions)
            .arg(QLatin1String(orchestrator::kDatapathWaitingNote));
    return true;
}

// --json-out: the whole document; false (after saying why) when it cannot be written.
bool writeJsonOut(const std::string& path, const report::ReportDocument& doc) {
    QSaveFile file(QString::fromStdString(path));
    const QByteArray json = report::formatJson(doc).toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
        std::fprintf(stderr, "%s: --json-out %s: %s\n", kWho, path.c_str(), qPrintable(file.errorString()));
        return false;
    }
    return true;
}

}  // namespace

int runDatapathBench(const DatapathOptions& options) {
    orchestrator::PresetParams params;
    std::vector<DatapathColumn> columns;
    report::DatapathRun run;
    if (!planCampaign(options, &params, &columns, &run)) return kExitUsage;
    auto spec = orchestrator::presetWithParams(QLatin1String(orchestrator::kDatapathPreset), params);
    if (!spec) {
        std::fprintf(stderr, "%s: %s\n", kWho, spec.error().message.c_str());
        return kExitUsage;
    }
    auto store = openBenchStore(options.dbPath, kWho);
    if (!store) return kExitFailure;
    auto ran = runStreamCampaign(*spec, *store, {kWho, options.pin});
    if (!ran) {
        std::fprintf(stderr, "%s: %s\n", kWho, ran.error().message.c_str());
        return kExitFailure;
    }
    run.bw = std::move(ran->grid.bw);
    run.lat = std::move(ran->grid.lat);
    run.bwSamples = std::move(ran->grid.bwSamples);
    run.latSamples = std::move(ran->grid.latSamples);
    bool allOk = ran->console.failedCells == 0;
    printColumnFailures(ran->console, kWho);

    // The cover-letter tables come from the store, as `smclab report` builds them.
    auto stored = db::comparisonTables(*store, ran->campaignId, workloads::headlineMetricsByWorkload());
    if (!stored) {
        std::fprintf(stderr, "%s: %s\n", kWho, stored.error().message.c_str());
        return kExitFailure;
    }
    QList<report::ComparisonTable> tables = *stored;
    if (options.counterTables) tables.append(report::perMessageCounterTables(run));
    const std::vector<report::ShapeResult> shapes = report::evaluateShapes(run);
    const report::ReportDocument doc = makeDocument(columns, options, tables, shapes, *ran);
    if (!options.jsonOutPath.empty() && !writeJsonOut(options.jsonOutPath, doc)) allOk = false;
    QString out;
    if (options.format == report::Format::text) {
        out = report::formatTextWithConfidence(tables) + QString::fromStdString(notesText(columns, options, *ran)) +
              report::shapesText(shapes, run.link);
    } else if (options.format == report::Format::csv) {
        out = report::formatCsv(tables);
    } else {
        out = report::render(doc, options.format);
    }
    std::fputs(out.toUtf8().constData(), stdout);
    std::fflush(stdout);
    return allOk ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
