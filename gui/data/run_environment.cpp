#include "data/run_environment.h"

#include <QObject>
#include <QStringList>

#include "orchestrator/host_load.h"
#include "smclab/db/result_store.h"

namespace smclab::gui {

QString wireText(const db::HostFacts& facts) {
    const QString model = facts.value(QStringLiteral("wire.model"));
    if (model.isEmpty()) return {};
    QString link = model;
    const double gbps = facts.value(QStringLiteral("wire.bandwidth_gbps")).toDouble();
    const double latencyNs = facts.value(QStringLiteral("wire.latency_ns")).toDouble();
    if (gbps > 0 || latencyNs > 0) {
        link += QObject::tr(" (%1, %2 ns one way)")
                    .arg(gbps > 0 ? QObject::tr("%1 Gbit/s").arg(gbps) : QObject::tr("unlimited rate"))
                    .arg(latencyNs);
    }
    QStringList tcp;
    for (const char* key : {"wire.tcp_path", "wire.tcp_rate"}) {
        const QString value = facts.value(QLatin1String(key));
        if (!value.isEmpty()) tcp << value;
    }
    const QString delay = facts.value(QStringLiteral("wire.tcp_delay"));
    if (!delay.isEmpty()) tcp << QObject::tr("delay %1").arg(delay);
    // The lab's probe of the veth (locallab/veth_probe.h): below the model, TCP measured the host.
    const double capacity = facts.value(QStringLiteral("wire.tcp_capacity_gbps")).toDouble();
    if (capacity > 0) {
        const bool limited = facts.value(QStringLiteral("wire.tcp_host_limited")) == QLatin1String("true");
        tcp << (limited ? QObject::tr("HOST-LIMITED to %1 Gbit/s by this host's veth").arg(capacity, 0, 'f', 2)
                        : QObject::tr("veth carries %1 Gbit/s").arg(capacity, 0, 'f', 2));
    }
    return tcp.isEmpty() ? QObject::tr("SMC link %1").arg(link)
                         : QObject::tr("SMC link %1; TCP over %2").arg(link, tcp.join(QStringLiteral(", ")));
}

QString wireNote(const db::HostFacts& facts) {
    return facts.value(QStringLiteral("wire"));
}

bool hostBusy(const db::HostFacts& facts) {
    return facts.value(QLatin1String(orchestrator::kHostBusyFact)) == QLatin1String("yes");
}

QString hostLoadText(const db::HostFacts& facts) {
    const QString verdict = facts.value(QLatin1String(orchestrator::kHostBusyFact));
    if (verdict.isEmpty()) return {};
    if (verdict == QLatin1String("yes")) {
        const QString reason = facts.value(QLatin1String(orchestrator::kHostBusyReasonFact));
        return reason.isEmpty() ? QObject::tr("busy host") : QObject::tr("busy host: %1").arg(reason);
    }
    const QString other = facts.value(QLatin1String(orchestrator::kHostOtherCpuFact));
    return other.isEmpty() ? QObject::tr("quiet host")
                           : QObject::tr("quiet host (other processes %1% of a core)").arg(other);
}

}  // namespace smclab::gui

namespace smclab::gui {

smcr::Result<CampaignEnvironment> CampaignEnvironment::load(db::ResultStore& store, qint64 campaignId) {
    CampaignEnvironment out;
    const auto fact = [&](const char* name) {
        return store.campaignRunFact(campaignId, smcr::Side::client, QLatin1String(name));
    };
    auto busy = fact(orchestrator::kHostBusyFact);
    if (!busy) return smcr::fail(busy.error());
    auto reasons = fact(orchestrator::kHostBusyReasonFact);
    if (!reasons) return smcr::fail(reasons.error());
    auto wires = fact("wire");
    if (!wires) return smcr::fail(wires.error());
    auto models = fact("wire.model");
    if (!models) return smcr::fail(models.error());
    out.judgedRuns = static_cast<int>(busy->size());
    for (auto it = busy->begin(); it != busy->end(); ++it) {
        if (it.value() == QLatin1String("yes")) out.busyReasonByRun.insert(it.key(), reasons->value(it.key()));
    }
    for (const QString& wire : wires->values()) {
        if (!wire.isEmpty() && !out.wires.contains(wire)) out.wires << wire;
    }
    for (const QString& model : models->values()) {
        if (!model.isEmpty() && !out.wireModels.contains(model)) out.wireModels << model;
    }
    // The orchestrator's session facts (run_record.h): a resumed campaign.
    auto started = fact("session.started");
    if (!started) return smcr::fail(started.error());
    auto resumed = fact("session.resumed");
    if (!resumed) return smcr::fail(resumed.error());
    for (const QString& session : started->values()) {
        if (!session.isEmpty() && !out.sessions.contains(session)) out.sessions << session;
    }
    out.sessions.sort();  // ISO 8601: time order
    out.resumed = resumed->values().contains(QStringLiteral("yes"));
    return out;
}

QString CampaignEnvironment::summary() const {
    QStringList parts;
    if (!wireModels.isEmpty()) parts << QObject::tr("wire %1").arg(wireModels.join(QStringLiteral(", ")));
    // Every wire the runs crossed: a resumed campaign may have run on another lab.
    if (wires.size() > 1) parts << QStringLiteral("\u2691 ") + QObject::tr("%1 different wires").arg(wires.size());
    if (resumed) {
        parts << (sessions.size() > 1
                      ? QObject::tr("resumed (%1 sessions, the last from %2)").arg(sessions.size()).arg(sessions.back())
                      : QObject::tr("resumed"));
    }
    if (!busyReasonByRun.isEmpty()) {
        parts << QStringLiteral("\u2691 ") +
                     QObject::tr("%1 of %2 runs on a busy host").arg(busyReasonByRun.size()).arg(judgedRuns);
    }
    return parts.join(QStringLiteral("; "));
}

QString CampaignEnvironment::toolTip() const {
    QStringList lines;
    for (const QString& wire : wires) lines << QObject::tr("Wire: %1").arg(wire);
    if (resumed) lines << QObject::tr("Resumed: sessions started %1").arg(sessions.join(QStringLiteral(", ")));
    if (!busyReasonByRun.isEmpty()) {
        QStringList reasons;
        for (const QString& reason : busyReasonByRun) {
            if (!reason.isEmpty() && !reasons.contains(reason) && reasons.size() < 3) reasons << reason;
        }
        lines << QObject::tr("%1 of %2 runs ran on a busy host%3: their numbers may be low.")
                     .arg(busyReasonByRun.size())
                     .arg(judgedRuns)
                     .arg(reasons.isEmpty() ? QString()
                                            : QStringLiteral(" (%1)").arg(reasons.join(QStringLiteral("; "))));
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace smclab::gui
