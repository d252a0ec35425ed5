#include "wire.h"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>

#include <sched.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStringList>

#include "veth_probe.h"

namespace smclab::locallab {

namespace {

namespace sim = smcr::fabric::sim;

// Runs ip or tc; on failure the error holds the command and what it printed.
smcr::Status runTool(const QString& program, const QStringList& args) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForStarted(5000)) {
        return smcr::fail(smcr::Errc::notSupported,
                          QStringLiteral("%1 not found (Debian package iproute2)").arg(program).toStdString());
    }
    if (!p.waitForFinished(10'000)) {
        p.kill();
        p.waitForFinished(1000);
        return smcr::fail(smcr::Errc::timedOut,
                          QStringLiteral("%1 %2: no answer in 10 s").arg(program, args.join(' ')).toStdString());
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QString out = QString::fromLocal8Bit(p.readAll()).trimmed();
        return smcr::fail(smcr::Errc::systemError,
                          QStringLiteral("%1 %2: %3").arg(program, args.join(' '), out).toStdString());
    }
    return {};
}

// tc's rate words: "25gbit", "800mbit".
QString rateText(double gbps) {
    if (gbps >= 1 && std::floor(gbps) == gbps) return QStringLiteral("%1gbit").arg(static_cast<qint64>(gbps));
    return QStringLiteral("%1mbit").arg(static_cast<qint64>(std::llround(gbps * 1000)));
}

// tbf's bucket must hold at least one timer tick of the rate (HZ may be as
// low as 100), or it shapes below the rate it was given.
qint64 burstBytes(double gbps) {
    const double perTick = gbps * 1e9 / 8 / 100;
    return std::max<qint64>(static_cast<qint64>(perTick), 256 * 1024);
}

std::atomic<int> g_wires{0};

// The last CPU this process may run on (the server agent's, where the lab
// pins its agents), 0 if the affinity cannot be read.
int lastAllowedCpu() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu) {
        if (CPU_ISSET(cpu, &set)) return cpu;
    }
    return 0;
}

// An rps_cpus bitmap with one CPU: hex words of 32 CPUs, most significant
// first, separated by commas ("2", "00000001,00000000").
QString cpuMask(int cpu) {
    QStringList words;
    for (int word = cpu / 32; word >= 0; --word) {
        const quint32 bits = word == cpu / 32 ? (1u << (cpu % 32)) : 0u;
        words << QStringLiteral("%1").arg(bits, word == cpu / 32 ? 1 : 8, 16, QLatin1Char('0'));
    }
    return words.join(QLatin1Char(','));
}

// Namespaces `smclab-<pid>-<n>` of lab processes that died without
// removing them (SIGKILL, a crash): each holds a veth whose root end and /30
// stay behind. A live pid keeps its namespace, whoever it now is.
void removeStaleNamespaces() {
    static const QRegularExpression name(QStringLiteral("^smclab-(\\d+)-\\d+$"));
    const QDir netns(QStringLiteral("/run/netns"));
    for (const QString& entry : netns.entryList(QDir::Files | QDir::System)) {
        const QRegularExpressionMatch m = name.match(entry);
        if (!m.hasMatch()) continue;
        const pid_t pid = static_cast<pid_t>(m.captured(1).toLongLong());
        if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
        (void)runTool(QStringLiteral("ip"), {"netns", "del", entry});
    }
}

// The shell words that write `mask` to every receive queue of `device`.
QString steeringScript(const QString& device, const QString& mask) {
    return QStringLiteral("for q in /sys/class/net/%1/queues/rx-*; do echo %2 > \"$q/rps_cpus\" || exit 1; done")
        .arg(device, mask);
}

}  // namespace

QJsonObject WireRecord::toJson() const {
    return QJsonObject{{QStringLiteral("model"), model},
                       {QStringLiteral("bandwidth_gbps"), bandwidthGbps},
                       {QStringLiteral("latency_ns"), static_cast<double>(latencyNs)},
                       {QStringLiteral("ethernet_mtu"), ethernetMtu},
                       {QStringLiteral("tcp_path"), tcpPath},
                       {QStringLiteral("tcp_rate"), tcpRate},
                       {QStringLiteral("tcp_steering"), tcpSteering},
                       {QStringLiteral("tcp_delay"), tcpDelay},
                       {QStringLiteral("tcp_capacity_gbps"), tcpCapacityGbps},
                       {QStringLiteral("tcp_host_limited"), tcpHostLimited},
                       {QStringLiteral("tcp_capacity"), tcpCapacity},
                       {QStringLiteral("note"), note}};
}

WireRecord WireRecord::fromJson(const QJsonObject& o) {
    WireRecord r;
    r.model = o.value(QStringLiteral("model")).toString();
    r.bandwidthGbps = o.value(QStringLiteral("bandwidth_gbps")).toDouble();
    r.latencyNs = static_cast<qint64>(o.value(QStringLiteral("latency_ns")).toDouble());
    r.ethernetMtu = o.value(QStringLiteral("ethernet_mtu")).toInt();
    r.tcpPath = o.value(QStringLiteral("tcp_path")).toString();
    r.tcpRate = o.value(QStringLiteral("tcp_rate")).toString();
    r.tcpSteering = o.value(QStringLiteral("tcp_steering")).toString();
    r.tcpDelay = o.value(QStringLiteral("tcp_delay")).toString();
    r.tcpCapacityGbps = o.value(QStringLiteral("tcp_capacity_gbps")).toDouble();
    r.tcpHostLimited = o.value(QStringLiteral("tcp_host_limited")).toBool();
    r.tcpCapacity = o.value(QStringLiteral("tcp_capacity")).toString();
    r.note = o.value(QStringLiteral("note")).toString();
    return r;
}

smcr::Result<sim::LinkModel> linkModel(const QString& name) {
    return sim::linkPreset(name.toStdString());
}

int ethernetMtuFor(smcr::fabric::PathMtu mtu) {
    // RoCE headers (Ethernet, IP, UDP, BTH, RETH, ICRC) take under 100 bytes:
    // a 1024-byte path MTU rides a 1500-byte Ethernet MTU, 4096 needs jumbo frames.
    using smcr::fabric::PathMtu;
    switch (mtu) {
        case PathMtu::invalid:
        case PathMtu::mtu256:
        case PathMtu::mtu512:
        case PathMtu::mtu1024:
            return 1500;
        case PathMtu::mtu2048:
            return 4200;
        case PathMtu::mtu4096:
            return 9000;
    }
    return 1500;
}

WireRecord loopbackRecord(const sim::LinkModel& model, const QString& why) {
    WireRecord r;
    r.model = QString::fromStdString(model.name);
    r.bandwidthGbps = model.bandwidthGbps;
    r.latencyNs = static_cast<qint64>(model.wireLatencyNs);
    r.tcpPath = QStringLiteral("loopback");
    r.tcpRate = QStringLiteral("unshaped");
    r.tcpDelay = QStringLiteral("none");
    if (model.bandwidthGbps <= 0 && model.wireLatencyNs == 0) {
        r.note = QStringLiteral("link %1: TCP over loopback and SMC over the sim, both unshaped").arg(r.model);
    } else {
        r.note = QStringLiteral(
                     "link %1: SMC over the sim at the model's %2 Gbit/s and %3 ns, TCP over UNSHAPED "
                     "loopback (%4): the TCP column ran on a faster wire")
                     .arg(r.model)
                     .arg(model.bandwidthGbps)
                     .arg(model.wireLatencyNs)
                     .arg(why);
    }
    return r;
}

smcr::Result<std::unique_ptr<NamespaceWire>> NamespaceWire::create(const sim::LinkModel& model,
                                                                   const VethOptions& options) {
    if (::geteuid() != 0) {
        return smcr::fail(smcr::Errc::notSupported, "network namespaces need root (CAP_NET_ADMIN)");
    }
    if (options.mtu < 68 || options.mtu > kVethMtu)
        return smcr::fail(smcr::Errc::invalidArgument, "veth MTU must be 68..65535");
    std::unique_ptr<NamespaceWire> wire(new NamespaceWire());
    if (smcr::Status s = wire->build(model, options); !s) return smcr::fail(s.error());
    return wire;
}

smcr::Status NamespaceWire::build(const sim::LinkModel& model, const VethOptions& options) {
    removeStaleNamespaces();
    chooseNames();
    const int receiveCpu = options.receiveCpu >= 0 ? options.receiveCpu : lastAllowedCpu();
    if (smcr::Status s = runTool(QStringLiteral("ip"), {"netns", "add", m_namespace}); !s) return s;
    smcr::Status made = addVethPair(QString::number(options.mtu));
    if (made && options.steerReceives) made = steerReceives(receiveCpu);
    if (!made) {
        destroy();
        return made;
    }
    m_record.model = QString::fromStdString(model.name);
    m_record.bandwidthGbps = model.bandwidthGbps;
    m_record.latencyNs = static_cast<qint64>(model.wireLatencyNs);
    m_record.ethernetMtu = options.mtu;
    m_record.tcpPath = QStringLiteral("veth between network namespaces");
    m_record.tcpRate = QStringLiteral("unshaped");
    m_record.tcpDelay = QStringLiteral("none");
    m_record.tcpSteering = options.steerReceives
                               ? QStringLiteral("receive steering of both ends on CPU %1").arg(receiveCpu)
                               : QStringLiteral("no receive steering");
    // The unshaped veth first: what the host moves decides whether tbf can bind.
    QString why;
    const double unshapedGbps = probeGbps(&why);
    if (smcr::Status s = shapeBothEnds(model, unshapedGbps, options.shapeAlways); !s) {
        destroy();
        return s;
    }
    const bool shaped = m_record.tcpRate.startsWith(QLatin1String("tbf"));
    const double gbps = shaped ? probeGbps(&why) : unshapedGbps;
    recordCapacity(model, gbps, why, shaped);
    const QString mtuWhy = options.mtu == kVethMtu
                               ? QStringLiteral(
                                     " (loopback's order: the host's TCP, not the model's 1500-byte "
                                     "segments in software)")
                               : QString();
    m_record.note = QStringLiteral(
                        "link %1: SMC over the sim (%2 Gbit/s, %3 ns one way); TCP and the CLC handshake "
                        "over a veth between network namespaces, MTU %4%9, %5, rate %6, delay %7; %8")
                        .arg(m_record.model)
                        .arg(model.bandwidthGbps)
                        .arg(model.wireLatencyNs)
                        .arg(m_record.ethernetMtu)
                        .arg(m_record.tcpSteering, m_record.tcpRate, m_record.tcpDelay, m_record.tcpCapacity, mtuWhy);
    return {};
}

void NamespaceWire::chooseNames() {
    const int pid = static_cast<int>(::getpid());
    const int n = g_wires.fetch_add(1);
    m_namespace = QStringLiteral("smclab-%1-%2").arg(pid).arg(n);
    // Interface names have 15 characters at most.
    const QString tag = QString::number((pid * 8 + n) % 10'000'000);
    m_rootDevice = QStringLiteral("slw%1r").arg(tag);
    m_serverDevice = QStringLiteral("slw%1s").arg(tag);
    // A /30 of 10.210-249.x.y per process and wire: addresses that exist only
    // between this namespace and the root one.
    const int a = 210 + (pid >> 14) % 40;
    const int b = (pid >> 6) & 0xff;
    const int c = ((pid + n) & 0x3f) * 4;
    const QString base = QStringLiteral("10.%1.%2.").arg(a).arg(b);
    m_rootAddress = base + QString::number(c + 1);
    m_serverAddress = base + QString::number(c + 2);
    m_subnet = base + QString::number(c) + QStringLiteral("/30");
}

smcr::Status NamespaceWire::addVethPair(const QString& mtu) {
    const QList<QStringList> steps = {
        {"link", "add", m_rootDevice, "mtu", mtu, "type", "veth", "peer", "name", m_serverDevice, "mtu", mtu},
        {"link", "set", m_serverDevice, "netns", m_namespace},
        {"addr", "add", m_rootAddress + "/30", "dev", m_rootDevice},
        {"link", "set", m_rootDevice, "up"},
        {"-n", m_namespace, "addr", "add", m_serverAddress + "/30", "dev", m_serverDevice},
        {"-n", m_namespace, "link", "set", m_serverDevice, "up"},
        {"-n", m_namespace, "link", "set", "lo", "up"},
    };
    for (const QStringList& step : steps) {
        if (smcr::Status s = runTool(QStringLiteral("ip"), step); !s) return s;
    }
    return {};
}

smcr::Status NamespaceWire::steerReceives(int cpu) {
    // The root end's queues are in this namespace's sysfs; the server end's
    // only in a sysfs mounted inside its namespace, which `ip netns exec` does.
    const QString mask = cpuMask(cpu);
    const QDir queues(QStringLiteral("/sys/class/net/%1/queues").arg(m_rootDevice));
    for (const QString& queue : queues.entryList({QStringLiteral("rx-*")}, QDir::Dirs)) {
        QFile file(queues.filePath(queue + QStringLiteral("/rps_cpus")));
        if (!file.open(QIODevice::WriteOnly) || file.write(mask.toLatin1() + '\n') < 0) {
            return smcr::fail(
                smcr::Errc::systemError,
                QStringLiteral("receive steering of %1: %2").arg(m_rootDevice, file.errorString()).toStdString());
        }
    }
    return runTool(QStringLiteral("ip"),
                   {"netns", "exec", m_namespace, "sh", "-c", steeringScript(m_serverDevice, mask)});
}

smcr::Status NamespaceWire::shapeBothEnds(const sim::LinkModel& model, double capacityGbps, bool always) {
    // tbf binds only where the host moves more than the model's rate; below
    // it, the host is the limit and a token bucket only adds a queue.
    const bool rateBinds = model.bandwidthGbps > 0 && (always || capacityGbps > model.bandwidthGbps);
    sim::LinkModel shaping = model;
    if (!rateBinds) shaping.bandwidthGbps = 0;
    // Each direction is shaped where it leaves: the root end for client ->
    // server, the namespace's end for server -> client.
    const QList<QStringList> ends = {{"dev", m_rootDevice}, {"-n", m_namespace, "dev", m_serverDevice}};
    bool delayed = shaping.wireLatencyNs > 0;
    QString delayWhy;
    for (const QStringList& end : ends) {
        if (smcr::Status s = shapeEnd(shaping, end, &delayed, &delayWhy); !s) return s;
    }
    if (rateBinds) {
        m_record.tcpRate = QStringLiteral("tbf %1 on both veth ends").arg(rateText(model.bandwidthGbps));
    } else if (model.bandwidthGbps > 0 && capacityGbps > 0) {
        m_record.tcpRate =
            QStringLiteral("unshaped (this host moves less than the model's %1 Gbit/s: tbf would bind nothing)")
                .arg(model.bandwidthGbps);
    }
    if (delayed) {
        m_record.tcpDelay = QStringLiteral("netem %1 ns each way").arg(model.wireLatencyNs);
    } else if (model.wireLatencyNs > 0) {
        // tc's own words: "Specified qdisc kind is unknown" where netem is not built.
        m_record.tcpDelay = QStringLiteral("not applied (tc netem: %1)").arg(delayWhy.section(QLatin1String(": "), -1));
    }
    return {};
}

smcr::Status NamespaceWire::shapeEnd(const sim::LinkModel& model, const QStringList& end, bool* delayed,
                                     QString* delayWhy) {
    const QStringList netns = end.size() > 2 ? QStringList{end[0], end[1]} : QStringList{};
    const QStringList dev = end.mid(end.size() - 2);
    QString rateParent = QStringLiteral("root");
    if (*delayed) {
        // netem as the root, the rate below it; without netem the rate alone.
        const QString delay = QStringLiteral("%1us").arg(static_cast<double>(model.wireLatencyNs) / 1000.0);
        smcr::Status s =
            runTool(QStringLiteral("tc"), netns + QStringList{"qdisc", "add"} + dev +
                                              QStringList{"root", "handle", "1:", "netem", "delay", delay});
        if (s) {
            rateParent = QStringLiteral("parent 1:");
        } else {
            *delayed = false;
            *delayWhy = QString::fromStdString(s.error().message);
        }
    }
    if (model.bandwidthGbps <= 0) return {};
    QStringList args = netns + QStringList{"qdisc", "add"} + dev;
    args += rateParent == QLatin1String("root") ? QStringList{"root", "handle", "2:"}
                                                : QStringList{"parent", "1:", "handle", "2:"};
    args += QStringList{
        "tbf",     "rate", rateText(model.bandwidthGbps), "burst", QString::number(burstBytes(model.bandwidthGbps)),
        "latency", "5ms"};
    return runTool(QStringLiteral("tc"), args);
}

double NamespaceWire::probeGbps(QString* why) const {
    // 64 KiB writes for a third of a second: long enough for TCP to leave slow
    // start on a veth, short enough for every lab start.
    constexpr int kWriteBytes = 64 * 1024;
    constexpr std::chrono::milliseconds kDuration{300};
    auto probe = probeVethTcp(m_namespace, m_serverAddress, kDuration, kWriteBytes);
    if (!probe) {
        *why = QString::fromStdString(probe.error().message);
        return 0;
    }
    return probe->gbps;
}

void NamespaceWire::recordCapacity(const sim::LinkModel& model, double gbps, const QString& why, bool shaped) {
    if (gbps <= 0) {
        m_record.tcpCapacity = QStringLiteral("TCP capacity not probed (%1)").arg(why);
        return;
    }
    m_record.tcpCapacityGbps = gbps;
    const QString measured = QStringLiteral("a probe moved %1 Gbit/s through the %2veth (64 KiB writes, 0.3 s)")
                                 .arg(gbps, 0, 'f', 2)
                                 .arg(shaped ? QStringLiteral("shaped ") : QString());
    // Under the model's rate (a shaped wire: under 90% of it, tbf's own
    // shortfall aside) the host, not the modelled wire, sets TCP's ceiling,
    // and the sim's too, which copies in the same CPUs.
    m_record.tcpHostLimited = model.bandwidthGbps > 0 && gbps < (shaped ? 0.9 : 1.0) * model.bandwidthGbps;
    if (m_record.tcpHostLimited) {
        m_record.tcpCapacity =
            QStringLiteral(
                "TCP HOST-LIMITED: %1, below the model's %2 Gbit/s: the TCP column is bounded by this "
                "host's CPUs, not by the modelled wire")
                .arg(measured)
                .arg(model.bandwidthGbps);
    } else {
        m_record.tcpCapacity = measured;
    }
}

void NamespaceWire::destroy() {
    if (m_namespace.isEmpty()) return;
    // The namespace takes its veth end, and with it the peer end and the qdiscs.
    (void)runTool(QStringLiteral("ip"), {"netns", "del", m_namespace});
    (void)runTool(QStringLiteral("ip"), {"link", "del", m_rootDevice});
    m_namespace.clear();
}

NamespaceWire::~NamespaceWire() {
    destroy();
}

}  // namespace smclab::locallab
