// nginx + wrk as a workload (the sendfile/cork and short-connection
// letters' benchmark): the server role writes a config and a file of
// file_size bytes into a fresh directory and runs `nginx -p DIR -c
// DIR/nginx.conf -e stderr`; the client role runs `wrk -t T -c C -d S
// [--latency] [-H 'Connection: Close'] http://HOST:PORT/file.bin`.
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "nginx_config.h"
#include "tool_workload.h"
#include "tool_workloads.h"
#include "wrk_output.h"

namespace smclab::workloads {

namespace {

NginxConfig nginxConfigFor(const RunContext& ctx, uint16_t port, const std::string& dir) {
    NginxConfig config;
    config.dir = dir;
    config.listenHost = listenAddress(ctx);
    config.port = port;
    config.workers = static_cast<int>(ctx.params.value("workers").toInteger());
    config.sendfile = ctx.params.value("sendfile").toBool();
    config.tcpNopush = ctx.params.value("tcp_nopush").toBool();
    config.keepalive = ctx.params.value("keepalive").toBool();
    config.sndbufBytes = static_cast<uint64_t>(ctx.params.value("sndbuf").toInteger());
    config.rcvbufBytes = static_cast<uint64_t>(ctx.params.value("rcvbuf").toInteger());
    config.runAsRoot = ::geteuid() == 0;
    return config;
}

// nginx.conf and the served file (www/file.bin, fileBytes of a-z) in `dir`.
bool writeNginxTree(const NginxConfig& config, uint64_t fileBytes) {
    const std::string& dir = config.dir;
    bool written = ::mkdir((dir + "/www").c_str(), 0755) == 0 && ::mkdir((dir + "/tmp").c_str(), 0777) == 0;
    std::ofstream conf(dir + "/nginx.conf");
    conf << nginxConfigText(config);
    std::ofstream file(dir + "/www" + kNginxFilePath, std::ios::binary);
    std::string block(65536, '\0');
    for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % 26);
    for (uint64_t left = fileBytes; left > 0;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(left, block.size()));
        file.write(block.data(), static_cast<std::streamsize>(n));
        left -= n;
    }
    return written && conf.good() && file.good();
}

smcr::Status fillWrkResult(bool latency, const ToolExit& exit, RunResult& r) {
    auto report = parseWrkOutput(exit.out, latency);
    if (!report.ok()) return smcr::fail(report.error());
    insertAll(r.summary, *report);
    r.elapsedSec = report->value("duration_sec").toDouble();
    r.ops = static_cast<uint64_t>(report->value("requests").toDouble());
    r.bytes = static_cast<uint64_t>(report->value("bytes_read").toDouble());
    return {};
}

class NginxWrkWorkload final : public ToolWorkload {
public:
    std::string name() const override { return "nginx-wrk"; }
    std::vector<std::string> headlineMetrics() const override { return {"rps"}; }
    std::string summary() const override { return "the real nginx serving one file, loaded by the real wrk"; }

protected:
    ParamSchema serverSchema() const override {
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

    ParamSchema clientSchema() const override {
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

    const char* serverDirPrefix() const override { return "smclab-nginx"; }

    Result<ToolPlan> serverPlan(const RunContext& ctx, uint16_t port, const std::string& dir) const override {
        const NginxConfig config = nginxConfigFor(ctx, port, dir);
        if (!writeNginxTree(config, static_cast<uint64_t>(ctx.params.value("file_size").toInteger()))) {
            return smcr::fail(smcr::Errc::systemError, "nginx-wrk: could not write the config and file in " + dir);
        }
        return ToolPlan{.program = ToolProgram::nginx,
                        .args = {"-p", dir, "-c", dir + "/nginx.conf", "-e", "stderr"},
                        .summary = QJsonObject{{"config", QString::fromStdString(nginxConfigText(config))}}};
    }

    Result<ToolPlan> clientPlan(const RunContext& ctx) const override {
        const int64_t threads = ctx.params.value("threads").toInteger();
        const int64_t connections = ctx.params.value("connections").toInteger();
        if (connections < threads) {
            return smcr::fail(smcr::Errc::invalidArgument, "connections: must be at least threads (" +
                                                               std::to_string(threads) + "), got " +
                                                               std::to_string(connections));
        }
        const bool latency = ctx.params.value("latency").toBool();
        ToolPlan plan{.program = ToolProgram::wrk,
                      .args = {"-t", std::to_string(threads), "-c", std::to_string(connections), "-d",
                               std::to_string(wholeSeconds(ctx.params.value("duration_ms").toInteger())) + "s"}};
        if (latency) plan.args.emplace_back("--latency");
        if (ctx.params.value("connection_close").toBool())
            plan.args.insert(plan.args.end(), {"-H", "Connection: Close"});
        plan.args.push_back("http://" + urlHost(ctx.host) + ":" + std::to_string(ctx.port) + kNginxFilePath);
        plan.parse = [latency](const ToolExit& exit, RunResult& r) { return fillWrkResult(latency, exit, r); };
        return plan;
    }
};

}  // namespace

const Workload& nginxWrkToolWorkload() {
    static const NginxWrkWorkload workload;
    return workload;
}

}  // namespace smclab::workloads
