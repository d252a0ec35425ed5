// smclab bench sendfile: the request pattern of "net/smc: Improvements for
// TCP_CORK and sendfile()" (2022): an nginx-style server answering each
// request with
//     TCP_CORK on; send(240-byte header); sendfile(4 KiB file); TCP_CORK off
// to a wrk-style closed-loop client (one request in flight per connection,
// a few connections, one thread each), in requests/s. Columns:
//   SMC sendfile     libsmcr with the fix: corked data waits with no timer,
//                    clearing TCP_CORK pushes at once (lab.cork_timer_ms 0)
//   SMC cork timer   libsmcr with lab.cork_timer_ms (the old 250 ms-style
//                    delayed push), the letter's "sendfile on (orig)"
//   SMC copy         libsmcr, "sendfile off": read the file, one send of
//                    header + body
//   TCP sendfile     kernel TCP over loopback, for reference
// The server is this program re-executed with --serve; the client reads
// the server engine's counters through a stats request at the start and
// the end of each column.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <smcr/fabric_sim.h>

#include "args.h"
#include "bench_commands.h"
#include "bench_local.h"
#include "bench_progress.h"
#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench sendfile";
constexpr size_t kHeaderBytes = 240;  // the nginx header of the letter's strace
constexpr uint32_t kMaxFileBytes = 16u << 20;

enum class Mode { invalid = 0, sendfile, copy };

enum class RequestType : uint32_t { invalid = 0, get = 1, stats = 2 };

struct Request {
    uint32_t type = 0;
    uint32_t fileBytes = 0;
};

struct SendfileColumn {
    std::string key;
    std::string label;
    std::string transport;
    Mode mode = Mode::invalid;
    bool corkTimer = false;  // lab.cork_timer_ms = --cork-timer-ms instead of 0
    std::string summary;
};

const std::vector<SendfileColumn>& sendfileColumns() {
    static const std::vector<SendfileColumn> kColumns = {
        {"sendfile", "SMC sendfile", "smcr", Mode::sendfile, false, "cork, header, sendfile, uncork (the fix)"},
        {"timer", "SMC cork timer", "smcr", Mode::sendfile, true, "the same with lab.cork_timer_ms (the old timer)"},
        {"copy", "SMC copy", "smcr", Mode::copy, false, "read the file, one send of header + body"},
        {"tcp", "TCP sendfile", "tcp", Mode::sendfile, false, "kernel TCP, cork + sendfile"},
    };
    return kColumns;
}

std::optional<SendfileColumn> findColumn(const std::string& name) {
    for (const SendfileColumn& c : sendfileColumns()) {
        if (c.key == name || c.label == name) return c;
    }
    return std::nullopt;
}

// The header bytes: an HTTP response head padded to 240 bytes, as nginx's.
std::string responseHeader(uint32_t fileBytes) {
    std::string h = "HTTP/1.1 200 OK\r\nServer: smclab\r\nContent-Type: text/html\r\nContent-Length: " +
                    std::to_string(fileBytes) + "\r\nConnection: keep-alive\r\nX-Pad: ";
    const size_t tail = 4;  // "\r\n\r\n"
    if (h.size() + tail < kHeaderBytes) h.append(kHeaderBytes - tail - h.size(), 'x');
    h += "\r\n\r\n";
    h.resize(kHeaderBytes);
    return h;
}

uint8_t bodyByte(size_t offset) { return static_cast<uint8_t>('a' + offset % 26); }

// A file of `bytes` bytes the server sends from; unlinked at once (the fd stays).
int makeBodyFile(uint32_t bytes) {
    char path[] = "/tmp/smclab-sendfile-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return -1;
    ::unlink(path);
    std::vector<uint8_t> data(bytes);
    for (size_t i = 0; i < data.size(); ++i) data[i] = bodyByte(i);
    if (::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
        ::close(fd);
        return -1;
    }
    return fd;
}

void serveConnection(std::unique_ptr<BenchConn> conn, Mode mode, int fileFd, const smcr::Engine* engine) {
    std::vector<uint8_t> copyBuf;
    Request req;
    while (conn->recvAll(&req, sizeof req)) {
        if (req.type == static_cast<uint32_t>(RequestType::stats)) {
            const std::string text = engine != nullptr ? encodeCounters(counterSnapshot(*engine)) : std::string();
            const uint64_t len = text.size();
            if (!conn->sendAll(&len, sizeof len) || (len > 0 && !conn->sendAll(text.data(), text.size()))) return;
            continue;
        }
        if (req.type != static_cast<uint32_t>(RequestType::get) || req.fileBytes > kMaxFileBytes) return;
        const std::string header = responseHeader(req.fileBytes);
        if (mode == Mode::copy) {
            copyBuf.resize(header.size() + req.fileBytes);
            std::memcpy(copyBuf.data(), header.data(), header.size());
            if (::pread(fileFd, copyBuf.data() + header.size(), req.fileBytes, 0) != static_cast<ssize_t>(req.fileBytes))
                return;
            if (!conn->sendAll(copyBuf.data(), copyBuf.size())) return;
            continue;
        }
        // nginx with sendfile on and tcp_nopush on (the letter's strace).
        if (!conn->setCork(true) || !conn->sendAll(header.data(), header.size()) ||
            !conn->sendfileAll(fileFd, 0, req.fileBytes) || !conn->setCork(false)) {
            return;
        }
    }
}

int runServer(const std::string& transport, Mode mode, uint32_t fileBytes, const SettingList& settings, bool pin) {
    if (pin) pinToCpu(1);
    std::shared_ptr<smcr::Engine> engine;
    if (transport == "smcr") {
        engine = makeBenchEngine(settings, kWho);
        if (!engine) return kExitFailure;
    }
    const int fileFd = makeBodyFile(fileBytes);
    if (fileFd < 0) {
        std::fprintf(stderr, "%s: cannot make the body file: %s\n", kWho, std::strerror(errno));
        return kExitFailure;
    }
    auto listener = listenBench(transport, engine, kWho);
    if (!listener) return kExitFailure;
    std::printf("PORT %u\n", listener->port());
    std::fflush(stdout);
    for (;;) {
        auto conn = listener->accept();
        if (!conn) return kExitFailure;
        std::thread(serveConnection, std::move(conn), mode, fileFd, engine.get()).detach();
    }
}

std::optional<CounterMap> fetchServerCounters(BenchConn& conn) {
    const Request req{static_cast<uint32_t>(RequestType::stats), 0};
    uint64_t len = 0;
    if (!conn.sendAll(&req, sizeof req) || !conn.recvAll(&len, sizeof len) || len > (1u << 20)) return std::nullopt;
    std::string text(len, '\0');
    if (len > 0 && !conn.recvAll(text.data(), text.size())) return std::nullopt;
    return decodeCounters(text);
}

struct ColumnResult {
    bool ok = false;
    double requestsPerSec = 0;
    uint64_t requests = 0;
    CounterMap serverCounters;  // change over the run
    std::string error;
};

// One column at one file size: `connections` client threads, closed loop.
ColumnResult runColumn(const std::string& transport, uint16_t port, const std::shared_ptr<smcr::Engine>& engine,
                       int connections, uint32_t fileBytes, uint64_t durationMs) {
    ColumnResult result;
    std::vector<std::unique_ptr<BenchConn>> conns;
    for (int i = 0; i < connections; ++i) {
        auto c = connectBench(transport, port, engine, kWho);
        if (!c) {
            result.error = "connect failed";
            return result;
        }
        if (c->fellBack()) std::fprintf(stderr, "%s: warning: an smcr connection fell back to TCP\n", kWho);
        conns.push_back(std::move(c));
    }
    const auto before = fetchServerCounters(*conns[0]);
    const std::string header = responseHeader(fileBytes);
    std::atomic<uint64_t> requests{0};
    std::atomic<bool> failed{false};
    std::atomic<bool> corrupt{false};
    const uint64_t start = nowNs();
    const uint64_t end = start + durationMs * 1000000;
    std::vector<std::thread> threads;
    for (auto& conn : conns) {
        threads.emplace_back([&, c = conn.get()] {
            std::vector<uint8_t> buf(kHeaderBytes + fileBytes);
            const Request req{static_cast<uint32_t>(RequestType::get), fileBytes};
            uint64_t mine = 0;
            while (nowNs() < end) {
                if (!c->sendAll(&req, sizeof req) || !c->recvAll(buf.data(), buf.size())) {
                    failed = true;
                    break;
                }
                // The header and the body's first and last bytes: a response
                // that is cut, shifted or mixed with another shows here.
                if (std::memcmp(buf.data(), header.data(), header.size()) != 0 ||
                    (fileBytes > 0 && (buf[kHeaderBytes] != bodyByte(0) ||
                                       buf[kHeaderBytes + fileBytes - 1] != bodyByte(fileBytes - 1)))) {
                    corrupt = true;
                    break;
                }
                ++mine;
            }
            requests += mine;
        });
    }
    for (auto& t : threads) t.join();
    const uint64_t elapsedNs = nowNs() - start;
    const auto after = fetchServerCounters(*conns[0]);
    if (before && after) result.serverCounters = counterDelta(*after, *before);
    if (corrupt) {
        result.error = "a response arrived corrupted";
        return result;
    }
    if (failed) {
        result.error = "a connection failed";
        return result;
    }
    result.requests = requests;
    result.requestsPerSec = static_cast<double>(requests) * 1e9 / static_cast<double>(elapsedNs);
    result.ok = requests > 0;
    if (!result.ok) result.error = "no request finished";
    return result;
}

void printHelp() {
    std::printf(
        "usage: smclab bench sendfile [--link ideal|cx4-25g|cx4lx-vf] [-t SECONDS] [-c CONNECTIONS]\n"
        "                             [--file-size SIZE[,SIZE..]] [--cork-timer-ms MS]\n"
        "                             [--columns LIST] [--counters] [--format text|csv|json|markdown|html]\n"
        "                             [--no-pin]\n"
        "\n"
        "The TCP_CORK + sendfile pattern of nginx (\"net/smc: Improvements for TCP_CORK\n"
        "and sendfile()\"): per request the server corks, sends a 240-byte header,\n"
        "sendfile()s the file and uncorks; a closed-loop client (one request in flight\n"
        "per connection, one thread per connection) counts requests/s. Printed as a\n"
        "cover-letter table, percentages against the first column.\n"
        "\n"
        "options:\n"
        "  -t SECONDS        time per column and size (default 5)\n"
        "  -c N              connections (default 4)\n"
        "  --file-size LIST  file sizes (default 4K)\n"
        "  --cork-timer-ms N lab.cork_timer_ms of the cork-timer column (default 200)\n"
        "  --link NAME       sim link model: ideal (default) or cx4-25g\n"
        "  --columns LIST    columns by key or label, first = baseline (default all)\n"
        "  --counters        also server CDC messages and RDMA writes per request\n"
        "  --format F        text (default), csv, json, markdown or html\n"
        "  --no-pin          do not pin client and server to CPUs 0 and 1\n"
        "columns:\n");
    for (const SendfileColumn& c : sendfileColumns()) {
        std::printf("  %-9s %-15s %s\n", c.key.c_str(), c.label.c_str(), c.summary.c_str());
    }
}

int usage(const std::string& message) {
    std::fprintf(stderr, "%s: %s\n(see smclab bench sendfile --help)\n", kWho, message.c_str());
    return kExitUsage;
}

struct Options {
    std::string link = "ideal";
    uint64_t durationMs = 5000;
    int connections = 4;
    std::vector<uint32_t> fileSizes = {4096};
    uint64_t corkTimerMs = 200;
    std::vector<SendfileColumn> columns;
    bool counters = false;
    report::Format format = report::Format::text;
    bool pin = true;
};

SettingList columnSettings(const SendfileColumn& c, const Options& o) {
    return {{"lab.link", o.link}, {"lab.cork_timer_ms", c.corkTimer ? std::to_string(o.corkTimerMs) : "0"}};
}

report::ComparisonTable makeTable(const Options& o, const std::vector<std::vector<ColumnResult>>& results,
                                  const QString& title, const QString& metric, const QString& unit,
                                  const char* counter) {
    report::ComparisonTable t;
    t.title = title;
    t.metric = metric;
    t.unit = unit;
    t.lowerIsBetter = counter != nullptr;
    t.workload = QStringLiteral("sendfile");
    for (const SendfileColumn& c : o.columns) t.columns << QString::fromStdString(c.label);
    for (size_t i = 0; i < o.fileSizes.size(); ++i) {
        report::Row row;
        row.msgSize = o.fileSizes[i];
        for (const ColumnResult& r : results[i]) {
            report::Cell cell;
            if (r.ok && counter == nullptr) {
                cell.value = r.requestsPerSec;
            } else if (r.ok && r.requests > 0) {
                const auto it = r.serverCounters.find(counter);
                if (it != r.serverCounters.end()) {
                    cell.value = static_cast<double>(it->second) / static_cast<double>(r.requests);
                }
            }
            cell.repetitions = cell.value ? 1 : 0;
            row.cells.append(cell);
        }
        t.rows.append(row);
    }
    return t;
}

int runClient(const Options& o) {
    struct Live {
        SendfileColumn spec;
        std::shared_ptr<smcr::Engine> engine;
        std::unique_ptr<ServerProcess> server;
        std::string error;
    };
    const uint32_t maxFile = *std::max_element(o.fileSizes.begin(), o.fileSizes.end());
    std::vector<Live> live;
    for (const SendfileColumn& c : o.columns) {
        Live l;
        l.spec = c;
        std::vector<std::string> args = {"--transport", c.transport, "--mode",
                                         c.mode == Mode::copy ? "copy" : "sendfile", "--file-size",
                                         std::to_string(maxFile)};
        if (c.transport == "smcr") {
            const SettingList settings = columnSettings(c, o);
            l.engine = makeBenchEngine(settings, (std::string(kWho) + ": column " + c.label).c_str(), &l.error);
            const auto words = settingArgs(settings);
            args.insert(args.end(), words.begin(), words.end());
        }
        if (!o.pin) args.push_back("--no-pin");
        if (l.error.empty()) {
            l.server = std::make_unique<ServerProcess>();
            if (!l.server->start("sendfile", args)) {
                l.error = "the server did not start";
                std::fprintf(stderr, "%s: column %s: %s\n", kWho, c.label.c_str(), l.error.c_str());
                l.server.reset();
            }
        }
        live.push_back(std::move(l));
    }
    if (o.pin) pinToCpu(0);
    BenchProgress progress(static_cast<int>(o.fileSizes.size() * live.size()), o.durationMs + 100);
    bool allOk = true;
    std::vector<std::vector<ColumnResult>> results(o.fileSizes.size(), std::vector<ColumnResult>(live.size()));
    for (size_t i = 0; i < o.fileSizes.size(); ++i) {
        for (size_t col = 0; col < live.size(); ++col) {
            Live& l = live[col];
            progress.begin(l.spec.label + " " + std::to_string(o.fileSizes[i]) + " B");
            ColumnResult r;
            if (!l.server) {
                r.error = l.error;
            } else {
                r = runColumn(l.spec.transport, l.server->port(), l.engine, o.connections, o.fileSizes[i],
                              o.durationMs);
            }
            allOk = allOk && r.ok;
            char text[64];
            std::snprintf(text, sizeof text, "%.2f req/s", r.requestsPerSec);
            progress.end(r.ok ? std::string(text) : "failed (" + r.error + ")");
            if (!r.ok && l.server) progress.note(std::string(kWho) + ": " + l.spec.label + ": " + r.error);
            results[i][col] = std::move(r);
        }
    }
    progress.finish();
    QList<report::ComparisonTable> tables = {
        makeTable(o, results, QStringLiteral("Requests/sec"), QStringLiteral("rps"), QStringLiteral("req/s"), nullptr)};
    if (o.counters) {
        tables.append(makeTable(o, results, QStringLiteral("Server CDC messages per request"),
                                QStringLiteral("smcr.cdc_sent"), QString(), "smcr.cdc_sent"));
        tables.append(makeTable(o, results, QStringLiteral("Server RDMA writes per request"),
                                QStringLiteral("smcr.rdma_writes"), QString(), "smcr.rdma_writes"));
    }
    QString out;
    if (o.format == report::Format::text) {
        out = report::formatText(tables);
    } else if (o.format == report::Format::csv) {
        out = report::formatCsv(tables);
    } else {
        report::ReportDocument doc;
        doc.title = QStringLiteral("smclab bench sendfile");
        doc.tables = tables;
        report::ProvenanceSection prov;
        prov.title = QStringLiteral("Run");
        prov.entries = {{QStringLiteral("link"), QString::fromStdString(o.link)},
                        {QStringLiteral("seconds per cell"), QString::number(static_cast<double>(o.durationMs) / 1000.0)},
                        {QStringLiteral("connections"), QString::number(o.connections)},
                        {QStringLiteral("header bytes"), QString::number(kHeaderBytes)},
                        {QStringLiteral("cork timer ms"), QString::number(o.corkTimerMs)}};
        doc.provenance.append(prov);
        out = report::render(doc, o.format);
    }
    std::fputs(out.toUtf8().constData(), stdout);
    std::fflush(stdout);
    return allOk ? kExitOk : kExitFailure;
}

}  // namespace

int runBenchSendfile(const Args& args) {
    Options o;
    bool serve = false;
    std::string transport = "smcr";
    Mode mode = Mode::sendfile;
    SettingList serverSettings;
    std::vector<std::string> columnNames;
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto d = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*d);
            if (!ms || *ms < 10 || *ms > 3600000) return usage("-t needs a duration 10ms..1h");
            o.durationMs = *ms;
        } else if (auto c = cursor.takeValue("-c")) {
            auto n = parseInt(*c);
            if (!n || *n < 1 || *n > 64) return usage("-c needs 1..64 connections");
            o.connections = static_cast<int>(*n);
        } else if (auto f = cursor.takeValue("--file-size")) {
            o.fileSizes.clear();
            for (const std::string& word : splitList(*f)) {
                auto size = parseSize(word);
                if (!size || *size > kMaxFileBytes) return usage("--file-size: bad size '" + word + "' (0..16M)");
                o.fileSizes.push_back(static_cast<uint32_t>(*size));
            }
        } else if (auto t = cursor.takeValue("--cork-timer-ms")) {
            auto n = parseInt(*t);
            if (!n || *n < 1 || *n > 10000) return usage("--cork-timer-ms needs 1..10000");
            o.corkTimerMs = static_cast<uint64_t>(*n);
        } else if (auto l = cursor.takeValue("--link")) {
            if (auto model = smcr::fabric::sim::linkPreset(*l); !model) return usage("--link: " + model.error().message);
            o.link = *l;
        } else if (auto cols = cursor.takeValue("--columns")) {
            columnNames = splitList(*cols);
        } else if (auto fmt = cursor.takeValue("--format")) {
            auto parsed = report::parseFormat(QString::fromStdString(*fmt));
            if (!parsed) return usage("--format must be text, csv, json, markdown or html");
            o.format = *parsed;
        } else if (auto tr = cursor.takeValue("--transport")) {
            transport = *tr;
        } else if (auto m = cursor.takeValue("--mode")) {
            mode = *m == "copy" ? Mode::copy : Mode::sendfile;
        } else if (auto s = cursor.takeValue("--set")) {
            if (!parseSettingArg(*s, &serverSettings)) return usage("--set expects NAME=VALUE");
        } else if (cursor.takeFlag("--counters")) {
            o.counters = true;
        } else if (cursor.takeFlag("--serve")) {
            serve = true;
        } else if (cursor.takeFlag("--no-pin")) {
            o.pin = false;
        } else if (!cursor.error().empty()) {
            return usage(cursor.error());
        } else {
            return usage("unknown option '" + cursor.peek() + "'");
        }
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (o.fileSizes.empty()) return usage("--file-size needs at least one size");
    if (serve) {
        return runServer(transport, mode, *std::max_element(o.fileSizes.begin(), o.fileSizes.end()), serverSettings,
                         o.pin);
    }
    if (columnNames.empty()) {
        o.columns = sendfileColumns();
    } else {
        for (const std::string& name : columnNames) {
            auto c = findColumn(name);
            if (!c) return usage("--columns: unknown column '" + name + "' (sendfile, timer, copy, tcp)");
            o.columns.push_back(*c);
        }
    }
    return runClient(o);
}

}  // namespace smclab::cli
