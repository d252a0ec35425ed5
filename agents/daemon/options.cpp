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

}  // namespace

ParseOutcome parseOptions(const QStringList& arguments, DaemonOptions* options) {
    QCommandLineParser parser;
    parser.setApplicationDescription(kDescription);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({"h", "help"}, "Show this help and exit.");
    const QCommandLineOption version({"V", "version"}, "Print the agent and protocol version and exit.");
    const QCommandLineOption listen("listen",
                                    "Listen on ADDR:PORT (IPv4, or [IPv6]:PORT; port 0 = ephemeral). "
                                    "Default 127.0.0.1:7600.",
                                    "ADDR:PORT", "127.0.0.1:7600");
    const QCommandLineOption tokenFile("token-file", "Read the controllers' bearer token from FILE (required).",
                                       "FILE");
    const QCommandLineOption tlsCert("tls-cert", "Serve wss:// with this PEM certificate (needs --tls-key).", "FILE");
    const QCommandLineOption tlsKey("tls-key", "PEM private key for --tls-cert.", "FILE");
    const QCommandLineOption allowPeer("allow-peer",
                                       "Let client runs connect to peers in CIDR (repeatable). Loopback is "
                                       "allowed unless --no-loopback-peers.",
                                       "CIDR");
    const QCommandLineOption noLoopback("no-loopback-peers",
                                        "Do not let client runs connect to loopback addresses (only "
                                        "--allow-peer ones).");
    const QCommandLineOption maxRuns("max-runs", "At most N runs at once (default 4, 1..64).", "N", "4");
    const QCommandLineOption maxDuration("max-duration", "Refuse runs longer than S seconds (default 3600).", "S",
                                         "3600");
    const QCommandLineOption grace(
        "disconnect-grace-ms", "Stop a vanished controller's runs after MS milliseconds (default 2000).", "MS", "2000");
    const QCommandLineOption httpRoot("http-root",
                                      "Let http server runs serve files under DIR (params.root); without it they "
                                      "serve only the generated page.",
                                      "DIR");
    const QCommandLineOption metrics(
        "metrics",
        "Serve Prometheus metrics at http://ADDR:PORT/metrics (agent, runs, libsmcr engine counters) to "
        "loopback and --allow-peer scrapers. Off by default.",
        "ADDR:PORT");
    const QCommandLineOption cpu("cpu", "Run on CPU N only, like taskset -c N (default: not pinned).", "N");
    const QCommandLineOption tool("tool",
                                  "Run the tool program NAME (qperf, nginx, wrk, redis-server, redis-benchmark, "
                                  "iperf3, smcr_run, smc_run) from PATH instead of looking on $PATH (repeatable).",
                                  "NAME=PATH");
    parser.addOptions({help, version, listen, tokenFile, tlsCert, tlsKey, allowPeer, noLoopback, maxRuns, maxDuration,
                       grace, httpRoot, metrics, cpu, tool});

    if (!parser.parse(arguments)) {
        usageError(parser.errorText());
        return ParseOutcome::exitUsage;
    }
    if (parser.isSet(help)) {
        std::printf("%s", qPrintable(parser.helpText()));
        return ParseOutcome::exitOk;
    }
    if (parser.isSet(version)) {
        std::printf("smclab-agent %s (control protocol %s)\n", smcr::versionString(), "1.0");
        return ParseOutcome::exitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        usageError("unexpected argument '" + parser.positionalArguments().first() + "'");
        return ParseOutcome::exitUsage;
    }
    QString why;
    const auto endpoint = protocol::parseEndpoint(parser.value(listen), &why);
    if (!endpoint) {
        usageError("--listen: " + why);
        return ParseOutcome::exitUsage;
    }
    options->listen = *endpoint;
    if (!parser.isSet(tokenFile)) {
        usageError("--token-file is required");
        return ParseOutcome::exitUsage;
    }
    options->tokenFile = parser.value(tokenFile);
    options->tlsCertFile = parser.value(tlsCert);
    options->tlsKeyFile = parser.value(tlsKey);
    if (options->tlsCertFile.isEmpty() != options->tlsKeyFile.isEmpty()) {
        usageError("--tls-cert and --tls-key go together");
        return ParseOutcome::exitUsage;
    }
    options->allowPeers = parser.values(allowPeer);
    options->allowLoopbackPeers = !parser.isSet(noLoopback);
    bool ok = false;
    options->maxRuns = parser.value(maxRuns).toInt(&ok);
    if (!ok || options->maxRuns < 1 || options->maxRuns > 64) {
        usageError("--max-runs must be 1..64");
        return ParseOutcome::exitUsage;
    }
    const qint64 seconds = parser.value(maxDuration).toLongLong(&ok);
    if (!ok || seconds < 1 || seconds > 86'400) {
        usageError("--max-duration must be 1..86400 seconds");
        return ParseOutcome::exitUsage;
    }
    options->maxDurationMs = seconds * 1000;
    options->disconnectGraceMs = parser.value(grace).toLongLong(&ok);
    if (!ok || options->disconnectGraceMs < 0 || options->disconnectGraceMs > 600'000) {
        usageError("--disconnect-grace-ms must be 0..600000");
        return ParseOutcome::exitUsage;
    }
    options->httpRoot = parser.value(httpRoot);
    if (parser.isSet(metrics)) {
        const auto metricsEndpoint = protocol::parseEndpoint(parser.value(metrics), &why);
        if (!metricsEndpoint) {
            usageError("--metrics: " + why);
            return ParseOutcome::exitUsage;
        }
        options->metrics = *metricsEndpoint;
    }
    if (parser.isSet(cpu)) {
        options->cpu = parser.value(cpu).toInt(&ok);
        if (!ok || options->cpu < 0 || options->cpu >= CPU_SETSIZE) {
            usageError("--cpu must be a CPU number (0.." + QString::number(CPU_SETSIZE - 1) + ")");
            return ParseOutcome::exitUsage;
        }
    }
    for (const QString& entry : parser.values(tool)) {
        const qsizetype eq = entry.indexOf('=');
        if (eq <= 0) {
            usageError("--tool takes NAME=PATH, got '" + entry + "'");
            return ParseOutcome::exitUsage;
        }
        options->toolPaths[entry.left(eq).toStdString()] = entry.mid(eq + 1).toStdString();
    }
    return ParseOutcome::run;
}

}  // namespace smclab::daemon
