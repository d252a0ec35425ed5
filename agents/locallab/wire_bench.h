// What TCP does over the local lab's wire against this host's loopback: the
// real qperf and the lab's own tcp_bw (`smclab serve tcp` / `smclab load
// tcp_bw`), each over loopback and over the veth the local lab makes for a
// link model, in interleaved rounds, pinned as the lab pins its agents
// (server on the second CPU, client on the first). A TCP column in a
// comparison is only as good as this: over the veth it should move what
// loopback moves, and our tcp_bw what qperf moves.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <smcr/result.h>

#include <QList>
#include <QString>

#include "wire.h"

namespace smclab::locallab {

// The four measured paths, in the order of a round.
enum class WirePath { qperfLoopback, qperfVeth, tcpBwLoopback, tcpBwVeth };
inline constexpr int kWirePaths = 4;
QString wirePathName(WirePath path);  // "qperf lo", "qperf veth", ...

struct WireBenchOptions {
    QString linkModel = QStringLiteral("cx4lx-vf");
    std::vector<uint64_t> sizes;  // message sizes in bytes
    int durationMs = 1000;        // each client run's -t, whole seconds (qperf's rule)
    int repetitions = 3;          // interleaved rounds
    QString smclabProgram;        // `smclab`, for serve and load
    QString qperfProgram = QStringLiteral("qperf");
    VethOptions veth;  // its receiveCpu is the servers' CPU
};

struct WireBenchRow {
    uint64_t msgSize = 0;
    std::array<QList<double>, kWirePaths> mbps;  // MB/s per repetition, per path
};

struct WireBenchResult {
    WireRecord wire;
    std::vector<WireBenchRow> rows;
    // TCP retransmissions counted on this host while each path ran (the
    // sender's side): a wire that reorders shows here.
    std::array<qint64, kWirePaths> retransmits{};
    std::array<int, 2> cpus{-1, -1};  // client, server; -1: not pinned
};

// Makes the wire, starts the servers, runs every (round, size, path) and
// stops everything. `progress(done, total, what)` after each run. Errors:
// no namespace (not root), qperf or smclab missing, a client that failed
// (with what it printed).
smcr::Result<WireBenchResult> benchWire(const WireBenchOptions& options,
                                        const std::function<void(int, int, const QString&)>& progress = {});

// qperf's "bw = 1.25 GB/sec" (also `smclab load`'s) in MB/s; nullopt if
// the text has no bandwidth line.
std::optional<double> parseQperfBandwidth(const QString& output);

}  // namespace smclab::locallab
