#include "local_agents.h"

#include <csignal>

#include <sched.h>
#include <sys/prctl.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include "wire.h"

namespace smclab::locallab {

namespace {

constexpr int kStartTimeoutMs = 15'000;

}  // namespace

quint16 LocalAgents::freeLoopbackPort() {
    // Bound and released at once; the agent binds it a moment later. A
    // collision is possible but rare, and shows as an agent that fails to
    // start with a clear log. (A namespace has its own ports: any free one
    // here is free there too, the namespace being new.)
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
    return probe.serverPort();
}

namespace {

QString tail(const QString& path, int maxBytes = 2000) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    if (file.size() > maxBytes) file.seek(file.size() - maxBytes);
    return QString::fromUtf8(file.readAll()).trimmed();
}

}  // namespace

LocalAgents::LocalAgents() = default;

LocalAgents::~LocalAgents() {
    stopAll();
}

QString LocalAgents::findAgentProgram() {
    QStringList candidates;
    if (QCoreApplication::instance() != nullptr)
        candidates << QCoreApplication::applicationDirPath() + QStringLiteral("/smclab-agent");
    const QString binDir = qEnvironmentVariable("SMCLAB_BIN_DIR");
    if (!binDir.isEmpty()) candidates << binDir + QStringLiteral("/smclab-agent");
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable()) return info.absoluteFilePath();
    }
    return {};
}

QString LocalAgents::logFile(int index) const {
    return m_dir ? m_dir->filePath(QStringLiteral("agent%1.log").arg(index)) : QString();
}

QList<qint64> LocalAgents::processIds() const {
    QList<qint64> pids;
    for (const auto& process : m_processes) {
        if (process->state() != QProcess::NotRunning && process->processId() > 0) pids.append(process->processId());
    }
    return pids;
}

std::vector<int> LocalAgents::allowedCpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
    return cpus;
}

int LocalAgents::agentCpu(int index) const {
    // One CPU per end, as `smclab bench` pins its two processes: agents are
    // listed server first, and the server takes the second CPU.
    const std::vector<int> cpus = allowedCpus();
    if (!m_pinned || cpus.size() < 2) return -1;
    return cpus[static_cast<size_t>(index + 1) % cpus.size()];
}

smcr::Status LocalAgents::start(int count, const QString& program, const NamespaceWire* wire) {
    if (program.isEmpty())
        return smcr::fail(
            smcr::Errc::notFound,
            "smclab-agent not found next to smclab or in $SMCLAB_BIN_DIR (build the smclab-agent target)");
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid()) return smcr::fail(smcr::Errc::systemError, "cannot create a temporary directory");
    // 32 random bytes as hex; the file is private to this user.
    QByteArray secret(32, '\0');
    for (char& c : secret) c = static_cast<char>(QRandomGenerator::system()->bounded(256));
    m_token = QString::fromLatin1(secret.toHex());
    m_tokenFile = m_dir->filePath(QStringLiteral("token"));
    {
        QFile file(m_tokenFile);
        if (!file.open(QIODevice::WriteOnly) || file.write(m_token.toLatin1()) < 0)
            return smcr::fail(smcr::Errc::systemError, "cannot write the token file");
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
    for (int i = 0; i < count; ++i) {
        const quint16 port = freeLoopbackPort();
        if (port == 0) return smcr::fail(smcr::Errc::systemError, "no free loopback port");
        const bool inNamespace = wire != nullptr && i % 2 == 0;  // server agents
        const QString host = inNamespace ? wire->serverAddress() : QStringLiteral("127.0.0.1");
        const QString address = QStringLiteral("%1:%2").arg(host).arg(port);
        QStringList arguments{QStringLiteral("--listen"), address, QStringLiteral("--token-file"), m_tokenFile};
        // The client agents connect to the server's namespace address.
        if (wire != nullptr) arguments << QStringLiteral("--allow-peer") << wire->subnet();
        if (const int cpu = agentCpu(i); cpu >= 0) arguments << QStringLiteral("--cpu") << QString::number(cpu);
        auto process = std::make_unique<QProcess>();
        if (inNamespace) {
            // ip netns exec enters the namespace and execs the agent: the
            // process is the agent itself (its pid, its signals).
            process->setProgram(QStringLiteral("ip"));
            process->setArguments(
                QStringList{QStringLiteral("netns"), QStringLiteral("exec"), wire->serverNamespace(), program} +
                arguments);
        } else {
            process->setProgram(program);
            process->setArguments(arguments);
        }
        process->setStandardOutputFile(logFile(i));
        process->setStandardErrorFile(logFile(i), QIODevice::Append);
        // If this process dies without stopping them (SIGKILL), the kernel
        // sends the agents SIGTERM.
        process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        process->start();
        if (!process->waitForStarted(5000))
            return smcr::fail(smcr::Errc::systemError,
                              QStringLiteral("cannot start %1: %2").arg(program, process->errorString()).toStdString());
        m_processes.push_back(std::move(process));
        m_addresses << address;
    }
    // Ready = accepting TCP connections on its port.
    for (int i = 0; i < count; ++i) {
        QElapsedTimer timer;
        timer.start();
        const QHostAddress host(m_addresses[i].section(QLatin1Char(':'), 0, 0));
        const quint16 port = static_cast<quint16>(m_addresses[i].section(QLatin1Char(':'), 1).toUInt());
        while (true) {
            QProcess& process = *m_processes[static_cast<size_t>(i)];
            if (process.state() == QProcess::NotRunning)
                return smcr::fail(smcr::Errc::systemError, QStringLiteral("smclab-agent on %1 exited at start: %2")
                                                               .arg(m_addresses[i], tail(logFile(i)))
                                                               .toStdString());
            QTcpSocket socket;
            socket.connectToHost(host, port);
            if (socket.waitForConnected(200)) break;
            if (timer.elapsed() > kStartTimeoutMs)
                return smcr::fail(
                    smcr::Errc::timedOut,
                    QStringLiteral("smclab-agent on %1 did not start listening").arg(m_addresses[i]).toStdString());
            QThread::msleep(50);
        }
    }
    return {};
}

void LocalAgents::stopAll() {
    for (auto& process : m_processes) {
        if (process->state() != QProcess::NotRunning) process->terminate();
    }
    for (auto& process : m_processes) {
        if (process->state() != QProcess::NotRunning && !process->waitForFinished(5000)) {
            process->kill();
            process->waitForFinished(2000);
        }
    }
    m_processes.clear();
}

}  // namespace smclab::locallab
