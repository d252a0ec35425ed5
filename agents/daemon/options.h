// smclab-agent's command line.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <QHostAddress>
#include <QString>
#include <QStringList>

#include "protocol/endpoint.h"

namespace smclab::daemon {

struct DaemonOptions {
    protocol::Endpoint listen;  // default 127.0.0.1:7600
    QString tokenFile;
    QString tlsCertFile;
    QString tlsKeyFile;
    QStringList allowPeers;          // CIDRs, in addition to loopback
    bool allowLoopbackPeers = true;  // --no-loopback-peers: false
    int maxRuns = 4;
    qint64 maxDurationMs = 3'600'000;
    qint64 disconnectGraceMs = 2000;
    QString httpRoot;                           // directory under which http servers may serve files (empty: none)
    std::optional<protocol::Endpoint> metrics;  // --metrics ADDR:PORT; none: no metrics endpoint
    // --cpu: the CPU the whole agent runs on (taskset -c N, as the cover
    // letters pin qperf), -1 = not pinned. Two agents of a local lab on one
    // two-core host take one CPU each, as `smclab bench` pins its two ends:
    // unpinned, the scheduler may put both busy-polling ends on one CPU,
    // where each spins away the time its peer needs (tcp_lat 1 B 1.5 us
    // pinned, 60 us unpinned beside a build).
    int cpu = -1;
    // --tool NAME=PATH: where the tool workloads find qperf, nginx, wrk,
    // redis-server, redis-benchmark, iperf3, smcr_run, smc_run instead of PATH.
    std::map<std::string, std::string> toolPaths;
    // --data-address: where server runs listen when the controller names no
    // address, and so the address their clients are told to reach: the
    // host's address on the lab's data network, where the control port is
    // reached another way (a VM lab host's agent behind a forwarded port).
    QHostAddress dataAddress;
};

enum class ParseOutcome { invalid = 0, run, exitOk, exitUsage };

// Parses argv (without running anything). On exitOk the help or version text
// has been printed to stdout; on exitUsage an error has gone to stderr.
ParseOutcome parseOptions(const QStringList& arguments, DaemonOptions* options);

}  // namespace smclab::daemon
