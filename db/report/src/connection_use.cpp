#include "smclab/report/connection_use.h"

#include <algorithm>

#include <QStringList>

namespace smclab::report {

namespace {

using Values = QMap<QString, qint64>;

// One end's counters, read in whichever vocabulary it stored.
struct SideUse {
    bool proposesSmc = false;
    qint64 smc = 0;
    qint64 tcp = 0;
    QMap<QString, qint64> reasons;
    qint64 rdmaBytes = 0;
    qint64 tcpBytes = 0;
    bool bytesKnown = false;
};

qint64 sumOf(const Values& values, std::initializer_list<const char*> names) {
    qint64 sum = 0;
    for (const char* name : names) sum += values.value(QLatin1String(name));
    return sum;
}

bool hasAny(const Values& values, std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(),
                       [&](const char* name) { return values.contains(QLatin1String(name)); });
}

// Fallback reasons under any of the prefixes the engine and the preload use
// ("smcr.fallback.client.PEERNOSMC", "fallbacks.server.not_local"); one
// connection may be counted by both (the preload's and its engine's), so a
// reason keeps its highest count.
void addReasons(const Values& values, QMap<QString, qint64>& reasons) {
    static const QStringList kPrefixes = {QStringLiteral("smcr.fallback.client."),
                                          QStringLiteral("smcr.fallback.server."),
                                          QStringLiteral("fallbacks.client."),
                                          QStringLiteral("fallbacks.server."),
                                          QStringLiteral("fallbacks."),
                                          QStringLiteral("kernel.fallback.client."),
                                          QStringLiteral("kernel.fallback.server.")};
    for (auto it = values.begin(); it != values.end(); ++it) {
        if (it.value() <= 0) continue;
        for (const QString& prefix : kPrefixes) {
            if (!it.key().startsWith(prefix)) continue;
            const QString reason = it.key().mid(prefix.size());
            reasons[reason] = std::max(reasons.value(reason), it.value());
            break;
        }
    }
}

SideUse readSide(const Values& values) {
    SideUse side;
    if (hasAny(values, {"smc_connections", "tcp_connections"})) {
        // smcr_run's preload: every tracked socket of the program.
        side.proposesSmc = true;
        side.smc = values.value(QStringLiteral("smc_connections"));
        side.tcp = values.value(QStringLiteral("tcp_connections"));
        side.rdmaBytes = sumOf(values, {"smc_tx_bytes", "smc_rx_bytes"});
        side.tcpBytes = sumOf(values, {"tcp_tx_bytes", "tcp_rx_bytes"});
        side.bytesKnown =
            hasAny(values, {"smc_tx_bytes", "smc_rx_bytes"}) && hasAny(values, {"tcp_tx_bytes", "tcp_rx_bytes"});
    } else if (hasAny(values, {"smcr.clnt_success", "smcr.srv_success", "smcr.clnt_fallbacks", "smcr.srv_fallbacks",
                               "smcr.fell_back"})) {
        // libsmcr's engine (built-in workloads over smcr).
        side.proposesSmc = true;
        side.smc = sumOf(values, {"smcr.clnt_success", "smcr.srv_success"});
        side.tcp = std::max(sumOf(values, {"smcr.clnt_fallbacks", "smcr.srv_fallbacks"}),
                            values.value(QStringLiteral("smcr.fell_back")));
        side.rdmaBytes = sumOf(values, {"smcr.tx_bytes", "smcr.rx_bytes"});
        side.tcpBytes = sumOf(values, {"smcr.tcp_tx_bytes", "smcr.tcp_rx_bytes"});
        side.bytesKnown = hasAny(values, {"smcr.tcp_tx_bytes", "smcr.tcp_rx_bytes"});
    } else if (hasAny(values, {"kernel.smcr.clnt_v1_succ_cnt", "kernel.smcr.clnt_v2_succ_cnt",
                               "kernel.smcr.srv_v1_succ_cnt", "kernel.smcr.srv_v2_succ_cnt"})) {
        // The kernel's own SMC statistics over a ksmc run (its namespace's
        // differences): successes of either version and side, and the
        // fallbacks it counted by reason code.
        side.proposesSmc = true;
        side.smc = sumOf(values, {"kernel.smcr.clnt_v1_succ_cnt", "kernel.smcr.clnt_v2_succ_cnt",
                                  "kernel.smcr.srv_v1_succ_cnt", "kernel.smcr.srv_v2_succ_cnt"});
        for (auto it = values.begin(); it != values.end(); ++it)
            if (it.key().startsWith(QLatin1String("kernel.fallback."))) side.tcp += it.value();
        side.rdmaBytes = sumOf(values, {"kernel.smcr.tx_bytes", "kernel.smcr.rx_bytes"});
    }
    addReasons(values, side.reasons);
    return side;
}

}  // namespace

bool ConnectionUse::overTcp() const {
    if (!judged) return false;
    if (smcConnections == 0) return true;
    const double share = rdmaShare();
    if (share >= 0) return share < kMinRdmaShare;
    const double connections = static_cast<double>(smcConnections + tcpConnections);
    return static_cast<double>(smcConnections) / connections < kMinRdmaShare;
}

double ConnectionUse::rdmaShare() const {
    if (!bytesKnown || rdmaBytes + tcpBytes <= 0) return -1;
    return static_cast<double>(rdmaBytes) / static_cast<double>(rdmaBytes + tcpBytes);
}

QString ConnectionUse::reasonsText() const {
    if (fallbackReasons.isEmpty()) return QStringLiteral("reason not recorded");
    QStringList parts;
    for (auto it = fallbackReasons.begin(); it != fallbackReasons.end(); ++it)
        parts << (it.value() > 1 ? QStringLiteral("%1 x%2").arg(it.key()).arg(it.value()) : it.key());
    return parts.join(QStringLiteral(", "));
}

QString ConnectionUse::summary() const {
    if (!judged) return QString();
    QString text =
        QStringLiteral("SMC-R %1 of %2 connections").arg(smcConnections).arg(smcConnections + tcpConnections);
    if (fellBack()) text += QStringLiteral(", fell back: ") + reasonsText();
    const double share = rdmaShare();
    if (share >= 0) {
        text += QStringLiteral("; %1% of %2 bytes over RDMA")
                    .arg(QString::number(share * 100.0, 'f', 1))
                    .arg(rdmaBytes + tcpBytes);
    }
    return text;
}

ConnectionUse connectionUse(const QList<db::Counter>& counters) {
    Values client;
    Values server;
    for (const db::Counter& c : counters) (c.side == smcr::Side::server ? server : client).insert(c.name, c.value);
    const SideUse a = readSide(client);
    const SideUse b = readSide(server);
    ConnectionUse use;
    use.judged = a.proposesSmc;
    if (!use.judged) return use;
    use.smcConnections = a.smc;
    // A connection the server declined counts on both ends: the larger count.
    use.tcpConnections = std::max(a.tcp, b.proposesSmc ? b.tcp : 0);
    use.fallbackReasons = a.reasons;
    for (auto it = b.reasons.begin(); it != b.reasons.end(); ++it)
        use.fallbackReasons[it.key()] = std::max(use.fallbackReasons.value(it.key()), it.value());
    use.rdmaBytes = a.rdmaBytes;
    use.tcpBytes = a.tcpBytes;
    use.bytesKnown = a.bytesKnown;
    return use;
}

}  // namespace smclab::report
