#include "dialogs/database_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "app/app_settings.h"
#include "smclab/db/database_location.h"
#include "smclab/db/database_path.h"

namespace smclab::gui {

DatabaseDialog::DatabaseDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Results database"));
    auto* layout = new QVBoxLayout(this);

    m_sqlite = new QRadioButton(tr("&SQLite file on this computer"), this);
    layout->addWidget(m_sqlite);
    auto* fileRow = new QHBoxLayout;
    m_file = new QLineEdit(this);
    // A path to go back to from PostgreSQL, not a placeholder to retype.
    m_file->setText(db::defaultDatabasePath());
    auto* browse = new QPushButton(tr("&Browse..."), this);
    fileRow->addSpacing(20);
    fileRow->addWidget(m_file, 1);
    fileRow->addWidget(browse);
    layout->addLayout(fileRow);

    m_postgres = new QRadioButton(tr("&PostgreSQL server shared by the team"), this);
    layout->addWidget(m_postgres);
    auto* form = new QFormLayout;
    form->setContentsMargins(20, 0, 0, 0);
    m_user = new QLineEdit(this);
    m_user->setPlaceholderText(tr("smclab"));
    form->addRow(tr("&User:"), m_user);
    m_host = new QLineEdit(this);
    m_host->setPlaceholderText(tr("db.lab.example"));
    form->addRow(tr("&Host:"), m_host);
    m_port = new QSpinBox(this);
    m_port->setRange(1, 65535);
    m_port->setValue(db::kPostgresDefaultPort);
    form->addRow(tr("P&ort:"), m_port);
    m_database = new QLineEdit(this);
    // The name the CLI's examples and the packaging create; a placeholder
    // only looked filled in and then failed with "no /DBNAME".
    m_database->setText(QStringLiteral("smclab"));
    form->addRow(tr("&Database:"), m_database);
    layout->addLayout(form);
    auto* password =
        new QLabel(tr("The password is not asked for here and never stored: the server's client library reads it "
                      "from ~/.pgpass (host:port:database:user:password, mode 0600) or PGPASSWORD."),
                   this);
    password->setWordWrap(true);
    layout->addWidget(password);

    m_hint = new QLabel(this);
    m_hint->setObjectName(QStringLiteral("databaseHint"));
    m_hint->setWordWrap(true);
    // Room for the longest hint from the start: the fields and buttons stay
    // put while it changes with every key.
    m_hint->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_hint->setMinimumHeight(m_hint->fontMetrics().lineSpacing() * 3);
    layout->addWidget(m_hint);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Results database"), m_file->text(),
                                                          tr("SQLite databases (*.db);;All files (*)"), nullptr,
                                                          QFileDialog::DontConfirmOverwrite);
        if (!path.isEmpty()) setSqliteFile(path);
    });
    for (QLineEdit* edit : {m_file, m_user, m_host, m_database})
        connect(edit, &QLineEdit::textChanged, this, &DatabaseDialog::updateWidgets);
    connect(m_port, &QSpinBox::valueChanged, this, &DatabaseDialog::updateWidgets);
    connect(m_sqlite, &QRadioButton::toggled, this, &DatabaseDialog::updateWidgets);
    m_sqlite->setChecked(true);
    updateWidgets();
}

void DatabaseDialog::setLocation(const QString& location) {
    const auto parsed = db::parseDatabaseLocation(location);
    if (parsed && parsed->backend == db::StoreBackend::postgresql) {
        setPostgres(parsed->user, parsed->host, parsed->port, parsed->database);
        // The SQLite choice keeps a file to go back to: the last one used.
        const QString lastFile = AppSettings::lastSqlitePath();
        if (!lastFile.isEmpty()) m_file->setText(lastFile);
    } else {
        setSqliteFile(location);
    }
}

void DatabaseDialog::setSqliteFile(const QString& path) {
    m_file->setText(path);
    m_sqlite->setChecked(true);
}

void DatabaseDialog::setPostgres(const QString& user, const QString& host, int port, const QString& database) {
    m_user->setText(user);
    m_host->setText(host);
    m_port->setValue(port);
    m_database->setText(database);
    m_postgres->setChecked(true);
}

bool DatabaseDialog::isPostgres() const {
    return m_postgres->isChecked();
}

QString DatabaseDialog::location() const {
    if (!isPostgres()) return m_file->text().trimmed();
    QString host = m_host->text().trimmed();
    if (host.contains(QLatin1Char(':')) && !host.startsWith(QLatin1Char('[')))
        host = QStringLiteral("[%1]").arg(host);  // an IPv6 address
    const QString port =
        m_port->value() == db::kPostgresDefaultPort ? QString() : QStringLiteral(":%1").arg(m_port->value());
    return QStringLiteral("postgresql://%1@%2%3/%4")
        .arg(m_user->text().trimmed(), host, port, m_database->text().trimmed());
}

QString DatabaseDialog::hintText() const {
    return m_hint->text();
}

void DatabaseDialog::updateWidgets() {
    for (QWidget* w : {static_cast<QWidget*>(m_user), static_cast<QWidget*>(m_host), static_cast<QWidget*>(m_port),
                       static_cast<QWidget*>(m_database)})
        w->setEnabled(isPostgres());
    m_file->setEnabled(!isPostgres());
    QString hint;
    if (isPostgres()) {
        // The same parser as --db and SMCLAB_DB: what it refuses, this refuses.
        const auto parsed = db::parseDatabaseLocation(location());
        hint = parsed ? tr("Connects to %1").arg(parsed->display()) : QString::fromStdString(parsed.error().message);
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(parsed.ok());
    } else {
        const bool empty = m_file->text().trimmed().isEmpty();
        hint = empty ? tr("Name a file (it is created if it does not exist).")
                     : tr("Opens %1 (created if it does not exist)").arg(m_file->text().trimmed());
        m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!empty);
    }
    m_hint->setText(hint);
}

}  // namespace smclab::gui
