// Chooses the results database: an SQLite file, or a team's PostgreSQL
// server as postgresql://USER@HOST[:PORT]/DBNAME (db/database_location.h).
// The password is never asked for nor stored: libpq reads it from
// ~/.pgpass or PGPASSWORD, as the CLI does. OK is enabled only for a
// location that parses; the hint says what is wrong.
#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace smclab::gui {

class DatabaseDialog : public QDialog {
    Q_OBJECT
public:
    explicit DatabaseDialog(QWidget* parent = nullptr);

    // A file path or a postgresql:// URL, as LabContext::setDatabasePath takes it.
    void setLocation(const QString& location);
    QString location() const;
    bool isPostgres() const;
    QString hintText() const;

    // The fields, for tests and keyboard users alike.
    void setSqliteFile(const QString& path);
    void setPostgres(const QString& user, const QString& host, int port, const QString& database);

private:
    void updateWidgets();

    QRadioButton* m_sqlite = nullptr;
    QRadioButton* m_postgres = nullptr;
    QLineEdit* m_file = nullptr;
    QLineEdit* m_user = nullptr;
    QLineEdit* m_host = nullptr;
    QSpinBox* m_port = nullptr;
    QLineEdit* m_database = nullptr;
    QLabel* m_hint = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace smclab::gui
