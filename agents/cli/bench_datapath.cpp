#include "bench_datapath.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include <sys/utsname.h>

#include <QDateTime>
#include <QSaveFile>

#include "command.h"
#include "datapath_columns.h"
#include "datapath_shapes.h"
#include "orchestrator/datapath_columns.h"
#include "smclab/db/result_store.h"
#include "smclab/report/comparison_query.h"
#include "smclab/report/format_text.h"
#include "stream_campaign.h"
#include "workload.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench stream";

// Counter tables (--counters): what each optimisation changes, per 1000
// application messages, client and server engines summed.
struct CounterTable {
    const char* counter;
    const char* title;
};
const CounterTable kCounterTables[] = {
    {"smcr.cdc_sent", "CDC messages sent per 1000 messages (tcp_bw)"},
    {"smcr.rdma_writes", "RDMA writes per 1000 messages (tcp_bw)"},
    {"smcr.autocork_pushes", "Autocork pushes per 1000 messages (tcp_bw)"},
    {"smcr.window_updates", "Window-update CDCs per 1000 messages (tcp_bw)"},
    {"smcr.buf_full_peer", "Peer-RMB-full events per 1000 messages (tcp_bw)"},
    {kCqWakeupsCounter, "CQ wake-ups per 1000 messages (tcp_bw)"},
    {"smcr.cq_polls", "CQ polls per 1000 messages (tcp_bw)"},
    {kCompletionPushesCounter, "Completion-context pushes per 1000 messages (tcp_bw)"},
    {"smcr.push_deferred", "Pushes deferred to the owner per 1000 messages (tcp_bw)"},
};

SettingList columnSettings(const DatapathColumn& column, const DatapathOptions& options) {
    SettingList s = {{"lab.link", options.link}};
    s.insert(s.end(), column.settings.begin(), column.settings.end());
    s.insert(s.end(), options.extraSettings.begin(), options.extraSettings.end());
    return s;
}

report::ComparisonTable counterTable(const DatapathRun& run, const CounterTable& spec) {
    report::ComparisonTable t;
    t.title = QString::fromLatin1(spec.title);
    t.metric = QString::fromLatin1(spec.counter);
    t.lowerIsBetter = true;
    t.workload = QStringLiteral("tcp_bw");
    for (const DatapathColumn& c : run.columns) t.columns << QString::fromStdString(c.label);
    for (size_t i = 0; i < run.sizes.size(); ++i) {
        report::Row row;
        row.msgSize = static_cast<qint64>(run.sizes[i]);
        for (const StreamResult& r : run.bw[i]) {
            report::Cell cell;
            const double v = r.ok ? countersPerMessage(r, spec.counter) : -1;
            if (v >= 0) {
                cell.value = v * 1000;  // three decimals would hide small per-message rates
                cell.repetitions = 1;
            }
            row.cells.append(cell);
        }
        t.rows.append(row);
    }
    return t;
}

bool anyColumnHas(const DatapathRun& run, const char* counter) {
    for (const auto& row : run.bw) {
        for (const StreamResult& r : row) {
            if (r.clientCounters.count(counter) > 0 || r.serverCounters.count(counter) > 0) return true;
        }
    }
    return false;
}

// How the run was made, in the spirit of the cover letter's "Test
// environment notes": the waiting mode of the SMC columns above all, since
// it decides what the CQ and push changes can show.
std::string notesText(const DatapathRun& run, const DatapathOptions& options, const StreamCampaignRun& ran) {
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
    for (const DatapathColumn& c : run.columns) {
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

std::string shapesText(const std::vector<ShapeResult>& shapes, const DatapathRun& run) {
    std::string out = "==== Shapes ====\n";
    for (const ShapeResult& s : shapes) {
        char verdict[16];  // the longest is "INCONCLUSIVE"
        std::snprintf(verdict, sizeof verdict, "%-4s", shapeVerdictName(s.verdict));
        out += std::string(verdict) + "  " + s.title + ": " + s.measured;
        if (s.link != run.link) out += "  [stated for --link " + s.link + "]";
        out += '\n';
    }
    return out;
}

report::ReportDocument makeDocument(const DatapathRun& run, const DatapathOptions& options,
                                    const QList<report::ComparisonTable>& tables,
                                    const std::vector<ShapeResult>& shapes, const StreamCampaignRun& ran) {
    report::ReportDocument doc;
    doc.title = QStringLiteral("smclab bench stream --preset datapath");
    doc.generatedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    doc.tables = tables;
    report::DetailTable shapeTable;
    shapeTable.title = QStringLiteral("Shapes");
    shapeTable.columns = {QStringLiteral("verdict"), QStringLiteral("measured"), QStringLiteral("ratio"),
                          QStringLiteral("stated for link")};
    for (const ShapeResult& s : shapes) {
        shapeTable.rows.append({QString::fromStdString(s.key) + QStringLiteral(": ") + QString::fromStdString(s.title),
                                {QString::fromLatin1(shapeVerdictName(s.verdict)), QString::fromStdString(s.measured),
                                 QString::number(s.ratio, 'g', 17), QString::fromStdString(s.link)}});
    }
    doc.details.append(shapeTable);
    report::DetailTable settings;
    settings.title = QStringLiteral("Settings");
    for (const DatapathColumn& c : run.columns) settings.columns << QString::fromStdString(c.label);
    std::vector<std::string> names;
    for (const DatapathColumn& c : run.columns) {
        for (const auto& [name, value] : columnSettings(c, options)) {
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    }
    for (const std::string& name : names) {
        report::DetailRow row;
        row.name = QString::fromStdString(name);
        for (const DatapathColumn& c : run.columns) {
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
        {QStringLiteral("link"), QString::fromStdString(run.link)},
        {QStringLiteral("seconds per size"), QString::number(static_cast<double>(options.durationMs) / 1000.0)},
        {QStringLiteral("host"), QString::fromLocal8Bit(u.nodename)},
        {QStringLiteral("kernel"), QString::fromLocal8Bit(u.release)},
        {QStringLiteral("pinned"),
         options.pin ? QStringLiteral("client agent CPU 0, server agent CPU 1") : QStringLiteral("no")}};
    doc.provenance.append(prov);
    return doc;
}

// The campaign of the chosen columns, and the run that will hold its
// results; false (after saying so) on an unknown column.
bool planCampaign(const DatapathOptions& options, StreamCampaign* campaign, DatapathRun* run) {
    campaign->name = QStringLiteral("bench stream datapath");
    campaign->preset = QStringLiteral("datapath");
    campaign->tests = options.tests;
    campaign->sizes = options.sizes;
    campaign->durationMs = options.durationMs;
    campaign->repetitions = options.repetitions;
    campaign->link = QString::fromStdString(options.link);
    campaign->pin = options.pin;
    run->link = options.link;
    run->sizes = options.sizes;
    for (const std::string& key : options.columnKeys) {
        auto spec = findDatapathColumn(key);
        if (!spec) {
            std::fprintf(stderr, "%s: unknown column '%s'\n", kWho, key.c_str());
            return false;
        }
        run->columns.push_back(*spec);
        campaign->columns.push_back(
            {QString::fromStdString(spec->label),
             QString::fromStdString(spec->transport),
             {},
             spec->transport == "smcr" ? settingsObject(columnSettings(*spec, options)) : QJsonObject{},
             {},
             {}});
    }
    campaign->description =
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
    StreamCampaign campaign;
    DatapathRun run;
    if (!planCampaign(options, &campaign, &run)) return kExitUsage;
    auto store = openBenchStore(options.dbPath, kWho);
    if (!store) return kExitFailure;
    auto ran = runStreamCampaign(campaign, *store);
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
    if (options.counterTables && !run.bw.empty()) {
        for (const CounterTable& spec : kCounterTables) {
            if (anyColumnHas(run, spec.counter)) tables.append(counterTable(run, spec));
        }
    }
    const std::vector<ShapeResult> shapes = evaluateShapes(run);
    const report::ReportDocument doc = makeDocument(run, options, tables, shapes, *ran);
    if (!options.jsonOutPath.empty() && !writeJsonOut(options.jsonOutPath, doc)) allOk = false;
    QString out;
    if (options.format == report::Format::text) {
        out = report::formatTextWithConfidence(tables) +
              QString::fromStdString(notesText(run, options, *ran) + shapesText(shapes, run));
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
