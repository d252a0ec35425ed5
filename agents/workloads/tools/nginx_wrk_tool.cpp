// nginx + wrk as a workload (the sendfile/cork and short-connection
// letters' benchmark): the server role writes a config and a file of
// file_size bytes into a fresh directory and runs `nginx -p DIR -c
// DIR/nginx.conf -e stderr`; the client role runs `wrk -t T -c C -d S
// [--latency] [-H 'Connection: Close'] http://HOST:PORT/file.bin`.
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "nginx_config.h"
#include "tool_run.h"
#include "tool_workloads.h"
#include "wrk_output.h"

namespace smclab::workloads {

namespace {

ParamSchema serverSchema() {
    return {
        {"workers", ParamType::integer, 1, 1, 64, {}, "nginx worker_processes"},
        {"sendfile", ParamType::boolean, true, 0, 0, {}, "nginx sendfile on|off"},
        {"tcp_nopush", ParamType::boolean, true, 0, 0, {}, "nginx tcp_nopush (TCP_CORK around header + sendfile)"},
        {"keepalive", ParamType::boolean, true, 0, 0, {}, "keep connections open (off: keepalive_timeout 0)"},
        {"file_size", ParamType::size, 4096, 0, 1 << 30, {}, "bytes of the served file"},
        {"sndbuf", ParamType::size, 0, 0, 64 << 20, {}, "listen socket SO_SNDBUF (0 = system default)"},
        {"rcvbuf", ParamType::size, 0, 0, 64 << 20, {}, "listen socket SO_RCVBUF (0 = system default)"},
        cpuParam(),
    };
}

ParamSchema clientSchema() {
    return {
        {"threads", ParamType::integer, 2, 1, 64, {}, "wrk -t"},
        {"connections", ParamType::integer, 10, 1, 10000, {}, "wrk -c (at least threads)"},
        {"duration_ms", ParamType::durationMs, 2000, 1000, 86400000, {}, "wrk -d (whole seconds)"},
        {"latency", ParamType::boolean, true, 0, 0, {}, "wrk --latency (percentiles)"},
        {"connection_close",
         ParamType::boolean,
         false,
         0,
         0,
         {},
         "wrk -H 'Connection: Close' (a connection per request)"},
        cpuParam(),
    };
}

Result<RunResult> serve(const RunContext& ctx, const std::string& name) {
    auto port = choosePort(ctx.host, ctx.port);
    if (!port.ok()) return smcr::fail(port.error());
    auto dir = makeTempDir("smclab-nginx");
    if (!dir.ok()) return smcr::fail(dir.error());
    NginxConfig config;
    config.dir = *dir;
    config.listenHost = ctx.host.empty() ? "0.0.0.0" : ctx.host;
    config.port = *port;
    config.workers = static_cast<int>(ctx.params.value("workers").toInteger());
    config.sendfile = ctx.params.value("sendfile").toBool();
    config.tcpNopush = ctx.params.value("tcp_nopush").toBool();
    config.keepalive = ctx.params.value("keepalive").toBool();
    config.sndbufBytes = static_cast<uint64_t>(ctx.params.value("sndbuf").toInteger());
    config.rcvbufBytes = static_cast<uint64_t>(ctx.params.value("rcvbuf").toInteger());
    config.runAsRoot = ::geteuid() == 0;
    const auto fileBytes = static_cast<uint64_t>(ctx.params.value("file_size").toInteger());
    bool written = ::mkdir((*dir + "/www").c_str(), 0755) == 0 && ::mkdir((*dir + "/tmp").c_str(), 0777) == 0;
    {
        std::ofstream conf(*dir + "/nginx.conf");
        conf << nginxConfigText(config);
        std::ofstream file(*dir + "/www" + kNginxFilePath, std::ios::binary);
        std::string block(65536, '\0');
        for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % 26);
        for (uint64_t left = fileBytes; left > 0;) {
            const size_t n = static_cast<size_t>(std::min<uint64_t>(left, block.size()));
            file.write(block.data(), static_cast<std::streamsize>(n));
            left -= n;
        }
        written = written && conf.good() && file.good();
    }
    if (!written) {
        removeTree(*dir);
        return smcr::fail(smcr::Errc::systemError, "nginx-wrk: could not write the config and file in " + *dir);
    }
    auto launch = prepareTool(ctx, ToolProgram::nginx, {"-p", *dir, "-c", *dir + "/nginx.conf", "-e", "stderr"});
    if (!launch.ok()) {
        removeTree(*dir);
        return smcr::fail(launch.error());
    }
    auto result = serveTool(ctx, name, std::move(*launch), *port,
                            QJsonObject{{"config", QString::fromStdString(nginxConfigText(config))}});
    removeTree(*dir);
    return result;
}

class NginxWrkWorkload final : public Workload {
public:
    std::string name() const override { return "nginx-wrk"; }
    std::vector<std::string> headlineMetrics() const override { return {"rps"}; }
    std::string summary() const override { return "the real nginx serving one file, loaded by the real wrk"; }
    ParamSchema schema(Role role) const override { return role == Role::server ? serverSchema() : clientSchema(); }

    Result<RunResult> run(const RunContext& ctx) const override {
        auto params = validateParams(schema(ctx.role), ctx.params);
        if (!params.ok()) return smcr::fail(params.error());
        RunContext c = ctx;
        c.params = *params;
        if (ctx.role == Role::server) return serve(c, name());
        if (ctx.role != Role::client) return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
        const int64_t threads = c.params.value("threads").toInteger();
        const int64_t connections = c.params.value("connections").toInteger();
        if (connections < threads) {
            return smcr::fail(smcr::Errc::invalidArgument, "connections: must be at least threads (" +
                                                               std::to_string(threads) + "), got " +
                                                               std::to_string(connections));
        }
        const bool latency = c.params.value("latency").toBool();
        std::vector<std::string> args = {
            "-t", std::to_string(threads),
            "-c", std::to_string(connections),
            "-d", std::to_string(wholeSeconds(c.params.value("duration_ms").toInteger())) + "s"};
        if (latency) args.emplace_back("--latency");
        if (c.params.value("connection_close").toBool()) args.insert(args.end(), {"-H", "Connection: Close"});
        args.push_back("http://" + urlHost(ctx.host) + ":" + std::to_string(ctx.port) + kNginxFilePath);
        auto launch = prepareTool(c, ToolProgram::wrk, args);
        if (!launch.ok()) return smcr::fail(launch.error());
        return runClientTool(c, name(), std::move(*launch),
                             [latency](const ToolExit& exit, RunResult& r) -> smcr::Status {
                                 auto report = parseWrkOutput(exit.out, latency);
                                 if (!report.ok()) return smcr::fail(report.error());
                                 for (auto it = report->begin(); it != report->end(); ++it)
                                     r.summary.insert(it.key(), it.value());
                                 r.elapsedSec = report->value("duration_sec").toDouble();
                                 r.ops = static_cast<uint64_t>(report->value("requests").toDouble());
                                 r.bytes = static_cast<uint64_t>(report->value("bytes_read").toDouble());
                                 return {};
                             });
    }
};

}  // namespace

const Workload& nginxWrkToolWorkload() {
    static const NginxWrkWorkload workload;
    return workload;
}

}  // namespace smclab::workloads
