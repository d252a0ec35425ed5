// What a run's connections did, read from the counters stored with it
// (db::Counter, both ends): how many were SMC-R, how many fell back to TCP
// and why, and how many application bytes went over RDMA and over TCP.
// Pure; the report marks cells with it, the CLI and the GUI show it per run.
//
// The counters come from three places, all read here:
//   - libsmcr's engine (built-in workloads over smcr): smcr.clnt_success,
//     smcr.srv_success, smcr.clnt_fallbacks, smcr.srv_fallbacks,
//     smcr.fallback.client|server.REASON, smcr.tx_bytes / smcr.rx_bytes
//     (written to and read from RMBs, i.e. over RDMA), and the smcr
//     transport's smcr.tcp_tx_bytes / smcr.tcp_rx_bytes (bytes its
//     fallen-back connections moved over TCP);
//   - smcr_run's preload (tool workloads): smc_connections,
//     tcp_connections, smc_tx_bytes, smc_rx_bytes, tcp_tx_bytes,
//     tcp_rx_bytes and fallbacks.client|server.REASON;
//   - the kernel's SMC statistics over a ksmc run (agents/transports,
//     kernel_smc_counters.h): kernel.smcr.clnt_v2_succ_cnt and the other
//     successes, kernel.smcr.tx_bytes / rx_bytes, kernel.fallback.SIDE.REASON;
//   - nothing for kernel TCP: a side without any of them did not propose
//     SMC and is not judged.
//
// A run is judged from the side that proposes SMC, the client (a plain TCP
// client against a libsmcr listener, the fallback preset, runs TCP by
// design); the server's counters add reasons it saw.
#pragma once

#include <QList>
#include <QMap>
#include <QString>

#include "smclab/db/types.h"

namespace smclab::report {

// Below this share of the application's bytes over RDMA a run's figure is
// a TCP figure, not an SMC one.
inline constexpr double kMinRdmaShare = 0.9;

struct ConnectionUse {
    bool judged = false;  // the client proposed SMC (it has SMC counters)
    qint64 smcConnections = 0;
    qint64 tcpConnections = 0;              // connections that ran over TCP (fell back)
    QMap<QString, qint64> fallbackReasons;  // "PEERNOSMC" -> connections
    qint64 rdmaBytes = 0;                   // application bytes over RDMA (the client's, both directions)
    qint64 tcpBytes = 0;                    // application bytes over TCP
    bool bytesKnown = false;                // both byte counts were stored (older runs lack the TCP ones)

    // Some connection fell back.
    bool fellBack() const { return judged && (tcpConnections > 0 || !fallbackReasons.isEmpty()); }
    // The data went over TCP: no SMC-R connection at all, or under
    // kMinRdmaShare of the bytes over RDMA (by connections when the bytes
    // over TCP were not stored).
    bool overTcp() const;
    // Share of the application bytes over RDMA, 0..1; -1 when unknown.
    double rdmaShare() const;
    // "PEERNOSMC x2, DECL_TIMEOUT" (reasons with their counts, or
    // "reason not recorded").
    QString reasonsText() const;
    // One line: "SMC-R 0 of 2 connections, fell back: PEERNOSMC x2; 0% of
    // 1048576 bytes over RDMA" (empty when not judged).
    QString summary() const;
};

ConnectionUse connectionUse(const QList<db::Counter>& counters);

}  // namespace smclab::report
