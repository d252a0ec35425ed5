#include "options.h"

#include <cstdio>

#include <sched.h>

#include <smcr/version.h>

#include <QCommandLineParser>

namespace smclab::daemon {

namespace {

constexpr char kDescription[] =
    "The smclab lab daemon: runs tcp_bw, tcp_lat, http and kv workloads over tcp, smcr or ksmc for\n"
    "authenticated controllers (JSON over WebSocket, agents/protocol/PROTOCOL.md).";

void usageError(const QString& message) {
    std::fprintf(stderr, "smclab-agent: %s\n(see smclab-agent --help)\n", qPrintable(message));
}

// The agent's options and their help text, in the order --help lists them.
struct AgentOptions {
    const QCommandLineOption help{{"h", "help"}, "Show this help and exit."};
    const QCommandLineOption version{{"V", "version"}, "Print the agent and protocol version and exit."};
    const QCommandLineOption listen{"listen",
                                    "Listen on ADDR:PORT (IPv4, or [IPv6]:PORT; port 0 = ephemeral). "
                                    "Default 127.0.0.1:7600.",
                                    "ADDR:PORT", "127.0.0.1:7600"};
    const QCommandLineOption tokenFile{"token-file", "Read the controllers' bearer token from FILE (required).",
                                       "FILE"};
    const QCommandLineOption tlsCert{"tls-cert", "Serve wss:// with this PEM certificate (needs --tls-key).", "FILE"};
    const QCommandLineOption tlsKey{"tls-key", "PEM private key for --tls-cert.", "FILE"};
    const QCommandLineOption allowPeer{"allow-peer",
                                       "Let client runs connect to peers in CIDR (repeatable). Loopback is "
                                       "allowed unless --no-loopback-peers.",
                                       "CIDR"};
    const QCommandLineOption noLoopback{"no-loopback-peers",
                                        "Do not let client runs connect to loopback addresses (only "
                                        "--allow-peer ones)."};
    const QCommandLineOption maxRuns{"max-runs", "At most N runs at once (default 4, 1..64).", "N", "4"};
    const QCommandLineOption maxDuration{"max-duration", "Refuse runs longer than S seconds (default 3600).", "S",
                                         "3600"};
    const QCommandLineOption grace{
        "disconnect-grace-ms", "Stop a vanished controller's runs after MS milliseconds (default 2000).", "MS", "2000"};
    const QCommandLineOption httpRoot{"http-root",
                                      "Let http server runs serve files under DIR (params.root); without it they "
                                      "serve only the generated page.",
                                      "DIR"};
    const QCommandLineOption metrics{
        "metrics",
        "Serve Prometheus metrics at http://ADDR:PORT/metrics (agent, runs, libsmcr engine counters) to "
        "loopback and --allow-peer scrapers. Off by default.",
        "ADDR:PORT"};
    const QCommandLineOption cpu{"cpu", "Run on CPU N only, like taskset -c N (default: not pinned).", "N"};
    const QCommandLineOption tool{
        "tool",
        "Run the tool program NAME (qperf, nginx, wrk, redis-server, redis-benchmark, "
        "iperf3, smcr_run, smc_run, ksmc_run) from PATH instead of looking on $PATH (repeatable).",
        "NAME=PATH"};

    const QCommandLineOption dataAddress{"data-address",
                                         "Server runs listen on ADDR when the controller names no address, and "
                                         "their clients are sent there (this host's address on the lab's data "
                                         "network). Default: the wildcard, reached at the agent's own address.",
                                         "ADDR"};

    void addTo(QCommandLineParser& parser) const {
        parser.addOptions({help, version, listen, tokenFile, tlsCert, tlsKey, allowPeer, noLoopback, maxRuns,
                           maxDuration, grace, httpRoot, metrics, cpu, tool, dataAddress});
    }
};

// Each read* below fills its part of DaemonOptions from the parsed command
// line and returns the first problem's message (empty: none).

// Who may talk to the agent: where it listens, the token, TLS, the peers.
QString readAccess(const QCommandLineParser& parser, const AgentOptions& o, DaemonOptions* options) {
    QString why;
    const auto endpoint = protocol::parseEndpoint(parser.value(o.listen), &why);
    if (!endpoint) return "--listen: " + why;
    options->listen = *endpoint;
    if (!parser.isSet(o.tokenFile)) return "--token-file is required";
    options->tokenFile = parser.value(o.tokenFile);
    options->tlsCertFile = parser.value(o.tlsCert);
    options->tlsKeyFile = parser.value(o.tlsKey);
    if (options->tlsCertFile.isEmpty() != options->tlsKeyFile.isEmpty()) {
        return "--tls-cert and --tls-key go together";
    }
    options->allowPeers = parser.values(o.allowPeer);
    options->allowLoopbackPeers = !parser.isSet(o.noLoopback);
    if (parser.isSet(o.dataAddress)) {
        options->dataAddress = QHostAddress(parser.value(o.dataAddress));
        if (options->dataAddress.isNull())
            return "--data-address takes an IPv4 or IPv6 address, got '" + parser.value(o.dataAddress) + "'";
    }
    return {};
}

// How much a controller may ask: runs at once, their length, the grace period, files served.
QString readLimits(const QCommandLineParser& parser, const AgentOptions& o, DaemonOptions* options) {
    bool ok = false;
    options->maxRuns = parser.value(o.maxRuns).toInt(&ok);
    if (!ok || options->maxRuns < 1 || options->maxRuns > 64) return "--max-runs must be 1..64";
    const qint64 seconds = parser.value(o.maxDuration).toLongLong(&ok);
    if (!ok || seconds < 1 || seconds > 86'400) return "--max-duration must be 1..86400 seconds";
    options->maxDurationMs = seconds * 1000;
    options->disconnectGraceMs = parser.value(o.grace).toLongLong(&ok);
    if (!ok || options->disconnectGraceMs < 0 || options->disconnectGraceMs > 600'000) {
        return "--disconnect-grace-ms must be 0..600000";
    }
    options->httpRoot = parser.value(o.httpRoot);
    return {};
}

// The host side: the metrics page, the CPU to run on, the tool programs.
QString readHost(const QCommandLineParser& parser, const AgentOptions& o, DaemonOptions* options) {
    if (parser.isSet(o.metrics)) {
        QString why;
        const auto metricsEndpoint = protocol::parseEndpoint(parser.value(o.metrics), &why);
        if (!metricsEndpoint) return "--metrics: " + why;
        options->metrics = *metricsEndpoint;
    }
    if (parser.isSet(o.cpu)) {
        bool ok = false;
        options->cpu = parser.value(o.cpu).toInt(&ok);
        if (!ok || options->cpu < 0 || options->cpu >= CPU_SETSIZE) {
            return "--cpu must be a CPU number (0.." + QString::number(CPU_SETSIZE - 1) + ")";
        }
    }
    for (const QString& entry : parser.values(o.tool)) {
        const qsizetype eq = entry.indexOf('=');
        if (eq <= 0) return "--tool takes NAME=PATH, got '" + entry + "'";
        options->toolPaths[entry.left(eq).toStdString()] = entry.mid(eq + 1).toStdString();
    }
    return {};
}

}  // namespace

ParseOutcome parseOptions(const QStringList& arguments, DaemonOptions* options) {
    QCommandLineParser parser;
    parser.setApplicationDescription(kDescription);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const AgentOptions o;
    o.addTo(parser);
    if (!parser.parse(arguments)) {
        usageError(parser.errorText());
        return ParseOutcome::exitUsage;
    }
    if (parser.isSet(o.help)) {
        std::printf("%s", qPrintable(parser.helpText()));
        return ParseOutcome::exitOk;
    }
    if (parser.isSet(o.version)) {
        std::printf("smclab-agent %s (control protocol %s)\n", smcr::versionString(), "1.0");
        return ParseOutcome::exitOk;
    }
    QString error;
    if (!parser.positionalArguments().isEmpty()) {
        error = "unexpected argument '" + parser.positionalArguments().first() + "'";
    }
    if (error.isEmpty()) error = readAccess(parser, o, options);
    if (error.isEmpty()) error = readLimits(parser, o, options);
    if (error.isEmpty()) error = readHost(parser, o, options);
    if (!error.isEmpty()) {
        usageError(error);
        return ParseOutcome::exitUsage;
    }
    return ParseOutcome::run;
}

}  // namespace smclab::daemon
