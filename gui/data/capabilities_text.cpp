#include "data/capabilities_text.h"

#include <QObject>
#include <QStringList>

namespace smclab::gui {

namespace {

QString row(const QString& key, const QString& value) {
    return QStringLiteral("<tr><th align=\"left\" valign=\"top\">%1</th><td>%2</td></tr>")
        .arg(key.toHtmlEscaped(), value);
}

QString availabilityList(const QList<protocol::Availability>& items) {
    if (items.isEmpty()) return QObject::tr("none reported");
    QStringList parts;
    for (const protocol::Availability& a : items) {
        parts.append(
            a.available
                ? QStringLiteral("<b>%1</b> <span style=\"color:#1b7f3a\">available</span>").arg(a.name.toHtmlEscaped())
                : QStringLiteral("<b>%1</b> <span style=\"color:#b02222\">unavailable</span>: %2")
                      .arg(a.name.toHtmlEscaped(), a.reason.toHtmlEscaped()));
    }
    return parts.join(QStringLiteral("<br>"));
}

// What kernel SMC-R needs over soft-RoCE, and what it already refused: a
// ksmc column on a host without a UEID falls back to TCP (SMC-Rv2 cannot
// match), and the fallbacks counted so far say why earlier runs did.
QString kernelSmcrText(const protocol::KernelSmcrState& state) {
    QStringList lines;
    lines << (state.ueids.isEmpty()
                  ? QStringLiteral("<span style=\"color:#b02222\">%1</span>")
                        .arg(QObject::tr("no UEID: SMC-Rv2 (the only SMC-R soft-RoCE carries) cannot connect; "
                                         "smclab ksmc ueid add NAME")
                                 .toHtmlEscaped())
                  : QObject::tr("UEID %1").arg(state.ueids.join(QStringLiteral(", "))).toHtmlEscaped());
    lines << (state.pnet.isEmpty() ? QObject::tr("pnet table empty")
                                   : QObject::tr("pnet %1").arg(state.pnet.join(QStringLiteral("; "))))
                 .toHtmlEscaped();
    lines << (state.fallbacks.isEmpty()
                  ? QObject::tr("no fallback to TCP counted since boot")
                  : QObject::tr("fallbacks to TCP since boot: %1").arg(state.fallbacks.join(QStringLiteral("; "))))
                 .toHtmlEscaped();
    if (!state.error.isEmpty()) lines << QObject::tr("could not read: %1").arg(state.error).toHtmlEscaped();
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace

QString capabilitiesHtml(const QString& address, const protocol::Hello& hello) {
    const protocol::Capabilities& caps = hello.capabilities;
    QString out = QStringLiteral("<h3>%1</h3><table cellspacing=\"2\" cellpadding=\"3\">").arg(address.toHtmlEscaped());
    out +=
        row(QObject::tr("Agent"),
            QObject::tr("smclab-agent %1, protocol %2").arg(hello.agentVersion, hello.protocolVersion).toHtmlEscaped());
    out += row(QObject::tr("Host"), caps.host.hostname.toHtmlEscaped());
    out +=
        row(QObject::tr("CPU"), QObject::tr("%1 x %2").arg(caps.host.cpuCount).arg(caps.host.cpuModel).toHtmlEscaped());
    out += row(QObject::tr("Kernel"), QStringLiteral("%1 %2 (%3)")
                                          .arg(caps.host.kernelName, caps.host.kernelRelease, caps.host.machine)
                                          .toHtmlEscaped());
    out += row(QObject::tr("Transports"), availabilityList(caps.transports));
    out += row(QObject::tr("Fabrics"), availabilityList(caps.fabrics));
    if (caps.ksmc.available || !caps.ksmc.reason.isEmpty()) {
        out += row(QObject::tr("Kernel SMC"),
                   caps.ksmc.available ? QObject::tr("available")
                                       : QObject::tr("unavailable: %1").arg(caps.ksmc.reason.toHtmlEscaped()));
    }
    if (caps.kernelSmcr.reported) out += row(QObject::tr("Kernel SMC-R"), kernelSmcrText(caps.kernelSmcr));
    QStringList devices;
    for (const protocol::RdmaDevice& d : caps.rdmaDevices) {
        devices.append(
            QStringLiteral("<b>%1</b>%2 %3")
                .arg(d.name.toHtmlEscaped(),
                     d.netDevice.isEmpty() ? QString() : QStringLiteral(" on ") + d.netDevice.toHtmlEscaped(),
                     d.ports.join(QStringLiteral("; ")).toHtmlEscaped()));
    }
    out += row(QObject::tr("RDMA devices"),
               devices.isEmpty() ? QObject::tr("none") : devices.join(QStringLiteral("<br>")));
    QStringList nics;
    for (const protocol::NicInfo& n : caps.nics) {
        // An interface without an address ends after its MTU, not in a comma.
        QString line = QStringLiteral("<b>%1</b> %2, MTU %3")
                           .arg(n.name.toHtmlEscaped(), n.up ? QObject::tr("up") : QObject::tr("down"))
                           .arg(n.mtu);
        if (!n.addresses.isEmpty())
            line += QStringLiteral(", ") + n.addresses.join(QStringLiteral(", ")).toHtmlEscaped();
        nics.append(line);
    }
    out += row(QObject::tr("Interfaces"),
               nics.isEmpty() ? QObject::tr("none reported") : nics.join(QStringLiteral("<br>")));
    out += row(QObject::tr("Workloads"), caps.workloads.join(QStringLiteral(", ")).toHtmlEscaped());
    out += row(QObject::tr("Limits"), QObject::tr("%1 runs at once, runs up to %2 s, samples every %3 ms or slower")
                                          .arg(caps.limits.maxRuns)
                                          .arg(static_cast<double>(caps.limits.maxDurationMs) / 1000.0)
                                          .arg(caps.limits.minSampleIntervalMs)
                                          .toHtmlEscaped());
    out += QStringLiteral("</table>");
    return out;
}

}  // namespace smclab::gui
