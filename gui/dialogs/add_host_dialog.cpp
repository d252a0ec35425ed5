#include "dialogs/add_host_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "orchestrator/campaign_json.h"

namespace smclab::gui {

AddHostDialog::AddHostDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Add agent"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_address = new QLineEdit(this);
    m_address->setPlaceholderText(tr("192.0.2.10:7600"));
    form->addRow(tr("&Address:"), m_address);
    m_token = new QLineEdit(this);
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("typed token (not saved)"));
    form->addRow(tr("&Token:"), m_token);
    auto* fileRow = new QHBoxLayout;
    m_tokenFile = new QLineEdit(this);
    m_tokenFile->setPlaceholderText(tr("or a token file (remembered)"));
    auto* browse = new QPushButton(tr("Browse..."), this);
    fileRow->addWidget(m_tokenFile, 1);
    fileRow->addWidget(browse);
    form->addRow(tr("Token &file:"), fileRow);
    m_tls = new QCheckBox(tr("Use TLS (wss://)"), this);
    form->addRow(QString(), m_tls);
    layout->addLayout(form);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Token file"));
        if (!path.isEmpty()) m_tokenFile->setText(path);
    });
    for (QLineEdit* edit : {m_address, m_token, m_tokenFile}) {
        connect(edit, &QLineEdit::textChanged, this, &AddHostDialog::updateWidgets);
    }
    updateWidgets();
}

QString AddHostDialog::address() const {
    return m_address->text().trimmed();
}
QString AddHostDialog::token() const {
    return m_token->text().trimmed();
}
QString AddHostDialog::tokenFile() const {
    return m_tokenFile->text().trimmed();
}
bool AddHostDialog::tls() const {
    return m_tls->isChecked();
}
void AddHostDialog::setAddress(const QString& address) {
    m_address->setText(address);
}
void AddHostDialog::setToken(const QString& token) {
    m_token->setText(token);
}
QString AddHostDialog::hintText() const {
    return m_hint->text();
}

void AddHostDialog::updateWidgets() {
    QString hint;
    QString host;
    quint16 port = 0;
    if (address().isEmpty()) {
        hint = tr("Enter the agent's address as HOST:PORT.");
    } else if (!orchestrator::splitHostPort(address(), &host, &port) || port == 0) {
        hint = tr("'%1' is not HOST:PORT.").arg(address());
    } else if (token().isEmpty() && tokenFile().isEmpty()) {
        hint = tr("Enter the agent's token, or the file that holds it (smclab-agent --token-file).");
    } else if (!tokenFile().isEmpty() && !QFileInfo(tokenFile()).isReadable()) {
        hint = tr("Cannot read the token file %1.").arg(tokenFile());
    }
    m_hint->setText(hint.isEmpty() ? tr("The agent is connected as soon as you press OK.") : hint);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(hint.isEmpty());
}

}  // namespace smclab::gui
