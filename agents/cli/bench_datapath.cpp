#include "bench_datapath.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include <QDateTime>
#include <QSaveFile>

#include "bench_progress.h"
#include "command.h"
#include "datapath_columns.h"
#include "datapath_shapes.h"
#include "smclab/report/format_text.h"

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

// One column while the benchmark runs: its server process and the client's engine.
struct LiveColumn {
    DatapathColumn spec;
    std::unique_ptr<ServerProcess> server;
    std::shared_ptr<smcr::Engine> engine;  // smcr only
    std::string error;                     // why the column cannot run
};

SettingList columnSettings(const DatapathColumn& column, const DatapathOptions& options) {
    SettingList s = {{"lab.link", options.link}};
    s.insert(s.end(), column.settings.begin(), column.settings.end());
    s.insert(s.end(), options.extraSettings.begin(), options.extraSettings.end());
    return s;
}

void startColumn(LiveColumn& c, const DatapathOptions& options) {
    std::vector<std::string> args = {"--transport", c.spec.transport};
    if (c.spec.transport == "smcr") {
        const SettingList settings = columnSettings(c.spec, options);
        // The client's engine first: an unknown or bad setting is reported
        // here with the engine's own message, before any process starts.
        c.engine = makeBenchEngine(settings, (std::string(kWho) + ": column " + c.spec.label).c_str(), &c.error);
        if (!c.engine) return;
        const auto words = settingArgs(settings);
        args.insert(args.end(), words.begin(), words.end());
    }
    if (!options.pin) args.push_back("--no-pin");
    c.server = std::make_unique<ServerProcess>();
    if (!c.server->start("stream", args)) {
        c.error = "the server did not start";
        std::fprintf(stderr, "%s: column %s: %s\n", kWho, c.spec.label.c_str(), c.error.c_str());
        c.server.reset();
    }
}

std::string sizeLabel(uint64_t size) {
    if (size >= 1024 && size % 1024 == 0) return std::to_string(size / 1024) + " KiB";
    return std::to_string(size) + " B";
}

std::string outcomeText(StreamTest test, const StreamResult& r) {
    if (!r.ok) return "failed";
    char buf[64];
    if (test == StreamTest::bw) std::snprintf(buf, sizeof buf, "%.3f MB/s", r.bwMBs);
    else std::snprintf(buf, sizeof buf, "%.3f us", r.latMeanUs);
    return buf;
}

report::ComparisonTable makeTable(const DatapathRun& run, StreamTest test) {
    report::ComparisonTable t;
    const bool bw = test == StreamTest::bw;
    const report::MetricInfo info = report::metricInfo(bw ? QStringLiteral("bw_mbps") : QStringLiteral("latency_us"));
    t.title = info.title;
    t.metric = info.metric;
    t.unit = info.unit;
    t.lowerIsBetter = info.lowerIsBetter;
    t.workload = QString::fromLatin1(streamTestName(test));
    for (const DatapathColumn& c : run.columns) t.columns << QString::fromStdString(c.label);
    const auto& results = bw ? run.bw : run.lat;
    for (size_t i = 0; i < run.sizes.size(); ++i) {
        report::Row row;
        row.msgSize = static_cast<qint64>(run.sizes[i]);
        for (const StreamResult& r : results[i]) {
            report::Cell cell;
            if (r.ok) {
                cell.value = bw ? r.bwMBs : r.latMeanUs;
                cell.repetitions = 1;
            }
            row.cells.append(cell);
        }
        t.rows.append(row);
    }
    return t;
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
std::string notesText(const DatapathRun& run, const DatapathOptions& options) {
    std::string out = "==== Notes ====\n";
    char line[256];
    std::snprintf(line, sizeof line, "link %s (sim), %.3g s per size and test, %s\n", run.link.c_str(),
                  static_cast<double>(options.durationMs) / 1000.0,
                  options.pin ? "client pinned to CPU 0, server to CPU 1" : "not pinned");
    out += line;
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
        out += "SMC columns: lab.busy_poll_us 0, interrupt-driven waiting as in the kernel (arm the CQs, sleep on "
               "the completion channel; no busy polling)\n";
    } else if (!polls.empty()) {
        std::string list;
        for (const std::string& p : polls) list += (list.empty() ? "" : ", ") + p;
        out += "SMC columns: lab.busy_poll_us " + list + " (the kernel never busy-polls; 0 is its behaviour)\n";
    }
    out += "SMC-NoCork is the pre-2022 kernel: every send pushes (a send that finds all CDC slots busy waits for "
           "one, so one CDC per send), window limit min, CQ armed after the first poll, pushes in completion "
           "context\n";
    return out;
}

std::string shapesText(const std::vector<ShapeResult>& shapes, const DatapathRun& run) {
    std::string out = "==== Shapes ====\n";
    for (const ShapeResult& s : shapes) {
        char verdict[16];  // "INCONCLUSIVE" (issue 16)
        std::snprintf(verdict, sizeof verdict, "%-4s", shapeVerdictName(s.verdict));
        out += std::string(verdict) + "  " + s.title + ": " + s.measured;
        if (s.link != run.link) out += "  [stated for --link " + s.link + "]";
        out += '\n';
    }
    return out;
}

report::ReportDocument makeDocument(const DatapathRun& run, const DatapathOptions& options,
                                    const QList<report::ComparisonTable>& tables,
                                    const std::vector<ShapeResult>& shapes) {
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
    prov.entries = {{QStringLiteral("link"), QString::fromStdString(run.link)},
                    {QStringLiteral("seconds per size"), QString::number(static_cast<double>(options.durationMs) / 1000.0)},
                    {QStringLiteral("host"), QString::fromLocal8Bit(u.nodename)},
                    {QStringLiteral("kernel"), QString::fromLocal8Bit(u.release)},
                    {QStringLiteral("pinned"), options.pin ? QStringLiteral("client CPU 0, server CPU 1")
                                                           : QStringLiteral("no")}};
    doc.provenance.append(prov);
    return doc;
}

}  // namespace

int runDatapathBench(const DatapathOptions& options) {
    std::vector<LiveColumn> live;
    for (const std::string& key : options.columnKeys) {
        auto spec = findDatapathColumn(key);
        if (!spec) {
            std::fprintf(stderr, "%s: unknown column '%s'\n", kWho, key.c_str());
            return kExitUsage;
        }
        live.push_back({*spec, nullptr, nullptr, {}});
    }
    for (LiveColumn& c : live) startColumn(c, options);
    if (options.pin) pinToCpu(0);

    DatapathRun run;
    run.link = options.link;
    run.sizes = options.sizes;
    for (const LiveColumn& c : live) run.columns.push_back(c.spec);
    const size_t runsPerTest = options.sizes.size() * live.size();
    BenchProgress progress(static_cast<int>(runsPerTest * options.tests.size()), options.durationMs + 50);
    bool allOk = true;
    for (const LiveColumn& c : live) allOk = allOk && c.error.empty();
    for (StreamTest test : options.tests) {
        auto& results = test == StreamTest::bw ? run.bw : run.lat;
        results.assign(options.sizes.size(), std::vector<StreamResult>(live.size()));
        for (size_t i = 0; i < options.sizes.size(); ++i) {
            for (size_t col = 0; col < live.size(); ++col) {
                LiveColumn& c = live[col];
                progress.begin(std::string(streamTestName(test)) + " " + c.spec.label + " " + sizeLabel(options.sizes[i]));
                if (!c.server) {
                    progress.end("skipped (" + c.error + ")");
                    continue;
                }
                StreamResult r;
                if (auto conn = connectBench(c.spec.transport, c.server->port(), c.engine, kWho)) {
                    if (conn->fellBack()) progress.note(std::string(kWho) + ": warning: " + c.spec.label +
                                                        " fell back to TCP");
                    r = runStreamTest(*conn, c.engine.get(), test, static_cast<uint32_t>(options.sizes[i]),
                                      options.durationMs);
                }
                allOk = allOk && r.ok;
                progress.end(outcomeText(test, r));
                results[i][col] = std::move(r);
            }
        }
    }
    progress.finish();

    QList<report::ComparisonTable> tables;
    if (!run.bw.empty()) tables.append(makeTable(run, StreamTest::bw));
    if (!run.lat.empty()) tables.append(makeTable(run, StreamTest::lat));
    if (options.counterTables && !run.bw.empty()) {
        for (const CounterTable& spec : kCounterTables) {
            if (anyColumnHas(run, spec.counter)) tables.append(counterTable(run, spec));
        }
    }
    const std::vector<ShapeResult> shapes = evaluateShapes(run);
    const report::ReportDocument doc = makeDocument(run, options, tables, shapes);
    if (!options.jsonOutPath.empty()) {
        QSaveFile file(QString::fromStdString(options.jsonOutPath));
        const QByteArray json = report::formatJson(doc).toUtf8();
        if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
            std::fprintf(stderr, "%s: --json-out %s: %s\n", kWho, options.jsonOutPath.c_str(),
                         qPrintable(file.errorString()));
            allOk = false;
        }
    }
    QString out;
    if (options.format == report::Format::text) {
        out = report::formatText(tables) + QString::fromStdString(notesText(run, options) + shapesText(shapes, run));
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
