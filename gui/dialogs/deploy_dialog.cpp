#include "dialogs/deploy_dialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "lab_file.h"

namespace smclab::gui {

namespace {
constexpr int kDefaultAgentPort = 7600;  // smclab lab deploy's default
constexpr int kStopWaitMs = 3000;
}  // namespace

DeployDialog::DeployDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Deploy agent"));
    resize(640, 460);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Runs <tt>smclab lab deploy</tt>: your own ssh client, keys and ~/.ssh/config "
                                "(no password prompt: a host that would ask fails at once), copies "
                                "smclab-agent to the host, gives it a fresh token and starts it."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    m_host = new QLineEdit(this);
    m_host->setPlaceholderText(tr("lab-host-1 (a name from ~/.ssh/config, or an address)"));
    form->addRow(tr("&Host:"), m_host);
    m_user = new QLineEdit(this);
    m_user->setPlaceholderText(tr("ssh's own choice"));
    form->addRow(tr("SSH &user:"), m_user);
    m_sshPort = new QSpinBox(this);
    m_sshPort->setRange(0, 65535);
    m_sshPort->setSpecialValueText(tr("ssh's own choice"));
    form->addRow(tr("SSH &port:"), m_sshPort);
    m_agentPort = new QSpinBox(this);
    m_agentPort->setRange(1, 65535);
    m_agentPort->setValue(kDefaultAgentPort);
    form->addRow(tr("&Agent port:"), m_agentPort);
    m_labFile = new QLineEdit(lab::resolveLabPath(QString()), this);
    m_labFile->setToolTip(tr("The lab file the CLI uses too (smclab --lab FILE, $SMCLAB_LAB)"));
    form->addRow(tr("&Lab file:"), m_labFile);
    layout->addLayout(form);
    m_output = new QPlainTextEdit(this);
    m_output->setReadOnly(true);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(tr("The deploy's output appears here."));
    layout->addWidget(m_output, 1);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_deployButton = buttons->addButton(tr("&Deploy"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_deployButton, &QPushButton::clicked, this, &DeployDialog::deploy);
    connect(m_host, &QLineEdit::textChanged, this, &DeployDialog::updateWidgets);
    updateWidgets();
}

DeployDialog::~DeployDialog() {
    if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
        // smclab lab deploy ends its ssh sessions on SIGTERM.
        m_process->terminate();
        if (!m_process->waitForFinished(kStopWaitMs)) m_process->kill();
        m_process->waitForFinished(kStopWaitMs);
    }
}

QString DeployDialog::cliProgram() {
    QStringList candidates;
    candidates << QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("smclab"));
    const QString binDir = qEnvironmentVariable("SMCLAB_BIN_DIR");
    if (!binDir.isEmpty()) candidates << QDir(binDir).filePath(QStringLiteral("smclab"));
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable()) return info.absoluteFilePath();
    }
    return {};
}

void DeployDialog::setHost(const QString& host) {
    m_host->setText(host);
}

void DeployDialog::setSshUser(const QString& user) {
    m_user->setText(user);
}

void DeployDialog::setSshPort(int port) {
    m_sshPort->setValue(port);
}

void DeployDialog::setAgentPort(int port) {
    m_agentPort->setValue(port);
}

void DeployDialog::setLabFile(const QString& path) {
    m_labFile->setText(path);
}

QString DeployDialog::labFile() const {
    return m_labFile->text().trimmed();
}

QString DeployDialog::host() const {
    return m_host->text().trimmed();
}

int DeployDialog::agentPort() const {
    return m_agentPort->value();
}

QStringList DeployDialog::arguments() const {
    QStringList args{QStringLiteral("lab"), QStringLiteral("deploy"), QStringLiteral("--lab"), labFile()};
    if (!m_user->text().trimmed().isEmpty()) args << QStringLiteral("--user") << m_user->text().trimmed();
    if (m_sshPort->value() > 0) args << QStringLiteral("--port") << QString::number(m_sshPort->value());
    args << QStringLiteral("--agent-port") << QString::number(m_agentPort->value()) << host();
    return args;
}

bool DeployDialog::isRunning() const {
    return m_process != nullptr && m_process->state() != QProcess::NotRunning;
}

QString DeployDialog::outputText() const {
    return m_output->toPlainText();
}

QString DeployDialog::statusText() const {
    return m_status->text();
}

void DeployDialog::appendOutput(const QString& text) {
    m_output->moveCursor(QTextCursor::End);
    m_output->insertPlainText(text);
    m_output->moveCursor(QTextCursor::End);
}

bool DeployDialog::deploy() {
    if (isRunning() || host().isEmpty()) return false;
    const QString program = cliProgram();
    if (program.isEmpty()) {
        m_status->setText(tr("The smclab CLI is not next to this program nor in $SMCLAB_BIN_DIR (build it)."));
        return false;
    }
    delete m_process;
    m_process = new QProcess(this);
    m_process->setProgram(program);
    m_process->setArguments(arguments());
    // ssh's and the CLI's messages in the order they come.
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardInputFile(QProcess::nullDevice());  // never a prompt
    appendOutput(QStringLiteral("$ smclab %1\n").arg(arguments().join(QLatin1Char(' '))));
    connect(m_process, &QProcess::readyRead, this,
            [this] { appendOutput(QString::fromLocal8Bit(m_process->readAll())); });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        appendOutput(QString::fromLocal8Bit(m_process->readAll()));
        const bool ok = status == QProcess::NormalExit && code == 0;
        m_status->setText(ok ? tr("Deployed: %1 is in the lab file %2.").arg(host(), labFile())
                             : tr("The deploy failed (exit %1): see its output above.").arg(code));
        updateWidgets();
        if (ok) emit deployed(host(), labFile());
        emit finished(ok);
    });
    connect(m_process, &QProcess::errorOccurred, this, [this, program](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_status->setText(tr("Cannot run %1: %2").arg(program, m_process->errorString()));
            updateWidgets();
            emit finished(false);
        }
    });
    m_status->setText(tr("Deploying to %1...").arg(host()));
    m_process->start();
    updateWidgets();
    return true;
}

void DeployDialog::updateWidgets() {
    const bool running = isRunning();
    m_deployButton->setEnabled(!running && !host().isEmpty());
    for (QWidget* w : {static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_user), static_cast<QWidget*>(m_sshPort),
                       static_cast<QWidget*>(m_agentPort), static_cast<QWidget*>(m_labFile)})
        w->setEnabled(!running);
}

}  // namespace smclab::gui
