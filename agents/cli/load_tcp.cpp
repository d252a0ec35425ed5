// smclab load tcp_bw|tcp_lat: qperf's client options and output blocks.
#include <cstdio>
#include <optional>
#include <vector>

#include "load_commands.h"
#include "qperf_format.h"
#include "workload_cli.h"

namespace smclab::cli {

namespace {

void printHelp(const char* name) {
    std::printf(
        "usage: smclab load %s --connect ADDR:PORT [options]\n"
        "\n"
        "  -m, --msg-size SIZE     message size (64K = 65536, 64k = 64000)\n"
        "  -t, --time TIME         measured time (default 2 s; 10, 10s, 500ms, 1m)\n"
        "  -oo msg_size:INIT:LAST:[*]INCR   loop over sizes; one block per size\n"
        "  --warmup TIME           excluded warm-up before the measured time (default 200ms)\n"
        "  --nodelay               TCP_NODELAY on both ends (qperf never sets it)\n"
        "  --verify                send a known pattern; the receiver checks every byte\n"
        "  --timeout TIME          connect / end-of-test timeout (default 5s)\n"
        "  -v -vs -vt -vu -vvu     qperf verbosity (stats, cpu, user parameters)\n"
        "  -vl                     latency percentiles from the histogram (tcp_lat)\n"
        "  -uu                     one unit for everything (MB/sec, us)\n"
        "  --json                  one JSON result per run instead of the blocks\n"
        "  --transport NAME, --transport-opt KEY=VALUE\n",
        name);
}

// qperf's spellings.
const ParamOption kParamOptions[] = {
    {"--msg-size", "msg_size", ParamKind::sizeBytes}, {"-m", "msg_size", ParamKind::sizeBytes},
    {"--time", "duration_ms", ParamKind::durationMs}, {"-t", "duration_ms", ParamKind::durationMs},
    {"--warmup", "warmup_ms", ParamKind::durationMs}, {"--timeout", "timeout_ms", ParamKind::durationMs},
};

// The command line of `smclab load tcp_bw|tcp_lat`.
struct LoadArgs {
    TransportChoice transport;
    std::optional<Endpoint> connect;
    workloads::QperfVerbosity verbosity;
    bool json = false;
    std::vector<uint64_t> sizes;  // -oo's loop; {0} keeps -m or the default
    QJsonObject params;
};

// qperf's verbosity flags (-v -vs -vt -vu -vvu -vl -uu).
bool takeVerbosityFlag(ArgCursor& cursor, workloads::QperfVerbosity& verbosity) {
    if (cursor.takeFlag("-v")) {
        verbosity = {true, true, 1, true, verbosity.oneUnit};
    } else if (cursor.takeFlag("-vs")) {
        verbosity.stats = true;
    } else if (cursor.takeFlag("-vt")) {
        verbosity.cpu = true;
    } else if (cursor.takeFlag("-vu")) {
        verbosity.user = std::max(verbosity.user, 1);
    } else if (cursor.takeFlag("-vvu")) {
        verbosity.user = 2;
    } else if (cursor.takeFlag("-vl")) {
        verbosity.latencyPercentiles = true;
    } else if (cursor.takeFlag("-uu")) {
        verbosity.oneUnit = true;
    } else {
        return false;
    }
    return true;
}

// The exit status when the command line says to stop here (help, a usage error).
std::optional<int> parseLoadArgs(const Args& args, const char* name, const workloads::ParamSchema& schema,
                                 LoadArgs* a) {
    ArgCursor cursor(args);
    while (!cursor.done() && cursor.error().empty()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp(name);
            return kExitOk;
        }
        if (takeTransportOption(cursor, a->transport)) continue;
        if (takeEndpointOption(cursor, "--connect", false, a->connect)) continue;
        // -oo before -o-like prefixes.
        if (auto v = cursor.takeValue("-oo")) {
            std::string error;
            auto loop = parseSizeLoop(*v, &error);
            if (!loop) return usageError("load", error);
            if (loop->variable != "msg_size") return usageError("load", "-oo: only msg_size loops are supported");
            a->sizes = loop->values();
            continue;
        }
        if (takeVerbosityFlag(cursor, a->verbosity)) continue;
        if (cursor.takeFlag("--json")) {
            a->json = true;
            continue;
        }
        if (takeParamOption(cursor, kParamOptions, a->params)) continue;
        if (takeSchemaOption(cursor, schema, a->params)) continue;
        return usageError("load", cursor.unknownOption() + " (see smclab load " + name + " --help)");
    }
    if (!cursor.error().empty()) return usageError("load", cursor.error());
    if (!a->connect) return usageError("load", "--connect ADDR:PORT is required");
    if (a->sizes.empty()) a->sizes.push_back(0);  // 0: keep -m or the default
    return std::nullopt;
}

}  // namespace

int loadTcp(const Args& args, bool latency) {
    const char* name = latency ? "tcp_lat" : "tcp_bw";
    const workloads::Workload* workload = workloads::findWorkload(name);
    const workloads::ParamSchema schema = workload->schema(smcr::Side::client);
    LoadArgs a;
    if (const auto exitCode = parseLoadArgs(args, name, schema, &a)) return *exitCode;

    auto opened = openClientTransport(a.transport);
    if (!opened) return kExitFailure;
    static const OptionAlias kAliases[] = {{"--msg-size", "-m/--msg-size"},
                                           {"--duration-ms", "-t/--time"},
                                           {"--warmup-ms", "--warmup"},
                                           {"--timeout-ms", "--timeout"}};
    const std::atomic<bool>& stop = installStopSignals();
    const workloads::QperfVerbosity verbosity = a.verbosity;
    for (uint64_t size : a.sizes) {
        QJsonObject runParams = a.params;
        if (size != 0) runParams["msg_size"] = static_cast<double>(size);
        auto validated = validateOptions(schema, runParams, kAliases);
        if (!validated) return usageError("load", validated.error().message);
        const int code = runClientWorkload(
            *workload, opened, *a.connect, *validated, a.json,
            [verbosity](const workloads::RunResult& r) { return workloads::formatQperfBlock(r, verbosity); });
        if (code != kExitOk) return code;
        if (stop.load()) break;
    }
    return kExitOk;
}

}  // namespace smclab::cli
