// smclab-agent's command line.
#pragma once

#include <optional>

#include <QString>
#include <QStringList>

#include "protocol/endpoint.h"

namespace smclab::daemon {

struct DaemonOptions {
    protocol::Endpoint listen;  // default 127.0.0.1:7600
    QString tokenFile;
    QString tlsCertFile;
    QString tlsKeyFile;
    QStringList allowPeers;  // CIDRs, in addition to loopback
    bool allowLoopbackPeers = true;  // --no-loopback-peers: false
    int maxRuns = 4;
    qint64 maxDurationMs = 3'600'000;
    qint64 disconnectGraceMs = 2000;
    QString httpRoot;
    std::optional<protocol::Endpoint> metrics;  // --metrics ADDR:PORT; none: no metrics endpoint  // directory under which http servers may serve files (empty: none)
};

enum class ParseOutcome { invalid = 0, run, exitOk, exitUsage };

// Parses argv (without running anything). On exitOk the help or version text
// has been printed to stdout; on exitUsage an error has gone to stderr.
ParseOutcome parseOptions(const QStringList& arguments, DaemonOptions* options);

}  // namespace smclab::daemon
