#include "host_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QHash>
#include <QHostInfo>
#include <QNetworkInterface>

#include "smc_netlink.h"
#include "transport.h"
#include "workload.h"

#ifdef SMCLAB_HAVE_FABRIC_REGISTRY
#include <smcr/fabric.h>
#endif

namespace smclab::daemon {

namespace {

QString readLine(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readLine()).trimmed();
}

QString cpuModel() {
    QFile file("/proc/cpuinfo");
    if (!file.open(QIODevice::ReadOnly)) return {};
    // /proc files report size 0, so read until EOF rather than trusting atEnd().
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
    for (const QString& line : lines) {
        // x86 says "model name", arm64 and s390x name it differently.
        if (line.startsWith("model name") || line.startsWith("Processor") || line.startsWith("cpu model")) {
            return line.section(':', 1).trimmed();
        }
    }
    return {};
}

protocol::HostFacts hostFacts() {
    protocol::HostFacts facts;
    facts.hostname = QHostInfo::localHostName();
    facts.cpuModel = cpuModel();
    facts.cpuCount = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    struct utsname names = {};
    if (::uname(&names) == 0) {
        facts.kernelName = names.sysname;
        facts.kernelRelease = names.release;
        facts.kernelVersion = names.version;
        facts.machine = names.machine;
    }
    // A VM lab host's guest.sh says how QEMU runs it (agents/lab/vm).
    const QString accel = qEnvironmentVariable("SMCLAB_VM_ACCEL");
    if (accel == QLatin1String("tcg") || accel == QLatin1String("kvm")) facts.virtualization = "qemu-" + accel;
    return facts;
}

QList<protocol::NicInfo> nics() {
    QList<protocol::NicInfo> list;
    for (const QNetworkInterface& nic : QNetworkInterface::allInterfaces()) {
        protocol::NicInfo info;
        info.name = nic.name();
        info.mac = nic.hardwareAddress();
        info.mtu = nic.maximumTransmissionUnit();
        info.up = nic.flags().testFlag(QNetworkInterface::IsUp);
        for (const QNetworkAddressEntry& entry : nic.addressEntries()) {
            info.addresses.append(entry.ip().toString() + '/' + QString::number(entry.prefixLength()));
        }
        list.append(info);
    }
    return list;
}

QList<protocol::Availability> fabrics() {
    QList<protocol::Availability> list;
#ifdef SMCLAB_HAVE_FABRIC_REGISTRY
    for (const auto& backend : smcr::fabric::backends()) {
        const smcr::Status status = backend.probe();
        list.append(
            {backend.name, status.ok(), status.ok() ? QString() : QString::fromStdString(status.error().message)});
    }
#endif
    return list;
}

}  // namespace

QList<protocol::RdmaDevice> probeRdmaDevices(const QString& sysfsRoot) {
    QList<protocol::RdmaDevice> devices;
    const QDir root(sysfsRoot);
    for (const QString& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        protocol::RdmaDevice device;
        device.name = name;
        const QDir ports(root.filePath(name + "/ports"));
        for (const QString& port : ports.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QString state = readLine(ports.filePath(port + "/state"));           // "4: ACTIVE"
            const QString linkLayer = readLine(ports.filePath(port + "/link_layer"));  // "Ethernet"
            device.ports.append(QString("%1: %2%3")
                                    .arg(port, state.section(':', 1).trimmed(),
                                         linkLayer.isEmpty() ? QString() : " (" + linkLayer + ")"));
        }
        const QDir net(root.filePath(name + "/device/net"));
        const QStringList netDevices = net.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        if (!netDevices.isEmpty()) device.netDevice = netDevices.first();
        devices.append(device);
    }
    return devices;
}

// What kernel SMC-R runs with here (its UEIDs, pnet table, fallbacks so
// far), for the controller's host view: on a VM lab host this is what
// decides whether a ksmc column can run over SMC-R at all.
protocol::KernelSmcrState kernelSmcrState() {
    protocol::KernelSmcrState state;
    state.reported = true;
    QStringList errors;
    if (const auto ueids = transports::smcnl::listUeids()) {
        for (const std::string& ueid : *ueids) state.ueids.append(QString::fromStdString(ueid));
    } else {
        errors.append(QString::fromStdString(ueids.error().message));
    }
    if (const auto pnets = transports::smcnl::listPnets()) {
        // One line per PNETID with every device it ties, netdevs first: the
        // kernel lists each netdev and RDMA port on its own.
        QStringList ids;
        QHash<QString, QStringList> netdevs;
        QHash<QString, QStringList> ports;
        for (const transports::smcnl::PnetEntry& e : *pnets) {
            const QString id = QString::fromStdString(e.pnetid);
            if (!ids.contains(id)) ids.append(id);
            if (!e.ethName.empty()) netdevs[id].append(QString::fromStdString(e.ethName));
            if (!e.ibName.empty())
                ports[id].append(QString("%1 port %2").arg(QString::fromStdString(e.ibName)).arg(e.ibPort));
        }
        for (const QString& id : std::as_const(ids))
            state.pnet.append(QString("%1: %2").arg(id, (netdevs.value(id) + ports.value(id)).join(", ")));
    } else {
        errors.append(QString::fromStdString(pnets.error().message));
    }
    if (const auto fallbacks = transports::smcnl::readFallbacks()) {
        for (const transports::smcnl::FallbackCount& f : *fallbacks) {
            state.fallbacks.append(QString("%1 %2: %3")
                                       .arg(f.server ? "server" : "client",
                                            QString::fromStdString(transports::smcnl::describeFallbackReason(f.reason)))
                                       .arg(f.count));
        }
    } else {
        errors.append(QString::fromStdString(fallbacks.error().message));
    }
    state.error = errors.join("; ");
    return state;
}

protocol::Capabilities probeCapabilities(const protocol::AgentLimits& limits) {
    protocol::Capabilities caps;
    caps.host = hostFacts();
    caps.nics = nics();
    caps.rdmaDevices = probeRdmaDevices();
    caps.fabrics = fabrics();
    for (const transports::TransportEntry& entry : transports::transportRegistry()) {
        const transports::Availability availability = entry.probe();
        const protocol::Availability item{entry.name, availability.available,
                                          QString::fromStdString(availability.reason)};
        caps.transports.append(item);
        if (item.name == "ksmc") caps.ksmc = item;
    }
    if (caps.ksmc.name.isEmpty()) caps.ksmc = {"ksmc", false, "this build has no ksmc transport"};
    if (caps.ksmc.available) caps.kernelSmcr = kernelSmcrState();
    for (const workloads::Workload* workload : workloads::workloadRegistry()) {
        caps.workloads.append(QString::fromStdString(workload->name()));
    }
    caps.limits = limits;
    return caps;
}

}  // namespace smclab::daemon
