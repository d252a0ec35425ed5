#include "dialogs/deploy_dialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "lab_file.h"
#include "run/deploy_runner.h"

namespace smclab::gui {

DeployDialog::DeployDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Deploy agent"));
    resize(640, 460);
    auto* layout = new QVBoxLayout(this);
    auto* intro =
        new QLabel(tr("Does what <tt>smclab lab deploy</tt> does: your own ssh client, keys and ~/.ssh/config "
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
    m_agentPort->setValue(lab::kDefaultAgentPort);
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
    m_runner = new DeployRunner(this);
    connect(m_runner, &DeployRunner::progress, this, &DeployDialog::appendOutput);
    connect(m_runner, &DeployRunner::finished, this, &DeployDialog::onFinished);
    updateWidgets();
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

lab::DeployOptions DeployDialog::options() const {
    lab::DeployOptions options;
    options.labPath = labFile();
    options.ssh.user = m_user->text().trimmed();
    options.ssh.port = m_sshPort->value();
    options.agentPort = static_cast<quint16>(m_agentPort->value());
    return options;
}

bool DeployDialog::isRunning() const {
    return m_runner->busy();
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
    if (host().isEmpty() || !m_runner->start(options(), host())) return false;
    appendOutput(
        tr("Deploying an agent to %1 (agent port %2, lab file %3)\n").arg(host()).arg(agentPort()).arg(labFile()));
    m_status->setText(tr("Deploying to %1...").arg(host()));
    updateWidgets();
    return true;
}

void DeployDialog::onFinished(bool ok, const QString& host, const QString& why) {
    if (!ok) appendOutput(tr("The deploy failed: %1\n").arg(why));
    m_status->setText(ok ? tr("Deployed: %1 is in the lab file %2.").arg(host, labFile())
                         : tr("The deploy failed: see its output above."));
    updateWidgets();
    if (ok) emit deployed(host, labFile());
    emit finished(ok);
}

void DeployDialog::reject() {
    if (isRunning()) {
        m_status->setText(tr("The deploy is still running; it ends on its own (ssh gives up after its timeouts)."));
        return;
    }
    QDialog::reject();
}

void DeployDialog::updateWidgets() {
    const bool running = isRunning();
    m_deployButton->setEnabled(!running && !host().isEmpty());
    for (QWidget* w : {static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_user), static_cast<QWidget*>(m_sshPort),
                       static_cast<QWidget*>(m_agentPort), static_cast<QWidget*>(m_labFile)})
        w->setEnabled(!running);
}

}  // namespace smclab::gui
