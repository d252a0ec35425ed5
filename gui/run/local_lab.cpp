#include "run/local_lab.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <sys/prctl.h>

#include <csignal>

namespace smclab::gui {

namespace {
constexpr int kTokenBytes = 24;
constexpr int kStopWaitMs = 3000;
}  // namespace

LocalLab::LocalLab(QObject* parent) : QObject(parent) {
    // Normal quit: the window may outlive the event loop (e.g. owned by
    // main()'s stack), so stop the agents as the loop ends.
    if (QCoreApplication* app = QCoreApplication::instance())
        connect(app, &QCoreApplication::aboutToQuit, this, &LocalLab::shutdown);
}

LocalLab::~LocalLab() {
    shutdown();
}

QString LocalLab::agentProgram() {
    const QString fromEnv = qEnvironmentVariable("SMCLAB_BIN_DIR");
    const QString dir = fromEnv.isEmpty() ? QCoreApplication::applicationDirPath() : fromEnv;
    return QDir(dir).filePath(QStringLiteral("smclab-agent"));
}

QString LocalLab::tokenFile() const {
    return m_dir ? m_dir->filePath(QStringLiteral("token")) : QString();
}

bool LocalLab::start(int count) {
    shutdown();
    const QString program = agentProgram();
    if (!QFileInfo(program).isExecutable()) {
        emit failed(tr("smclab-agent not found at %1 (build it, or set SMCLAB_BIN_DIR)").arg(program));
        return false;
    }
    m_dir = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("smclab-gui-lab-XXXXXX")));
    if (!m_dir->isValid()) {
        emit failed(tr("Cannot create a folder for the local lab: %1").arg(m_dir->errorString()));
        return false;
    }
    // A fresh random token per lab; the file is readable by this user only.
    QByteArray raw(kTokenBytes, Qt::Uninitialized);
    for (char& c : raw)
        c = static_cast<char>(QRandomGenerator::system()->bounded(256));
    m_token = QString::fromLatin1(raw.toHex());
    QFile file(tokenFile());
    if (!file.open(QIODevice::WriteOnly) || file.write(m_token.toLatin1() + '\n') < 0) {
        emit failed(tr("Cannot write the token file %1").arg(file.fileName()));
        return false;
    }
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    file.close();

    m_expected = count;
    for (int i = 0; i < count; ++i) {
        auto* process = new QProcess(this);
        process->setProgram(program);
        process->setArguments({QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                               QStringLiteral("--token-file"), tokenFile()});
        process->setProcessChannelMode(QProcess::SeparateChannels);
        // The agents' logs are not needed here; errors come back over the protocol.
        process->setStandardErrorFile(QProcess::nullDevice());
        // If the GUI dies without stopping them (a crash, SIGKILL), the
        // kernel sends the agents SIGTERM.
        process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        connect(process, &QProcess::readyReadStandardOutput, this, [this, process] { onOutput(process); });
        connect(process, &QProcess::errorOccurred, this,
                [this, program](QProcess::ProcessError) { emit failed(tr("Cannot run %1").arg(program)); });
        connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus) {
            if (m_processes.contains(process))
                emit failed(tr("A local agent exited (code %1)").arg(code));
            m_processes.removeAll(process);
            process->deleteLater();
        });
        m_processes.append(process);
        process->start();
    }
    return true;
}

QList<qint64> LocalLab::processIds() const {
    QList<qint64> pids;
    for (const QProcess* process : m_processes) {
        if (process->processId() > 0)
            pids.append(process->processId());
    }
    return pids;
}

void LocalLab::onOutput(QProcess* process) {
    // smclab-agent prints "listening on ADDR:PORT" once it accepts controllers.
    static const QRegularExpression kListening(QStringLiteral("listening on (\\S+)"));
    while (process->canReadLine()) {
        const QString line = QString::fromUtf8(process->readLine()).trimmed();
        const QRegularExpressionMatch match = kListening.match(line);
        if (!match.hasMatch())
            continue;
        const QString address = match.captured(1);
        m_addresses.append(address);
        emit agentStarted(address);
        if (m_addresses.size() == m_expected)
            emit allStarted(m_addresses);
    }
}

void LocalLab::shutdown() {
    const QList<QProcess*> processes = m_processes;
    m_processes.clear();
    for (QProcess* process : processes) {
        process->disconnect(this);
        process->terminate();  // SIGTERM: the agent stops its runs and exits cleanly
    }
    for (QProcess* process : processes) {
        if (!process->waitForFinished(kStopWaitMs)) {
            process->kill();
            process->waitForFinished(kStopWaitMs);
        }
        delete process;
    }
    m_addresses.clear();
    m_dir.reset();
}

}  // namespace smclab::gui
