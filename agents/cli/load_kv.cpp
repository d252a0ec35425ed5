// smclab load kv: redis-benchmark's options and output forms.
#include <cstdio>

#include <QJsonArray>

#include "load_commands.h"
#include "redis_format.h"
#include "workload_cli.h"

namespace smclab::cli {

namespace {

void printHelp() {
    std::printf(
        "usage: smclab load kv --connect ADDR:PORT [options]\n"
        "\n"
        "  -c CLIENTS       parallel connections (default 50)\n"
        "  -n REQUESTS      requests per test (default 100000)\n"
        "  -d SIZE          SET value size in bytes (default 3)\n"
        "  -P PIPELINE      commands per batch (default 1)\n"
        "  --threads N      client threads (default 1)\n"
        "  -t TESTS         comma-separated: set,get,ping_inline,ping_mbulk (default set,get)\n"
        "  -r KEYSPACE      random keys key:000000000042 below KEYSPACE (default: one fixed key)\n"
        "  -k 1|0           keep connections alive (default 1)\n"
        "  -q               quiet: one line per test\n"
        "  --csv            CSV output\n"
        "  --json           the result as JSON\n"
        "  --transport NAME, --transport-opt KEY=VALUE\n");
}

// redis-benchmark's spellings.
const ParamOption kParamOptions[] = {
    {"--threads", "threads", ParamKind::count}, {"-c", "clients", ParamKind::count},
    {"-n", "requests", ParamKind::count},       {"-P", "pipeline", ParamKind::count},
    {"-r", "keyspace", ParamKind::count},       {"-d", "data_size", ParamKind::sizeBytes},
};

}  // namespace

int loadKv(const Args& args) {
    const workloads::Workload* workload = workloads::findWorkload("kv");
    const workloads::ParamSchema schema = workload->schema(smcr::Side::client);
    ArgCursor cursor(args);
    TransportChoice transport;
    std::optional<Endpoint> connect;
    workloads::RedisOutput form = workloads::RedisOutput::full;
    bool json = false;
    QJsonObject params;
    while (!cursor.done() && cursor.error().empty()) {
        if (cursor.takeFlag("--help")) {
            printHelp();
            return kExitOk;
        }
        if (takeTransportOption(cursor, transport)) continue;
        if (takeEndpointOption(cursor, "--connect", false, connect)) continue;
        if (cursor.takeFlag("-q")) {
            form = workloads::RedisOutput::quiet;
            continue;
        }
        if (cursor.takeFlag("--csv")) {
            form = workloads::RedisOutput::csv;
            continue;
        }
        if (cursor.takeFlag("--json")) {
            json = true;
            continue;
        }
        if (takeParamOption(cursor, kParamOptions, params)) continue;
        if (auto v = cursor.takeValue("-t")) {
            QJsonArray tests;
            for (const QString& t : QString::fromStdString(*v).toLower().split(',', Qt::SkipEmptyParts))
                tests.append(t.trimmed());
            params["tests"] = tests;
            continue;
        }
        if (auto v = cursor.takeValue("-k")) {
            if (*v != "0" && *v != "1") return usageError("load", "-k: expects 1 or 0, got '" + *v + "'");
            params["keepalive"] = *v == "1";
            continue;
        }
        if (takeSchemaOption(cursor, schema, params)) continue;
        return usageError("load", cursor.unknownOption() + " (see smclab load kv --help)");
    }
    if (!cursor.error().empty()) return usageError("load", cursor.error());
    if (!connect) return usageError("load", "--connect ADDR:PORT is required");
    static const OptionAlias kAliases[] = {{"--clients", "-c/--clients"},     {"--requests", "-n/--requests"},
                                           {"--data-size", "-d/--data-size"}, {"--pipeline", "-P/--pipeline"},
                                           {"--keyspace", "-r/--keyspace"},   {"--tests", "-t/--tests"},
                                           {"--keepalive", "-k/--keepalive"}};
    auto validated = validateOptions(schema, params, kAliases);
    if (!validated) return usageError("load", validated.error().message);
    auto opened = openClientTransport(transport);
    if (!opened) return kExitFailure;
    return runClientWorkload(*workload, opened, *connect, *validated, json, [form](const workloads::RunResult& r) {
        return workloads::formatRedisBenchmark(r, form);
    });
}

}  // namespace smclab::cli
