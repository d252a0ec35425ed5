// smclab serve tcp|http|kv: one server side of a workload, to pair with
// `smclab load` or the real tools (qperf-style clients of ours, wrk,
// redis-benchmark). Runs until SIGINT/SIGTERM (or --max-tests for tcp).
#include <cstdio>
#include <mutex>
#include <optional>

#include <QJsonDocument>

#include "commands.h"
#include "workload_cli.h"

namespace smclab::cli {

namespace {

void printHelp() {
    std::printf(
        "usage: smclab serve tcp|http|kv --listen ADDR:PORT [--transport tcp|smcr|ksmc]\n"
        "                    [--transport-opt KEY=VALUE]... [workload options] [--json] [--samples MS]\n"
        "\n"
        "  tcp   answers tcp_bw and tcp_lat tests (like a qperf server)\n"
        "        --max-tests N      finish after N tests (default: until stopped)\n"
        "  http  static files: TCP_CORK, writev(header), sendfile(body) per response\n"
        "        --root DIR         serve the files under DIR (default: a generated /4k.html)\n"
        "        --threads N        I/O threads (default 1)\n"
        "        --sendfile on|off  off: read the body into a buffer and write it (default on)\n"
        "  kv    a RESP (Redis protocol) server: PING, SET, GET, DEL, CONFIG GET, COMMAND, QUIT\n"
        "        --threads N        I/O threads (default 1)\n"
        "\n"
        "  --listen ADDR:PORT   port 0 picks a free port; the line 'listening on ADDR:PORT' says which\n"
        "  --json               print the final result as JSON\n"
        "  --samples MS         print a JSON sample every MS milliseconds\n");
}

std::string workloadFor(const std::string& name) {
    if (name == "tcp" || name == "tcp_bw" || name == "tcp_lat") return "tcp_bw";
    if (name == "http" || name == "kv") return name;
    return {};
}

// The command line after the server's name.
struct ServeArgs {
    TransportChoice transport;
    std::optional<Endpoint> listen;
    bool json = false;
    int samplesMs = 0;
    QJsonObject params;
};

// The exit status when the command line says to stop here (help, a usage error).
std::optional<int> parseServeArgs(const Args& rest, const workloads::ParamSchema& schema, ServeArgs* a) {
    ArgCursor cursor(rest);
    while (!cursor.done() && cursor.error().empty()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (takeTransportOption(cursor, a->transport)) continue;
        if (takeEndpointOption(cursor, "--listen", true, a->listen)) continue;
        if (cursor.takeFlag("--json")) {
            a->json = true;
            continue;
        }
        if (auto value = cursor.takeValue("--samples")) {
            auto ms =
                parseDurationMs(*value + (value->find_first_not_of("0123456789") == std::string::npos ? "ms" : ""));
            if (!ms || *ms == 0) return usageError("serve", "--samples: expects a positive interval in ms");
            a->samplesMs = static_cast<int>(*ms);
            continue;
        }
        if (takeSchemaOption(cursor, schema, a->params)) continue;
        return usageError("serve", cursor.unknownOption() + " (see smclab serve --help)");
    }
    if (!cursor.error().empty()) return usageError("serve", cursor.error());
    if (!a->listen) return usageError("serve", "--listen ADDR:PORT is required");
    return std::nullopt;
}

// The server's samples (with --samples), its "listening on" line and its log
// lines, one at a time from whichever thread reports them.
void attachPrinters(workloads::RunContext& ctx, std::mutex& printMutex, const std::string& server, const ServeArgs& a) {
    if (a.samplesMs > 0) {
        ctx.onSample = [&printMutex](const workloads::Sample& s) {
            std::lock_guard lock(printMutex);
            std::printf("%s\n", QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact).constData());
            std::fflush(stdout);
        };
    }
    ctx.onListening = [&printMutex, &server, &a](uint16_t port) {
        std::lock_guard lock(printMutex);
        std::printf("smclab serve %s: listening on %s:%u (transport %s)\n", server.c_str(),
                    a.listen->host.empty() ? "0.0.0.0" : a.listen->host.c_str(), port, a.transport.name.c_str());
        std::fflush(stdout);
    };
    ctx.onLog = [&printMutex](const std::string& line) {
        std::lock_guard lock(printMutex);
        std::fprintf(stderr, "%s\n", line.c_str());
    };
}

}  // namespace

int runServe(const Args& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        printHelp();
        return args.empty() ? kExitUsage : kExitOk;
    }
    const std::string workloadName = workloadFor(args[0]);
    const workloads::Workload* workload = workloads::findWorkload(workloadName);
    if (workload == nullptr) return usageError("serve", "unknown server '" + args[0] + "' (known: tcp, http, kv)");
    const workloads::ParamSchema schema = workload->schema(smcr::Side::server);
    ServeArgs a;
    if (const auto exitCode = parseServeArgs(Args(args.begin() + 1, args.end()), schema, &a)) return *exitCode;
    auto validated = workloads::validateParams(schema, a.params);
    if (!validated) return usageError("serve", optionNamedError(validated.error().message));
    auto opened = openTransport(a.transport);
    if (!opened) {
        std::fprintf(stderr, "smclab serve: %s\n", opened.error().message.c_str());
        return kExitFailure;
    }

    workloads::RunContext ctx;
    ctx.role = smcr::Side::server;
    ctx.params = *validated;
    ctx.transport = *opened;
    ctx.host = a.listen->host;
    ctx.port = a.listen->port;
    ctx.stop = &installStopSignals();
    ctx.sampleIntervalMs = a.samplesMs;
    std::mutex printMutex;
    attachPrinters(ctx, printMutex, args[0], a);
    auto result = workload->run(ctx);
    if (!result) {
        std::fprintf(stderr, "smclab serve: %s\n", result.error().message.c_str());
        return kExitFailure;
    }
    if (a.json) {
        std::printf("%s\n", QJsonDocument(result->toJson()).toJson(QJsonDocument::Compact).constData());
    } else {
        std::printf("smclab serve %s: stopped after %.1f s\n", args[0].c_str(),
                    result->summary.value("wall_sec").toDouble());
    }
    return kExitOk;
}

}  // namespace smclab::cli
