#include "wire_bench.h"

#include <memory>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>

#include "local_agents.h"

namespace smclab::locallab {

namespace {

// A process pinned to `cpu` (-1: anywhere), inside `netns` when given (`ip
// netns exec` execs the program: the pin and the process are the same).
std::unique_ptr<QProcess> pinnedProcess(const QString& program, const QStringList& args, int cpu,
                                        const QString& netns) {
    auto process = std::make_unique<QProcess>();
    if (netns.isEmpty()) {
        process->setProgram(program);
        process->setArguments(args);
    } else {
        process->setProgram(QStringLiteral("ip"));
        process->setArguments(QStringList{QStringLiteral("netns"), QStringLiteral("exec"), netns, program} + args);
    }
    process->setProcessChannelMode(QProcess::MergedChannels);
    process->setChildProcessModifier([cpu] {
        if (cpu < 0) return;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        (void)::sched_setaffinity(0, sizeof set, &set);
    });
    return process;
}

// True once something accepts TCP connections at address:port.
bool accepting(const QString& address, quint16 port) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    if (::inet_pton(AF_INET, address.toLatin1().constData(), &to.sin_addr) != 1) return false;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0;
    ::close(fd);
    return ok;
}

// This namespace's TCP RetransSegs (/proc/net/snmp), -1 where unreadable.
qint64 retransmittedSegments() {
    QFile file(QStringLiteral("/proc/net/snmp"));
    if (!file.open(QIODevice::ReadOnly)) return -1;
    const QStringList lines = QString::fromLatin1(file.readAll()).split(QLatin1Char('\n'));
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        if (!lines[i].startsWith(QLatin1String("Tcp:")) || !lines[i + 1].startsWith(QLatin1String("Tcp:"))) continue;
        const QStringList names = lines[i].split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const QStringList values = lines[i + 1].split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const qsizetype at = names.indexOf(QStringLiteral("RetransSegs"));
        if (at > 0 && at < values.size()) return values[at].toLongLong();
    }
    return -1;
}

// The servers of one round: qperf and `smclab serve tcp`, each on loopback
// and in the wire's namespace.
class Servers {
public:
    ~Servers() {
        for (auto& process : m_processes) {
            process->terminate();
            if (!process->waitForFinished(2000)) {
                process->kill();
                process->waitForFinished(1000);
            }
        }
    }

    smcr::Status start(const WireBenchOptions& options, const NamespaceWire& wire, int cpu) {
        m_qperfPort = LocalAgents::freeLoopbackPort();
        m_tcpPort = LocalAgents::freeLoopbackPort();
        if (m_qperfPort == 0 || m_tcpPort == 0) return smcr::fail(smcr::Errc::systemError, "no free loopback port");
        const QString qperfPort = QString::number(m_qperfPort);
        struct Start {
            QString program;
            QStringList args;
            QString netns;
            QString address;
            quint16 port;
        };
        const QString loopback = QStringLiteral("127.0.0.1");
        const QString veth = wire.serverAddress();
        const auto serve = [&](const QString& address) {
            return QStringList{QStringLiteral("serve"), QStringLiteral("tcp"), QStringLiteral("--listen"),
                               QStringLiteral("%1:%2").arg(address).arg(m_tcpPort)};
        };
        const QList<Start> starts = {
            {options.qperfProgram, {QStringLiteral("-lp"), qperfPort}, QString(), loopback, m_qperfPort},
            {options.qperfProgram, {QStringLiteral("-lp"), qperfPort}, wire.serverNamespace(), veth, m_qperfPort},
            {options.smclabProgram, serve(loopback), QString(), loopback, m_tcpPort},
            {options.smclabProgram, serve(veth), wire.serverNamespace(), veth, m_tcpPort},
        };
        for (const Start& s : starts) {
            auto process = pinnedProcess(s.program, s.args, cpu, s.netns);
            process->start();
            if (!process->waitForStarted(5000))
                return smcr::fail(
                    smcr::Errc::notFound,
                    QStringLiteral("cannot start %1: %2").arg(s.program, process->errorString()).toStdString());
            m_processes.push_back(std::move(process));
            QElapsedTimer waited;
            waited.start();
            while (!accepting(s.address, s.port)) {
                if (m_processes.back()->state() == QProcess::NotRunning || waited.elapsed() > 5000) {
                    return smcr::fail(smcr::Errc::timedOut,
                                      QStringLiteral("%1 %2 did not listen on %3:%4: %5")
                                          .arg(s.program, s.args.join(QLatin1Char(' ')), s.address)
                                          .arg(s.port)
                                          .arg(QString::fromLocal8Bit(m_processes.back()->readAll()).trimmed())
                                          .toStdString());
                }
                QThread::msleep(20);
            }
        }
        return {};
    }

    quint16 qperfPort() const { return m_qperfPort; }
    quint16 tcpPort() const { return m_tcpPort; }

private:
    std::vector<std::unique_ptr<QProcess>> m_processes;
    quint16 m_qperfPort = 0;
    quint16 m_tcpPort = 0;
};

// One client run of `path` at `size`: its MB/s.
smcr::Result<double> runClient(const WireBenchOptions& options, const Servers& servers, const NamespaceWire& wire,
                               WirePath path, uint64_t size, int cpu) {
    const bool veth = path == WirePath::qperfVeth || path == WirePath::tcpBwVeth;
    const QString host = veth ? wire.serverAddress() : QStringLiteral("127.0.0.1");
    const QString seconds = QString::number(options.durationMs / 1000);
    const QString msgSize = QString::number(size);
    QString program;
    QStringList args;
    if (path == WirePath::qperfLoopback || path == WirePath::qperfVeth) {
        program = options.qperfProgram;
        args = {QStringLiteral("-lp"),
                QString::number(servers.qperfPort()),
                QStringLiteral("-t"),
                seconds,
                QStringLiteral("-m"),
                msgSize,
                host,
                QStringLiteral("tcp_bw")};
    } else {
        program = options.smclabProgram;
        args = {QStringLiteral("load"),      QStringLiteral("tcp_bw"),
                QStringLiteral("--connect"), QStringLiteral("%1:%2").arg(host).arg(servers.tcpPort()),
                QStringLiteral("-t"),        seconds,
                QStringLiteral("-m"),        msgSize};
    }
    auto process = pinnedProcess(program, args, cpu, QString());
    process->start();
    const int limitMs = options.durationMs + 15'000;
    if (!process->waitForFinished(limitMs)) {
        process->kill();
        process->waitForFinished(1000);
        return smcr::fail(smcr::Errc::timedOut, QStringLiteral("%1 %2: no result in %3 ms")
                                                    .arg(program, args.join(QLatin1Char(' ')))
                                                    .arg(limitMs)
                                                    .toStdString());
    }
    const QString output = QString::fromLocal8Bit(process->readAll());
    const auto mbps = parseQperfBandwidth(output);
    if (process->exitCode() != 0 || !mbps) {
        return smcr::fail(
            smcr::Errc::systemError,
            QStringLiteral("%1 %2: %3").arg(program, args.join(QLatin1Char(' ')), output.trimmed()).toStdString());
    }
    return *mbps;
}

}  // namespace

QString wirePathName(WirePath path) {
    switch (path) {
        case WirePath::qperfLoopback:
            return QStringLiteral("qperf lo");
        case WirePath::qperfVeth:
            return QStringLiteral("qperf veth");
        case WirePath::tcpBwLoopback:
            return QStringLiteral("tcp_bw lo");
        case WirePath::tcpBwVeth:
            return QStringLiteral("tcp_bw veth");
    }
    return QString();
}

std::optional<double> parseQperfBandwidth(const QString& output) {
    static const QRegularExpression line(QStringLiteral(R"(\bbw\s*=\s*([0-9.]+)\s*(bytes|KB|MB|GB)/sec)"));
    const QRegularExpressionMatch m = line.match(output);
    if (!m.hasMatch()) return std::nullopt;
    bool ok = false;
    const double value = m.captured(1).toDouble(&ok);
    if (!ok) return std::nullopt;
    const QString unit = m.captured(2);
    const double scale = unit == QLatin1String("GB")      ? 1e3
                         : unit == QLatin1String("KB")    ? 1e-3
                         : unit == QLatin1String("bytes") ? 1e-6
                                                          : 1.0;
    return value * scale;
}

smcr::Result<WireBenchResult> benchWire(const WireBenchOptions& options,
                                        const std::function<void(int, int, const QString&)>& progress) {
    // qperf's -t takes whole seconds.
    if (options.sizes.empty() || options.repetitions < 1 || options.durationMs < 1000 || options.durationMs % 1000)
        return smcr::fail(smcr::Errc::invalidArgument,
                          "wire bench: give sizes, at least 1 repetition and whole seconds");
    if (QStandardPaths::findExecutable(options.qperfProgram).isEmpty() && !QFile::exists(options.qperfProgram))
        return smcr::fail(smcr::Errc::notFound, "qperf not found (Debian package qperf)");
    if (options.smclabProgram.isEmpty() || !QFile::exists(options.smclabProgram))
        return smcr::fail(smcr::Errc::notFound, "smclab not found (its serve and load run our tcp_bw)");
    auto model = linkModel(options.linkModel);
    if (!model) return smcr::fail(model.error());

    // The lab's pins: server agent on the second CPU, client on the first.
    WireBenchResult result;
    const std::vector<int> cpus = LocalAgents::allowedCpus();
    if (cpus.size() >= 2) result.cpus = {cpus[0], cpus[1]};
    VethOptions veth = options.veth;
    veth.receiveCpu = result.cpus[1];
    auto wire = NamespaceWire::create(*model, veth);
    if (!wire) return smcr::fail(wire.error());
    result.wire = (*wire)->record();

    Servers servers;
    if (smcr::Status s = servers.start(options, **wire, result.cpus[1]); !s) return smcr::fail(s.error());

    for (uint64_t size : options.sizes) result.rows.push_back(WireBenchRow{size, {}});
    const int total = options.repetitions * static_cast<int>(options.sizes.size()) * kWirePaths;
    int done = 0;
    for (int round = 0; round < options.repetitions; ++round) {
        for (WireBenchRow& row : result.rows) {
            for (int p = 0; p < kWirePaths; ++p) {
                const auto path = static_cast<WirePath>(p);
                const qint64 before = retransmittedSegments();
                auto mbps = runClient(options, servers, **wire, path, row.msgSize, result.cpus[0]);
                if (!mbps) return smcr::fail(mbps.error());
                const qint64 after = retransmittedSegments();
                if (before >= 0 && after >= before) result.retransmits[static_cast<size_t>(p)] += after - before;
                row.mbps[static_cast<size_t>(p)].append(*mbps);
                ++done;
                if (progress) progress(done, total, QStringLiteral("%1 B %2").arg(row.msgSize).arg(wirePathName(path)));
            }
        }
    }
    return result;
}

}  // namespace smclab::locallab
