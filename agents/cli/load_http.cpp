// smclab load http: wrk's options and report.
#include <cstdio>

#include <QJsonArray>

#include "load_commands.h"
#include "workload_cli.h"
#include "wrk_format.h"

namespace smclab::cli {

namespace {

void printHelp() {
    std::printf(
        "usage: smclab load http --connect ADDR:PORT [options]   (or a URL: http://ADDR:PORT/PATH)\n"
        "\n"
        "  -t, --threads N        client threads (default 2)\n"
        "  -c, --connections N    connections, split over the threads (default 10)\n"
        "  -d, --duration TIME    test length (default 10s; 10, 10s, 500ms, 1m)\n"
        "  -H, --header 'N: V'    add a request header (repeatable)\n"
        "      --latency          print the latency distribution\n"
        "      --timeout TIME     responses slower than this count as timeouts (default 2s)\n"
        "      --path PATH        request path (default /4k.html)\n"
        "      --json             the result as JSON instead of wrk's report\n"
        "      --transport NAME, --transport-opt KEY=VALUE\n");
}

// http://host:port/path -> endpoint and path.
bool parseUrl(const std::string& url, Endpoint* endpoint, std::string* path, std::string* error) {
    const std::string scheme = "http://";
    if (url.compare(0, scheme.size(), scheme) != 0) {
        *error = "only http:// URLs are supported, got '" + url + "'";
        return false;
    }
    const std::string rest = url.substr(scheme.size());
    const size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    *path = slash == std::string::npos ? "/" : rest.substr(slash);
    if (authority.find(':') == std::string::npos || authority.back() == ']') authority += ":80";
    auto parsed = parseEndpoint(authority, false, error);
    if (!parsed) return false;
    *endpoint = *parsed;
    return true;
}

// wrk's spellings.
const ParamOption kParamOptions[] = {
    {"--threads", "threads", ParamKind::count},           {"-t", "threads", ParamKind::count},
    {"--connections", "connections", ParamKind::count},   {"-c", "connections", ParamKind::count},
    {"--duration", "duration_ms", ParamKind::durationMs}, {"-d", "duration_ms", ParamKind::durationMs},
    {"--timeout", "timeout_ms", ParamKind::durationMs},
};

}  // namespace

int loadHttp(const Args& args) {
    const workloads::Workload* workload = workloads::findWorkload("http");
    const workloads::ParamSchema schema = workload->schema(smcr::Side::client);
    ArgCursor cursor(args);
    TransportChoice transport;
    std::optional<Endpoint> connect;
    bool json = false;
    bool latency = false;
    QJsonObject params;
    QJsonArray headers;
    while (!cursor.done() && cursor.error().empty()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (takeTransportOption(cursor, transport)) continue;
        if (takeEndpointOption(cursor, "--connect", false, connect)) continue;
        if (cursor.takeFlag("--latency")) {
            latency = true;
            continue;
        }
        if (cursor.takeFlag("--json")) {
            json = true;
            continue;
        }
        if (takeParamOption(cursor, kParamOptions, params)) continue;
        if (auto v = cursor.takeValue("--header")) {
            headers.append(QString::fromStdString(*v));
            continue;
        }
        if (auto v = cursor.takeValue("-H")) {
            headers.append(QString::fromStdString(*v));
            continue;
        }
        if (auto v = cursor.takeValue("--path")) {
            params["path"] = QString::fromStdString(*v);
            continue;
        }
        if (cursor.peek().rfind("http", 0) == 0) {
            std::string error, path;
            Endpoint endpoint;
            if (!parseUrl(cursor.next(), &endpoint, &path, &error)) return usageError("load", error);
            connect = endpoint;
            params["path"] = QString::fromStdString(path);
            continue;
        }
        if (takeSchemaOption(cursor, schema, params)) continue;
        return usageError("load", cursor.unknownOption() + " (see smclab load http --help)");
    }
    if (!cursor.error().empty()) return usageError("load", cursor.error());
    if (!connect) return usageError("load", "--connect ADDR:PORT (or a URL) is required");
    if (!headers.isEmpty()) params["headers"] = headers;
    static const OptionAlias kAliases[] = {{"--duration-ms", "-d/--duration"},
                                           {"--timeout-ms", "--timeout"},
                                           {"--threads", "-t/--threads"},
                                           {"--connections", "-c/--connections"}};
    auto validated = validateOptions(schema, params, kAliases);
    if (!validated) return usageError("load", validated.error().message);
    auto opened = openClientTransport(transport);
    if (!opened) return kExitFailure;
    return runClientWorkload(*workload, opened, *connect, *validated, json, [latency](const workloads::RunResult& r) {
        return workloads::formatWrkReport(r, latency);
    });
}

}  // namespace smclab::cli
