#include "host_load.h"

#include <algorithm>

namespace smclab::orchestrator {

namespace {

std::optional<double> number(const QJsonObject& o, const char* key) {
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

QString pct(double value) {
    return QString::number(value, 'f', 1);
}

}  // namespace

HostLoad judgeHostLoad(const QJsonObject& client, const QJsonObject& server, bool sameHost,
                       const QuietHostSpec& policy) {
    HostLoad load;
    // The client's view: it is the end whose numbers the tables show.
    const auto busy = number(client, "cpu_busy_pct");
    const auto own = number(client, "agent_cpu_pct");
    if (busy && own) {
        double other = *busy - *own;
        if (sameHost) other -= number(server, "agent_cpu_pct").value_or(0.0);
        load.otherCpuPct = std::max(0.0, other);
    }
    load.stealPct = number(client, "steal_pct");
    if (!sameHost) {
        // The server's host can be busy too; keep the worse of the two.
        const auto serverBusy = number(server, "cpu_busy_pct");
        const auto serverOwn = number(server, "agent_cpu_pct");
        if (serverBusy && serverOwn) {
            const double other = std::max(0.0, *serverBusy - *serverOwn);
            load.otherCpuPct = std::max(load.otherCpuPct.value_or(0.0), other);
        }
        if (const auto steal = number(server, "steal_pct"))
            load.stealPct = std::max(load.stealPct.value_or(0.0), *steal);
    }
    QStringList reasons;
    if (load.otherCpuPct && *load.otherCpuPct > policy.busyOtherCpuPct)
        reasons << QStringLiteral("other processes %1% of a core").arg(pct(*load.otherCpuPct));
    if (load.stealPct && *load.stealPct > policy.busyStealPct)
        reasons << QStringLiteral("steal %1%").arg(pct(*load.stealPct));
    load.busy = !reasons.isEmpty();
    load.reason = reasons.join(QStringLiteral(", "));
    return load;
}

void addHostStateFacts(db::HostFacts& facts, const QJsonObject& state) {
    for (auto it = state.begin(); it != state.end(); ++it) {
        const QJsonValue v = it.value();
        facts.insert(QStringLiteral("host_state.") + it.key(),
                     v.isDouble() ? QString::number(v.toDouble(), 'g', 6) : v.toVariant().toString());
    }
}

void addHostLoadFacts(db::HostFacts& facts, const HostLoad& load) {
    if (!load.known()) return;
    facts.insert(QLatin1String(kHostBusyFact), load.busy ? QStringLiteral("yes") : QStringLiteral("no"));
    if (load.busy) facts.insert(QLatin1String(kHostBusyReasonFact), load.reason);
    if (load.otherCpuPct) facts.insert(QLatin1String(kHostOtherCpuFact), QString::number(*load.otherCpuPct, 'f', 1));
}

}  // namespace smclab::orchestrator
